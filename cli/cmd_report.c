/* SPDX-License-Identifier: MIT */
/* cmd_report.c - "ioreel report TRACE RESULT...": latency distributions side by side. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_time.h"
#include "cli_trace.h"
#include "commands.h"
#include "reel.h"
#include "report.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: ioreel report TRACE [RESULT...] [--json] [--html FILE] [--by op|file] "
	    "[--top N]\n"
	    "                     [--timeline[=INTERVAL]]\n"
	    "       ioreel report RESULT... (the original is the trace the first result names:\n"
	    "                   its meta replay.of; when it is not there, name it first)\n"
	    "\n"
	    "Compares the latency distributions of a captured TRACE with those of its replay\n"
	    "RESULTs (traces written by 'ioreel replay'). Per op type: count, p50, p90, p99,\n"
	    "p99.9, max, mean and total time (percentiles within 0.4%%); each replay's ratio to\n"
	    "the original (replay / original: below 1 is faster) and the Kolmogorov-Smirnov\n"
	    "distance D between the two distributions (0 same .. 1 disjoint); how late each\n"
	    "replay ran against its schedule; failed ops; the files with the most I/O time;\n"
	    "and a few lines of verdict. Ops on pipes and sockets are left out (think time).\n"
	    "\n"
	    "options:\n"
	    "  --json         write the report as JSON on stdout instead of text; the keys are\n"
	    "                 described at the top of replay/report_json.c (\"runs\", "
	    "\"ops_by_type\",\n"
	    "                 \"vs_original\", \"lateness\", \"files\", \"timeline\", \"verdict\"),\n"
	    "                 times in ns\n"
	    "  --html FILE    also write a self-contained HTML page (tables, CDF plots)\n"
	    "  --by op|file   rows per op type (default), or also per file and op type for the\n"
	    "                 top files\n"
	    "  --top N        files in the hot-files section and in --by file (default 5)\n"
	    "  --timeline[=INTERVAL]\n"
	    "                 also, per INTERVAL of each run's own clock (default: 8 to 20\n"
	    "                 over the original), the ops that started in it and the p50/p99\n"
	    "                 of the class with most of the original's I/O time (JSON: every\n"
	    "                 class): when a run was slow, and whether a replay with original\n"
	    "                 timing was slow then too. INTERVAL (after '=', not a space):\n"
	    "                 1.5 (s), 500ms, 2m\n"
	    "  -h, --help     this text\n"
	    "\n"
	    "EXAMPLES:\n"
	    "  ioreel report app.reel                          # the capture alone\n"
	    "  ioreel report app.reel app.shm.reel app.disk.reel\n"
	    "  ioreel report app.shm.reel app.disk.reel         # app.reel found from them\n"
	    "  ioreel report app.reel app.shm.reel --html report.html\n"
	    "  ioreel report app.reel app.shm.reel --json | jq '.verdict[].text'\n"
	    "  ioreel report app.reel app.shm.reel --by file --top 3\n"
	    "  ioreel report app.reel app.disk.reel --timeline=1s\n"
	    "\n"
	    "exit status: 0; 1 when an input holds no ops, or when one is damaged (the report\n"
	    "is still printed, as far as they could be read, and names the damage; one line\n"
	    "on stderr says where); 2 on usage errors, when an input cannot be opened as a\n"
	    "trace (missing, not an ioreel trace, another major version), and when the first\n"
	    "input is a replay result whose trace cannot be found (name the trace first).\n");
}

/* The capture a candidate path holds is the one the result replayed: it opens, and its
 * start_wall_ns is the result's replay.of_start_wall_ns when both are known. */
static int is_capture_of(const char *cand, const char *of_start)
{
	struct reel_reader *r;
	const char *v;
	int ok;

	if (access(cand, R_OK) || reel_reader__open(cand, &r))
		return 0;
	v = reel_reader__meta(r, REEL_META_START_WALL_NS);
	ok = !of_start || !v || !strcmp(v, of_start);
	reel_reader__close(r);
	return ok;
}

/*
 * The original trace a replay result names (meta replay.of): 1 with *of set when path is a
 * result and that trace was found; 0 when path is not a result (or cannot be read: the
 * report says why); -1 when it is a result whose trace cannot be found, with where it was
 * looked for in looked. replay.of is absolute since results name the trace by realpath; an
 * older result's relative one is tried from the current directory and then from the
 * result's own.
 */
