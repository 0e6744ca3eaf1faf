/* SPDX-License-Identifier: MIT */
/* cmd_slice.c - "ioreel slice TRACE --from T --to T -o OUT": a time window of a trace. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_time.h"
#include "cli_trace.h"
#include "commands.h"
#include "reel.h"
#include "reel_convert.h"

static void slice_usage(FILE *out)
{
	fprintf(out,
		"usage: ioreel slice TRACE -o OUT [--from T] [--to T | --duration D]\n\n"
		"Write the ops of TRACE that started in a time window as a trace of their own,\n"
		"time 0 at the window's start, to replay, report or inspect just that stretch\n"
		"(the minute a customer's run was slow, one phase of a benchmark). The slice\n"
		"replays as if the recorder had attached at the window's start: the files the\n"
		"processes held open then are reopened when first used, with their O_DIRECT,\n"
		"O_DSYNC or O_SYNC, and prepared as long as they were then (head meta\n"
		"capture.fd_flags and capture.fd_sizes). An async request (libaio, io_uring)\n"
		"goes with its submission: in the slice whole when submitted in the window.\n"
		"Times are from the start of TRACE, in seconds, or with a unit: ns, us, ms, s,\n"
		"m (1.5, 1500ms, 2m): 'ioreel report TRACE --timeline' shows when it was\n"
		"slow, 'ioreel dump' each op's start_ns. OUT is written whole or not at all\n"
		"(an empty window writes nothing). A damaged TRACE is sliced as far as it can\n"
		"be read, exit status 1: the slice says in its meta (slice.source_damage,\n"
		"shown by info, replay and report) what the damage lost and how much of it\n"
		"may have been in the window. An empty window, or a TRACE without ops, exits 1;\n"
		"usage errors and a TRACE that cannot be opened as a trace exit 2.\n\n"
		"options:\n"
		"  -o, --output OUT      the slice (required; not TRACE itself)\n"
		"  -f, --from T          window start (default 0)\n"
		"  -t, --to T            window end, exclusive (default: the end of TRACE)\n"
		"  -d, --duration D      window length, instead of --to\n"
		"  -h, --help            this text\n\n"
		"EXAMPLES\n"
		"  ioreel slice pg.reel --from 120 --duration 30 -o pg-slow.reel\n"
		"  ioreel slice app.reel --from 1500ms --to 2s -o app-1.5s.reel\n"
		"  ioreel replay pg-slow.reel --target /dev/shm/t --target /var/tmp/t\n");
}

/* out names the same file as in (another name, a link): writing it would destroy the input */
static int same_file(const char *out, const char *in)
{
	struct stat a, b;

	return !strcmp(out, in) ||
	       (!stat(out, &a) && !stat(in, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino);
}

/*
 * TRACE must be a file that can be read twice (the slice takes two passes), and OUT, when
 * it is there, a regular file the slice may replace: never a device or a directory.
 * Returns 0, or the exit status after saying why.
 */
static int check_paths(const char *trace, const char *out)
{
	struct stat st;

	if (stat(trace, &st)) {
		fprintf(stderr, "ioreel: failed to open %s: %s\n", trace, strerror(errno));
		return CLI_EXIT_NO_TRACE;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr,
			"ioreel: failed to slice %s: not a regular file (a slice reads "
			"TRACE twice: save a pipe's trace to a file first)\n",
			trace);
		return 2;
	}
	if (!stat(out, &st) && !S_ISREG(st.st_mode)) {
		fprintf(stderr, "ioreel: failed to slice: %s is there and not a regular file\n",
			out);
		return 2;
	}
	return 0;
}

static int bad_time(const char *opt, const char *arg)
{
	fprintf(stderr, "ioreel: failed to slice: %s '%s' is not a time (1.5, 1500ms, 2m)\n", opt,
		arg);
	return 2;
}

