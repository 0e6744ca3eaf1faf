#!/bin/bash
# --anonymize-paths: no name of the traced files reaches the trace; each component becomes a
# stable token (the same file twice = the same path), the directory structure is kept
# (as many components, shared prefixes stay shared), the key is per capture (two captures
# give different tokens), and the trace says anonymized=1. Paths of kernel objects (/proc,
# /sys, /dev but /dev/shm's files) stay in clear.
source "$(dirname "$0")/lib.sh"
mkdir "$dir/alpha"
echo secret > "$dir/alpha/beta.txt"
echo secret > "$dir/alpha/gamma.txt"
cmd="cat $dir/alpha/beta.txt $dir/alpha/beta.txt $dir/alpha/gamma.txt"
for n in 1 2; do
	"$IOREEL" record -q --anonymize-paths -o "$dir/t$n.reel" -- sh -c "$cmd > /dev/null" ||
		{ echo "FAIL: record exited $?"; exit 1; }
	"$PRINT" "$dir/t$n.reel" > "$dir/ops$n.txt" || { echo "FAIL: trace unreadable"; exit 1; }
done
fail=0
if grep -Eq "alpha|beta|gamma|ioreel-capture" "$dir/ops1.txt"; then
	echo "FAIL: a real name is in the anonymized trace"
	grep -E "alpha|beta|gamma|ioreel-capture" "$dir/ops1.txt" | head -3
	fail=1
fi
grep -qx "meta anonymized=1" "$dir/ops1.txt" || { echo "FAIL: no anonymized=1"; fail=1; }
# cat reads its three files: 3 successful openat of 5-component paths, in order
mapfile -t p < <(grep -E '^op=openat .* ret=[0-9]+ ' "$dir/ops1.txt" | sed 's/.* path=\([^ ]*\) .*/\1/' |
	grep -E '^(/[0-9a-f]{12}){5}$' | tail -3)