static int replay_of(const char *path, char **of, char *looked, size_t len)
{
	struct reel_reader *r;
	char cand[PATH_MAX + 1];
	const char *v, *start;
	int ret = -1;

	*of = NULL;
	if (reel_reader__open(path, &r))
		return 0;
	v = reel_reader__meta(r, REEL_META_REPLAY_OF);
	start = reel_reader__meta(r, REEL_META_REPLAY_OF_START);
	if (!v || !*v) {
		reel_reader__close(r);
		return 0;
	}
	snprintf(looked, len, "%s", v);
	if (is_capture_of(v, start)) {
		*of = strdup(v);
		ret = *of ? 1 : -1;
	} else if (v[0] != '/') {
		const char *slash = strrchr(path, '/');
		int dlen = slash ? (int)(slash - path) : 1;

		snprintf(cand, sizeof(cand), "%.*s/%s", dlen, slash ? path : ".", v);
		snprintf(looked + strlen(looked), len - strlen(looked), " and %s", cand);
		if (is_capture_of(cand, start)) {
			*of = strdup(cand);
			ret = *of ? 1 : -1;
		}
	}
	reel_reader__close(r);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"json", no_argument, NULL, 'j'},	  {"html", required_argument, NULL, 'H'},
	    {"by", required_argument, NULL, 'b'}, {"top", required_argument, NULL, 't'},
	    {"timeline", optional_argument, NULL, 'T'},
	    {"help", no_argument, NULL, 'h'},	  {0},
	};
	struct report_opts opts = {.top = 5};
	const char *failed = NULL;
	int c;

	opts.failed = &failed;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hjH:b:t:", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opts.json = 1;
			break;
		case 'H':
			opts.html_path = optarg;
			break;
		case 'b':
			if (!strcmp(optarg, "op")) {
				opts.by = REPORT_BY_OP;
			} else if (!strcmp(optarg, "file")) {
				opts.by = REPORT_BY_FILE;
			} else {
				fprintf(stderr,
					"ioreel: failed to parse --by: '%s' is not op or file\n",
					optarg);
				return 2;
			}
			break;
		case 't': {
			char *end;
			long n = strtol(optarg, &end, 10);
			if (*end || n < 1 || n > 100000) {
				fprintf(stderr,
					"ioreel: failed to parse --top: '%s' is not 1..100000\n",
					optarg);
				return 2;
			}
			opts.top = (unsigned)n;
			break;
		}
		case 'T':
			opts.timeline_ns = REPORT_TIMELINE_AUTO;
			if (optarg && (cli_time__parse(optarg, &opts.timeline_ns) ||
				       opts.timeline_ns < 1000)) {
				fprintf(stderr,
					"ioreel: failed to parse --timeline: '%s' is not an interval "
					"from 1us to 9e9 s (1.5, 500ms, 2m)\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	/* every input is a trace, else nothing is compared (the exit status of every command) */
	for (int i = optind; i < argc; i++) {
		uint64_t ns;
		int rc;

		/* "--timeline 1s": getopt leaves an optional argument apart from its option */
		if (access(argv[i], F_OK) && !cli_time__parse(argv[i], &ns)) {
			fprintf(stderr, "ioreel: failed to parse arguments: '%s' is no file; an "
					"interval goes after --timeline's '=' (--timeline=%s)\n",
				argv[i], argv[i]);
			return 2;
		}
		rc = cli_trace__check(argv[i]);
		if (rc)
			return rc;
	}
	/* before the report is worked out: a typo in the page's path would cost it all */
	if (opts.html_path && cli_output__check(opts.html_path, "HTML page"))
		return 2;
	/* Given only replay results, the original is the trace they name (meta replay.of). */
	const char *trace = argv[optind];
	const char *const *results = (const char *const *)argv + optind + 1;
	size_t n = (size_t)(argc - optind - 1);
	char *of = NULL, looked[2 * PATH_MAX + 16] = "";
	int is_result = replay_of(trace, &of, looked, sizeof(looked));
	if (is_result < 0) {
		/* reporting on anyway would take the first replay for the original: verdicts
		 * comparing a replay with a replay, under the original's name */
		fprintf(stderr,
			"ioreel: failed to report: %s is a replay result, and the trace it replayed "
			"is not at %s (or is another capture): name the trace first: ioreel report "
			"TRACE RESULT...\n",
			trace, looked);
		return 2;
	}
	if (of) {
		trace = of;
		results--;
		n++;
	}
	char why[1024] = "";
	unsigned damaged = 0;
	opts.why = why;
	opts.why_size = sizeof(why);
	opts.damaged = &damaged;
	int err = report__compare(trace, results, n, &opts, stdout);
	free(of);
	if (err) {
		fprintf(stderr, "ioreel: failed to report on %s: %s\n", failed ? failed : "traces",
			why[0] ? why : reel_strerror(err));
		return 1;
	}
	/* reported on as far as they could be read, but a script must be able to tell */
	if (damaged) {
		if (damaged > 1)
			fprintf(stderr, "ioreel: %s (and %u more damaged input(s))\n", why,
				damaged - 1);
		else
			fprintf(stderr, "ioreel: %s\n", why);
		return 1;
	}
	return 0;
}
