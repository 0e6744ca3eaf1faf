/* SPDX-License-Identifier: MIT */
/* cmd_dump.c - "ioreel dump": a trace one op per line, as text, JSON lines or CSV. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli_damage.h"
#include "cli_trace.h"
#include "commands.h"
#include "reel.h"
#include "reel_convert.h"

static void dump_usage(FILE *out)
{
	fprintf(out,
		"usage: ioreel dump TRACE [--format text|jsonl|csv]\n\n"
		"Print every op of a trace, one per line.\n"
		"  text   aligned columns: start time (us), op, pid/tid, fd, offset, length,\n"
		"         return value or errno name, latency (us), path (a backslash, newline,\n"
		"         tab and other control bytes C-escaped: \\\\, \\n, \\t, \\xHH)\n"
		"  jsonl  one JSON object per op with the keys op, pid, tid, start_ns, end_ns,\n"
		"         path, fd, offset, len, ret, sched_ns, fd_kind, fd2, path2, flags, mode,\n"
		"         subop, aux, ctx, err, wait_ns (always present; null when there is no\n"
		"         path/errno). Paths are bytes: UTF-8 is written as it is, and a byte B\n"
		"         that is not part of well-formed UTF-8 as \\udcBB (surrogateescape:\n"
		"         Python's os.fsencode(json.loads(line)[\"path\"]) gives the bytes back)\n"
		"  csv    the same columns as jsonl, with a header row; paths as their bytes\n\n"
		"A damaged region of the trace gets one line on stderr with its byte offset and\n"
		"what it held; the dump goes on after it, and at the end one line says what the\n"
		"trace lost in all (as info says it), and it exits with status 1. Usage errors\n"
		"and a TRACE that cannot be opened as a trace exit 2.\n\n"
		"options:\n"
		"  -f, --format FMT  text (default), jsonl or csv\n"
		"  -h, --help        this text\n\n"
		"EXAMPLES\n"
		"  ioreel dump app.reel | less -S\n"
		"  ioreel dump --format jsonl app.reel | python3 -c 'import json,sys; ...'\n"
		"  ioreel dump --format csv app.reel > app.csv\n");
}

int cmd_dump(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"format", required_argument, NULL, 'f'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct reel_dump_result res;
	struct reel_reader *r;
	int fmt = REEL_DUMP_TEXT, c, err;

	while ((c = getopt_long(argc, argv, "f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			fmt = reel_dump__format_from_name(optarg);
			if (fmt < 0) {
				fprintf(stderr, "ioreel: failed to parse --format: unknown '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			dump_usage(stdout);
			return 0;
		default:
			dump_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		dump_usage(stderr);
		return 2;
	}
	err = cli_trace__open(argv[optind], &r);
	if (err)
		return err;
	err = reel_dump__run(r, fmt, stdout, stderr, &res);
	reel_reader__close(r);
	if (err) {
		fprintf(stderr, "ioreel: failed to write the dump: %s\n", reel_strerror(err));
		return 2;
	}
	if (!res.damaged)
		return 0;
	/* each region said what it held; this says what the trace lost, as info says it */
	if (!reel_dump__said_all(&res))
		cli_damage__say(argv[optind], &res.damage, res.ops);
	return 1;
}
