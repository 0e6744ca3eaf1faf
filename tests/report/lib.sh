# Sourced by the report test scripts that take IOREEL and a trace maker:
#   source "$(dirname "$0")/lib.sh"; report_setup NAME "$@"
# sets IOREEL ($1) and MKTRACE ($2: replay_mktrace, or report_mktrace for some) and a scratch
# dir $T, removed at exit unless KEEP is set.
set -u

report_setup() {
	IOREEL=$2
	MKTRACE=$3
	T=$(mktemp -d "/var/tmp/ioreel-report-$1.XXXXXX") || exit 1
	trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
}

# mk_pair: the original $T/o.reel and the replay result $T/r.reel, from the replay_mktrace
# specs $T/o.txt and $T/r.txt
mk_pair() {
	"$MKTRACE" "$T/o.reel" <"$T/o.txt" && "$MKTRACE" "$T/r.reel" <"$T/r.txt" || exit 1
}
