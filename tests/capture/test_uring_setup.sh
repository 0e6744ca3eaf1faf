#!/bin/bash
# The recorder writes the IORING_SETUP_* flags of the io_uring rings the application
# submitted to (meta capture.uring_setup, read from each request's ring): a ring set up with
# DEFER_TASKRUN posts its completions only when the application's thread waits for them, so
# its recorded requests stay in flight until then, which the report says beside a replay.
# fio's io_uring job, recorded under strace -X raw: the meta's number is the one strace saw
# io_uring_setup given (fio on Linux 6.1+: CQSIZE|COOP_TASKRUN|SINGLE_ISSUER|DEFER_TASKRUN,
# 0x3108), and with --sqthread_poll another one (SQPOLL|CQSIZE, 0xa: the recorder read it,
# it did not assume it); a libaio job has none; a ring set up with no flag has "0"; the
# replay's report says the completions were deferred for the first only.
source "$(dirname "$0")/lib.sh"
ASYNC_FLAGS=$3 # tests/capture/async_flags.c: io_uring requests on a ring of liburing's defaults
for c in fio strace; do
	command -v $c >/dev/null || { echo "SKIP: no $c"; exit 77; }
done
head -c 4M /dev/urandom >"$dir/data"

# job NAME ARGS...: records fio's 4 KiB random reads of data under strace; prints the flags
# strace saw the last successful io_uring_setup given ("-" for none) and the trace's meta
job() {
	local name=$1
	shift
	"$IOREEL" record -q -o "$dir/$name.reel" -- strace -X raw -f -qq -e trace=io_uring_setup \
		-o "$dir/$name.st" fio --name=j --filename="$dir/data" --size=4m --rw=randread \
		--bs=4k --iodepth=8 "$@" >"$dir/$name.out" 2>&1 ||
		{ echo "FAIL: record $name: $(cat "$dir/$name.out")" >&2; return 1; }
	want=$(sed -n 's/.*io_uring_setup(.*flags=\(0x[0-9a-f]*\).* = [0-9][0-9]*$/\1/p' \
		"$dir/$name.st" | tail -1)
	got=$("$IOREEL" info "$dir/$name.reel" | awk '$1 == "capture.uring_setup" { print $2 }')
	echo "${want:--} ${got:--}"
}

read -r want got <<<"$(job uring --ioengine=io_uring)" || exit 1
[ "$want" != - ] && [ "$got" = "$want" ] ||
	{ echo "FAIL: io_uring: capture.uring_setup '$got', strace saw flags $want"; exit 1; }
"$IOREEL" info "$dir/uring.reel" | grep -q "capture.uring_setup $want (.*DEFER_TASKRUN)" ||
	{ echo "FAIL: the flags not named: $("$IOREEL" info "$dir/uring.reel" | grep uring_setup)"; exit 1; }
echo "io_uring: $want, as strace saw"

read -r want2 got2 <<<"$(job sqpoll --ioengine=io_uring --sqthread_poll=1)" || exit 1
[ "$want2" != - ] && [ "$want2" != "$want" ] && [ "$got2" = "$want2" ] ||
	{ echo "FAIL: SQPOLL: capture.uring_setup '$got2', strace saw flags $want2"; exit 1; }
echo "io_uring with SQPOLL: $want2, as strace saw"

read -r want3 got3 <<<"$(job aio --ioengine=libaio --direct=0)" || exit 1
[ "$got3" = - ] || { echo "FAIL: libaio: capture.uring_setup '$got3' for no ring"; exit 1; }

# a ring set up with no flag (liburing's io_uring_queue_init(.., 0)): "0", not absent
"$IOREEL" record -q -o "$dir/plain.reel" -- "$ASYNC_FLAGS" "$dir/plain" 1 >"$dir/plain.out" 2>&1 ||
	{ echo "FAIL: record async_flags: $(cat "$dir/plain.out")"; exit 1; }
got4=$("$IOREEL" info "$dir/plain.reel" | awk '$1 == "capture.uring_setup" { print $2 }')
[ "$got4" = 0 ] || { echo "FAIL: a ring with no flag: capture.uring_setup '$got4'"; exit 1; }

# the report beside a replay: the first's completions were deferred, the second's were not
for name in uring sqpoll; do
	"$IOREEL" replay "$dir/$name.reel" --target "$dir/tgt-$name" --timing afap \
		-o "$dir/r-$name.reel" >"$dir/rep-$name" 2>&1 ||
		{ echo "FAIL: replay $name: $(cat "$dir/rep-$name")"; exit 1; }
done
grep -q "rings deferred completions to its waits (IORING_SETUP_DEFER_TASKRUN)" "$dir/rep-uring" ||
	{ echo "FAIL: no note on the deferred completions: $(cat "$dir/rep-uring")"; exit 1; }
grep -q "IORING_SETUP_DEFER_TASKRUN" "$dir/rep-sqpoll" &&
	{ echo "FAIL: a note on a ring without DEFER_TASKRUN: $(cat "$dir/rep-sqpoll")"; exit 1; }
echo PASS