if [ ${#p[@]} != 3 ]; then
	echo "FAIL: expected 3 opens of 5-component hashed paths, got ${#p[@]}"
	fail=1
elif [ "${p[0]}" != "${p[1]}" ] || [ "${p[0]}" = "${p[2]}" ] ||
	[ "${p[0]%/*}" != "${p[2]%/*}" ]; then
	echo "FAIL: tokens not stable or structure lost: ${p[*]}"
	fail=1
fi
q=$(grep -E '^op=openat .* ret=[0-9]+ ' "$dir/ops2.txt" | sed 's/.* path=\([^ ]*\) .*/\1/' |
	grep -E '^(/[0-9a-f]{12}){5}$' | tail -1)
if [ -z "$q" ] || [ "$q" = "${p[2]:-}" ]; then
	echo "FAIL: a second capture gave the same tokens (key not per capture): $q"
	fail=1
fi

# A symlink's content is hashed too (it names files as much as a path does), component by
# component with the capture's key: a relative content that named a file of the trace still
# names its anonymised path. What a readlink read is a link's content too: the same tokens.
# A copy's second path is hashed like any.
"$IOREEL" record -q --anonymize-paths -o "$dir/t3.reel" -- sh -c "cd $dir/alpha &&
	ln -s beta.txt delta && ln -s ../alpha/gamma.txt epsilon && cp beta.txt zeta &&
	readlink delta epsilon > /dev/null" ||
	{ echo "FAIL: record exited $?"; exit 1; }
"$PRINT" "$dir/t3.reel" > "$dir/ops3.txt" || { echo "FAIL: trace unreadable"; exit 1; }
if grep -Eq "alpha|beta|gamma|delta|epsilon|zeta|ioreel-capture" "$dir/ops3.txt"; then
	echo "FAIL: a real name is in the anonymized trace (links, copies)"
	grep -E "alpha|beta|gamma|delta|epsilon|zeta|ioreel-capture" "$dir/ops3.txt" | head -3
	fail=1
fi
h='[0-9a-f]{12}'
field() { sed -n "s/.* $1=\([^ ]*\) .*/\1/p"; }
src=$(grep -E "^op=copy_file_range .* ret=[1-9]" "$dir/ops3.txt" | head -1 | field path)
dst=$(grep -E "^op=copy_file_range .* ret=[1-9]" "$dir/ops3.txt" | head -1 | field path2)
mapfile -t links < <(grep -E "^op=symlink(at)? .* ret=0 " "$dir/ops3.txt")
c1=$(printf '%s\n' "${links[0]:-}" | field path2)
c2=$(printf '%s\n' "${links[1]:-}" | field path2)
l1=$(printf '%s\n' "${links[0]:-}" | field path)
mapfile -t reads < <(grep -E "^op=readlink(at)? .* ret=[1-9]" "$dir/ops3.txt")
r1=$(printf '%s\n' "${reads[0]:-}" | field path2)
r2=$(printf '%s\n' "${reads[1]:-}" | field path2)
if ! [[ $src =~ ^(/$h){5}$ && $dst =~ ^(/$h){5}$ ]] || [ "${src%/*}" != "${dst%/*}" ]; then
	echo "FAIL: copy_file_range paths not hashed alike: $src -> $dst"
	fail=1
elif [ "$c1" != "${src##*/}" ] || [ "${l1%/*}" != "${src%/*}" ]; then
	echo "FAIL: symlink content $c1 (link $l1) is not the token of beta.txt in $src"
	fail=1
elif ! [[ $c2 =~ ^\.\./$h/$h$ ]] || [ "${c2:3:12}" != "$(basename "${src%/*}")" ]; then
	echo "FAIL: symlink content $c2 is not ../<token of alpha>/<token> (alpha: ${src%/*})"
	fail=1
elif [ ${#reads[@]} != 2 ] || [ "$r1" != "$c1" ] || [ "$r2" != "$c2" ]; then
	echo "FAIL: readlink read ${r1:-none}, ${r2:-none} (${#reads[@]} readlinks), not the" \
		"symlinks' contents $c1, $c2"
	fail=1
fi

# Paths of kernel objects stay in clear (/dev, /proc, /sys): the replay must still know them
# for what they are, not files to create; below /dev/shm the names are the user's, hashed,
# "/dev/shm" kept so that the replay still sees tmpfs files there. (Opens of devices that
# succeed are not recorded, non-file I/O; a stat of /dev/null and a failed open are.)
shm=/dev/shm/ioreel-anon-$$
trap 'rm -rf "$dir" "$shm"' EXIT
"$IOREEL" record -q --anonymize-paths -o "$dir/t4.reel" -- sh -c "stat /dev/null > /dev/null &&
	{ cat /dev/ioreel-anon-none 2> /dev/null; cat /proc/self/stat > /dev/null; } &&
	echo x > $dir/alpha/omega && echo y > $shm && cat /sys/kernel/mm/transparent_hugepage/enabled \
	$dir/alpha/omega $shm > /dev/null 2>&1" ||
	{ echo "FAIL: record exited $?"; exit 1; }
"$PRINT" "$dir/t4.reel" > "$dir/ops4.txt" || { echo "FAIL: trace unreadable"; exit 1; }
paths() { grep -E "^op=$1 " "$dir/ops4.txt" | field path | grep -E "$2"; }
if grep -Eq "alpha|omega|ioreel-capture|ioreel-anon-[0-9]" "$dir/ops4.txt"; then
	echo "FAIL: a real name is in the anonymized trace (kernel paths)"
	grep -E "alpha|omega|ioreel-capture|ioreel-anon-[0-9]" "$dir/ops4.txt" | head -3
	fail=1
fi
if ! paths 'statx|newfstatat|stat|lstat|fstatat' '^/dev/null$' >/dev/null; then
	echo "FAIL: /dev/null (stat) not in clear:" $(paths '[a-z]*stat[a-z]*' '^/[0-9a-f]{12}/[0-9a-f]{12}$' | head -3)
	fail=1
fi
if ! paths 'openat|open' '^/dev/ioreel-anon-none$' >/dev/null; then
	echo "FAIL: a failed open in /dev not in clear"
	fail=1
fi
if ! paths 'openat|open' '^/proc/[0-9a-z]+/stat$' >/dev/null; then
	echo "FAIL: /proc/PID/stat not in clear:" $(paths 'openat|open' '^/(proc|[0-9a-f]{12})/' | head -3)
	fail=1
fi
if [ -e /sys/kernel/mm/transparent_hugepage/enabled ] &&
	! paths 'openat|open' '^/sys/kernel/mm/transparent_hugepage/enabled$' >/dev/null; then
	echo "FAIL: a /sys path not in clear"
	fail=1
fi
if [ "$(paths 'openat|open' "^/dev/shm/$h\$" | sort -u | wc -l)" != 1 ]; then
	echo "FAIL: a /dev/shm file is not /dev/shm/<token>:" $(paths 'openat|open' '^/dev/shm' | head -3)
	fail=1
fi
# the only file created (flags O_WRONLY|O_CREAT|O_TRUNC) outside /dev/shm: omega
if [ "$(grep -E '^op=openat .* flags=0x241 .* ret=[0-9]+ ' "$dir/ops4.txt" | field path |
	grep -Ev '^/dev/shm/' | grep -Ec "^(/$h){5}\$")" != 1 ]; then
	echo "FAIL: the file written in the scratch dir is not 5 hashed components"
	fail=1
fi
[ $fail = 0 ] && echo "PASS"
exit $fail