int cmd_slice(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'}, {"from", required_argument, NULL, 'f'},
	    {"to", required_argument, NULL, 't'},     {"duration", required_argument, NULL, 'd'},
	    {"help", no_argument, NULL, 'h'},	      {0},
	};
	struct reel_slice_opts o = {.to_ns = UINT64_MAX};
	uint64_t dur = 0;
	int have_to = 0, have_dur = 0;
	struct reel_slice_result res;
	struct reel_slice *sl;
	struct reel_writer *w;
	const char *out = NULL;
	char source[PATH_MAX], tmp[PATH_MAX + 8];
	int c, fd, err, cerr = 0;
	mode_t mask;

	while ((c = getopt_long(argc, argv, "o:f:t:d:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'f':
			if (cli_time__parse(optarg, &o.from_ns))
				return bad_time("--from", optarg);
			break;
		case 't':
			if (cli_time__parse(optarg, &o.to_ns))
				return bad_time("--to", optarg);
			have_to = 1;
			break;
		case 'd':
			if (cli_time__parse(optarg, &dur))
				return bad_time("--duration", optarg);
			have_dur = 1;
			break;
		case 'h':
			slice_usage(stdout);
			return 0;
		default:
			slice_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || !out) {
		slice_usage(stderr);
		return 2;
	}
	o.source = argv[optind];
	if (have_to && have_dur) {
		fprintf(stderr, "ioreel: failed to slice: give --to or --duration, not both\n");
		return 2;
	}
	if (have_dur)
		o.to_ns = dur > UINT64_MAX - o.from_ns ? UINT64_MAX : o.from_ns + dur;
	if (o.to_ns <= o.from_ns) {
		fprintf(stderr, "ioreel: failed to slice: the window is empty (it must end after "
				"it starts)\n");
		return 2;
	}
	if (same_file(out, o.source)) {
		fprintf(stderr, "ioreel: failed to slice: OUT must not be TRACE itself\n");
		return 2;
	}
	err = check_paths(o.source, out);
	err = err ?: cli_trace__check(o.source);
	if (err)
		return err;
	if (!realpath(o.source, source))
		snprintf(source, sizeof(source), "%s", o.source);
	o.source = source;

	/* pass 1, before anything is created: an empty window leaves nothing behind */
	err = reel_slice__open(o.source, &o, &sl, &res);
	if (err) {
		fprintf(stderr, "ioreel: failed to slice %s: %s\n", o.source, reel_strerror(err));
		return 1;
	}
	if (!res.ops_in) {
		/* no window of a trace without ops holds any: say why it has none */
		char why[512];

		fprintf(stderr, "ioreel: failed to slice %s: %s: nothing to slice\n", o.source,
			reel_damage_sum__no_ops(&res.damage, why, sizeof(why)));
		reel_slice__close(sl);
		return 1;
	}
	if (!res.ops_window) {
		char what[320] = "", lost[256];

		if (res.damaged)
			snprintf(what, sizeof(what), "; it is damaged at byte %" PRIu64 ": %s",
				 res.damage.first_offset,
				 reel_damage_sum__describe(&res.damage, lost, sizeof(lost)));
		fprintf(stderr,
			"ioreel: failed to slice %s: no op started between %.6f s and %.6f s (its "
			"ops start from %.6f to %.6f s%s)\n",
			o.source, o.from_ns / 1e9, o.to_ns == UINT64_MAX ? INFINITY : o.to_ns / 1e9,
			res.first_start_ns / 1e9, res.last_start_ns / 1e9, what);
		reel_slice__close(sl);
		return 1;
	}
	/* written beside OUT, renamed over it once whole: a failure leaves OUT as it was */
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", out);
	fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "ioreel: failed to create %s: %s\n", tmp, strerror(errno));
		reel_slice__close(sl);
		return 1;
	}
	mask = umask(0); /* mkstemp makes it 0600: the mode any new file would get instead */
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	close(fd);
	err = reel_writer__open(tmp, NULL, &w);
	if (!err) {
		err = reel_slice__write(sl, w, &res);
		cerr = reel_writer__close(w);
		err = err ?: cerr;
	}
	reel_slice__close(sl);
	if (!err && rename(tmp, out))
		err = -errno;
	if (err) {
		fprintf(stderr, "ioreel: failed to slice %s into %s: %s\n", o.source, out,
			reel_strerror(err));
		unlink(tmp);
		return 1;
	}
	fprintf(stderr,
		"ioreel: wrote %s: %" PRIu64 " of %" PRIu64 " ops, %.6f s to %.6f s of %s; %" PRIu64
		" fd(s) open at the start carried\n",
		out, res.ops_out, res.ops_in, o.from_ns / 1e9, res.to_ns / 1e9, o.source,
		res.fds_carried);
	if (res.damaged) {
		char what[640], win[96] = "";

		if (!(res.damage.lost & REEL_LOST_OPS))
			;
		else if (res.window_ops_lost == REEL_OPS_UNKNOWN)
			snprintf(win, sizeof(win), ", how many in the window is unknown");
		else
			snprintf(win, sizeof(win), ", up to %" PRIu64 " of them in the window",
				 res.window_ops_lost);
		fprintf(stderr,
			"ioreel: %s%s; the slice holds every op that could be read, and its "
			"meta slice.source_damage says what it lacks\n",
			reel_damage_sum__headline(&res.damage, o.source, what, sizeof(what)), win);
		return 1;
	}
	return 0;
}
