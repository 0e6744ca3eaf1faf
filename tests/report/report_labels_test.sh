#!/bin/bash
# report: replays of one target with other engines or timings (the way to compare them) are
# told apart in the table and the verdict by their engine and timing, and by their number
# when those are the same too: all were labelled with the target alone ("replay on /var/tmp/t
# fell behind" said five times of a MariaDB trace's five replays, none saying which).
# usage: report_labels_test.sh IOREEL REPLAY_MKTRACE
source "$(dirname "$0")/lib.sh"
report_setup labels "$@"

mk() { # NAME ENGINE TIMING (no ENGINE: the original)
	{
		if [ -n "${2:-}" ]; then
			echo "meta replay.of $T/o.reel"
			echo "meta replay.targets /var/tmp/t"
			echo "meta replay.engine $2"
			echo "meta replay.timing $3"
		fi
		for i in $(seq 0 99); do
			echo "100 100 $((100 + i * 100)) $((150 + i * 100)) pread64 fd=3 path=/db/f" \
				"off=$((i * 4096)) len=4096 ret=4096${2:+ sched=$((100 + i * 100))}"
		done
	} | "$MKTRACE" "$T/$1.reel" || exit 1
}
mk o
mk a sync original
mk b libaio original
mk c sync afap
mk d sync afap
"$IOREEL" report "$T/o.reel" "$T/a.reel" "$T/b.reel" "$T/c.reel" "$T/d.reel" >"$T/out" ||
	exit 1
fail=0
for want in "#1 /var/tmp/t (sync, original): " "#2 /var/tmp/t (libaio, original): " \
	"#3 /var/tmp/t (sync, afap) #3: " "#4 /var/tmp/t (sync, afap) #4: "; do
	grep -qF -- "  $want" "$T/out" || { echo "FAIL: no run labelled: $want"; fail=1; }
done
"$IOREEL" report "$T/o.reel" "$T/a.reel" >"$T/one" || exit 1
grep -qF "  #1 /var/tmp/t: " "$T/one" || { echo "FAIL: a lone replay's label changed"; fail=1; }
[ $fail = 0 ] && echo PASS || cat "$T/out"
exit $fail
