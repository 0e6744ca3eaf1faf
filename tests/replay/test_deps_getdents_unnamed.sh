#!/bin/bash
# getdents64 through an fd whose op carries no directory name (a trace without fd paths: an
# strace import, say) is ordered by the name the fd was opened by (or the fd it was dup'ed
# from was), as one that carries it: before another thread's later rmdir of the directory,
# after an earlier one (where it failed with ENOENT). Thread 104 makes /r/d and opens it;
# "before": it lists /r/d after 20000 other ops, and thread 105 removes /r/d after that, which
# it reaches at once (a few us later in the trace); "after": thread 105 removes it after 20000
# other ops, and 104 lists it after that, at once (ENOENT); "dup": as "before", through a dup of the fd. As fast as
# possible, without the order, the rmdir ran on the wrong side of the listing: it failed
# with ENOENT where the original listed 48 bytes, or succeeded where the original failed.
source "$(dirname "$0")/lib.sh"

for c in before after dup; do
	list="getdents64 fd=3 len=32768 ret=48 kind=dir"
	slow=104
	case $c in
	after) list="getdents64 fd=3 len=32768 ret=-ENOENT kind=dir" slow=105 ;;
	dup) list="getdents64 fd=5 len=32768 ret=48 kind=dir" ;;
	esac
	{
		echo "100 105 0 0 stat path=/r ret=0"
		echo "100 104 1 1 mkdir path=/r/d mode=0755 ret=0"
		echo "100 104 2 2 openat path=/r/d flags=O_RDONLY|O_DIRECTORY ret=3 kind=dir"
		[ $c = dup ] && echo "100 104 3 3 dup fd=3 ret=5 kind=dir"
		# all at one time: the think time keeps no gap between them either
		yes "100 $slow 3 3 stat path=/x ret=-ENOENT" | head -20000
		if [ $c = after ]; then
			echo "100 105 10 11 rmdir path=/r/d ret=0"
			echo "100 104 20 21 $list"
		else
			echo "100 104 10 11 $list"
			echo "100 105 20 21 rmdir path=/r/d ret=0"
		fi
		[ $c = dup ] && echo "100 104 30 30 close fd=5 ret=0 kind=dir"
		echo "100 104 30 30 close fd=3 ret=0 kind=dir"
	} | mk t
	for mode in afap think; do
		replay_as_traced $mode "$c: the listing ran on the wrong side of the rmdir"
	done
done
echo PASS
