/* SPDX-License-Identifier: MIT */
/* cmd_info.c - "ioreel info": summarise a trace, and say where it is damaged. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli_damage.h"
#include "cli_trace.h"
#include "commands.h"
#include "reel.h"
#include "reel_convert.h"

static void info_usage(FILE *out)
{
	fprintf(out,
		"usage: ioreel info TRACE [--json]\n\n"
		"Summarise a trace in one streaming pass: duration, ops by type, bytes read and\n"
		"written, processes, threads, files and the size of the file set touched (sum\n"
		"over files of the furthest byte read or written), lost events, meta (host,\n"
		"kernel, command, replay.* for replay results) and any damage found, with its\n"
		"byte offset (what comes before and after a damaged region is still counted).\n"
		"A slice of a damaged trace is whole itself (exit status 0); a 'source damage'\n"
		"line says what the trace sliced lost (meta slice.source_damage).\n\n"
		"options:\n"
		"  --json      one JSON object instead of text\n"
		"  -h, --help  this text\n\n"
		"exit status: 0 when the trace is whole, 1 when damage was found (the summary is\n"
		"still printed), 2 on usage errors or when the trace cannot be opened.\n\n"
		"EXAMPLES\n"
		"  ioreel info app.reel\n"
		"  ioreel info --json replay.reel | python3 -m json.tool\n");
}

int cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct reel_info_result res;
	struct reel_reader *r;
	int json = 0, c, err;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'h':
			info_usage(stdout);
			return 0;
		default:
			info_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "ioreel: failed to parse arguments: %s (see 'ioreel info --help')\n",
			optind >= argc ? "no TRACE given" : "more than one TRACE");
		return 2;
	}
	err = cli_trace__open(argv[optind], &r);
	if (err)
		return err;
	err = reel_info__run(r, stdout, json, &res);
	reel_reader__close(r);
	if (err) {
		fprintf(stderr, "ioreel: failed to summarise %s: %s\n", argv[optind],
			reel_strerror(err));
		return 2;
	}
	if (res.damaged) {
		cli_damage__say(argv[optind], &res.damage, res.ops);
		return 1;
	}
	return 0;
}
