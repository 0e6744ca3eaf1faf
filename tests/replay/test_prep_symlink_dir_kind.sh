#!/bin/bash
# Below a symlink that was there before the capture (readlink read its content), a name only
# stat'd, with traced paths below it, is prepared as a directory where the content leads,
# as it is when no symlink is above it: go build stats $GOROOT/src/net/rpc (GOROOT/src is
# /usr/lib/go-1.19/src -> ../../share/go-1.19/src on Debian) and cgo's preprocessor looks
# for netdb.h there (ENOENT); rpc was prepared a file, and the 14 opens failed with ENOTDIR.
# Likewise a name below the link with a file made in it.
source "$(dirname "$0")/lib.sh"

mk t <<'SPEC'
1 1 0 1 readlink path=/g/lib/src path2=../share/src len=4096 ret=12
1 1 2 3 newfstatat fd=-100 path=/g/lib/src/net/rpc ret=0
1 1 4 5 openat path=/g/lib/src/net/rpc/netdb.h flags=O_RDONLY ret=-ENOENT
1 1 6 7 stat path=/g/lib/src/made ret=0
1 1 8 9 openat path=/g/lib/src/made/new flags=O_WRONLY|O_CREAT|O_EXCL mode=0644 ret=3
1 1 10 11 close fd=3 ret=0
1 1 12 13 stat path=/g/lib/src/plain ret=0
SPEC
replay_as_traced original "an open below a name stat'd through a symlink failed otherwise"
[ -L "$T/tgt/g/lib/src" ] || fail "g/lib/src not prepared as a symlink"
[ -d "$T/tgt/g/share/src/net/rpc" ] || fail "net/rpc not prepared as a directory"
[ -d "$T/tgt/g/share/src/made" ] || fail "made not prepared as a directory"
[ -f "$T/tgt/g/share/src/plain" ] || fail "plain, with nothing below it, not prepared a file"
echo PASS
