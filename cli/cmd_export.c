/* SPDX-License-Identifier: MIT */
/* cmd_export.c - "ioreel export fio TRACE -o IOLOG": a trace in other tools' formats. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli_damage.h"
#include "cli_trace.h"
#include "commands.h"
#include "reel.h"
#include "reel_convert.h"

static void export_usage(FILE *out)
{
	fprintf(out,
		"usage: ioreel export fio TRACE -o IOLOG [--root DIR]\n\n"
		"Write a trace as fio iologs (version 3): IOLOG.TID for each original thread\n"
		"with at least one read or write, and the job file IOLOG.fio with one job per\n"
		"thread (read_iolog=IOLOG.TID, the recorded timing). A job is direct=1 when\n"
		"most of its thread's reads/writes were on O_DIRECT fds; a thread whose I/O\n"
		"was libaio or io_uring requests gets ioengine=libaio or io_uring and iodepth=\n"
		"the most of its requests in flight at once (submission to reap, from the\n"
		"trace); other jobs are ioengine=psync. Reads and\n"
		"writes keep their file, offset and the bytes they moved; fsync and fdatasync\n"
		"become sync and datasync. A read of bytes the application had dropped from\n"
		"the page cache (fadvise DONTNEED, as fio does after laying out its files)\n"
		"begins a later phase of jobs (IOLOG.TID.N, behind a stonewall) that drop those\n"
		"files as they open them (invalidate=1), so that it reads from the device as\n"
		"the original did. What fio's iolog cannot say (metadata ops, mmap,\n"
		"fallocate, sync_file_range, ...) is left out and counted on stderr, one line\n"
		"per kind; so are ops on /proc, /sys, /dev (but /dev/shm), pipes and sockets,\n"
		"which are not storage (ioreel replay leaves them out too). A trace with no read\n"
		"or write fio could replay writes nothing and exits 1; usage errors and a TRACE\n"
		"that cannot be opened as a trace exit 2.\n\n"
		"options:\n"
		"  -o, --output IOLOG  prefix of the files written (required)\n"
		"  -r, --root DIR      name the files DIR/<original path>; without it the logs\n"
		"                      name the original files, and fio writes to them\n"
		"  -h, --help          this text\n\n"
		"EXAMPLES\n"
		"  ioreel export fio app.reel -o /tmp/app --root /mnt/test\n"
		"  mkdir -p ...   # the directories listed at the top of /tmp/app.fio\n"
		"  fio /tmp/app.fio --output-format=json\n");
}

/* Nothing for fio to replay, so nothing was written: say why, and fail (exit status 1). */
static int export_nothing(const struct reel_fio_opts *o, const struct reel_fio_result *res)
{
	char why[512];

	if (!res->ops)
		fprintf(stderr, "ioreel: failed to export %s: %s: nothing written\n", o->trace_name,
			reel_damage_sum__no_ops(&res->damage, why, sizeof(why)));
	else
		fprintf(stderr,
			"ioreel: failed to export %s: none of its %llu ops is a read or write fio "
			"can replay: nothing written\n",
			o->trace_name, (unsigned long long)res->ops);
	if (res->damaged && res->ops)
		cli_damage__say(o->trace_name, &res->damage, res->ops);
	return 1;
}

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"root", required_argument, NULL, 'r'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct reel_fio_opts o = {0};
	struct reel_fio_result res;
	struct reel_reader *r;
	int c, err;

	while ((c = getopt_long(argc, argv, "o:r:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.prefix = optarg;
			break;
		case 'r':
			o.root = optarg;
			break;
		case 'h':
			export_usage(stdout);
			return 0;
		default:
			export_usage(stderr);
			return 2;
		}
	}
	if (optind < argc && strcmp(argv[optind], "fio")) {
		fprintf(stderr, "ioreel: failed to export: unknown format '%s' (known: fio)\n",
			argv[optind]);
		return 2;
	}
	if (optind != argc - 2 || !o.prefix) {
		export_usage(stderr);
		return 2;
	}
	o.trace_name = argv[optind + 1];
	err = cli_trace__open(o.trace_name, &r);
	if (err)
		return err;
	err = reel_fio__export(r, &o, &res);
	reel_reader__close(r);
	if (err) {
		fprintf(stderr, "ioreel: failed to write the fio iologs %s.*: %s\n", o.prefix,
			reel_strerror(err));
		return 1;
	}
	reel_fio__print_left_out(&res, stderr);
	if (!res.logs)
		return export_nothing(&o, &res);
	fprintf(stderr,
		"ioreel: wrote %llu iolog(s) with %llu reads/writes and %llu syncs (%llu job(s) "
		"direct=1, %llu async with their iodepth, %llu of them submitting in batches); "
		"run: fio %s.fio\n",
		(unsigned long long)res.logs, (unsigned long long)res.ios,
		(unsigned long long)res.syncs, (unsigned long long)res.direct_jobs,
		(unsigned long long)res.async_jobs, (unsigned long long)res.batched_jobs, o.prefix);
	if (!o.root && res.ios)
		fprintf(stderr, "ioreel: the iologs name the original files: fio will write to "
				"them (use --root DIR to replay elsewhere)\n");
	if (res.damaged) {
		cli_damage__say(o.trace_name, &res.damage, res.ops);
		return 1;
	}
	return 0;
}
