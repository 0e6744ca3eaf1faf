/* SPDX-License-Identifier: MIT */
/* cmd_replay.c - "ioreel replay": reissue a trace on one or more targets, timing kept. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_trace.h"
#include "commands.h"
#include "reel.h"
#include "replay.h"

#define MAX_TARGETS 64

/*
 * After a mistake on the command line: the usage line and where the rest is. The whole help
 * (80 lines) scrolled the one line that said what was wrong off the screen.
 */
static void usage_short(void)
{
	fprintf(stderr, "usage: ioreel replay TRACE --target DIR [--target DIR...] [OPTIONS]\n"
			"'ioreel replay --help' lists the options.\n");
}

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: ioreel replay TRACE --target DIR [--target DIR...] [OPTIONS]\n"
	    "\n"
	    "Reissue the file I/O of TRACE under each target directory, one worker thread per\n"
	    "traced thread, with the original timing, and write what happened as a result\n"
	    "trace (same format; every op with its scheduled time, real start and end, ret).\n"
	    "\n"
	    "  -t, --target DIR      replay under DIR (repeat: one replay per target, in turn)\n"
	    "  -m, --map FROM=TO     replay the paths FROM names under directory TO instead\n"
	    "  -T, --timing MODE     original (default): each op at its recorded time, open loop\n"
	    "                        think: each thread keeps its think time after its previous\n"
	    "                               op completed (closed loop)\n"
	    "                        afap: as fast as possible, order kept (an op is due\n"
	    "                        when its thread is free; with the kernel's clocksource\n"
	    "                        tsc, ops are timed with the TSC, anchored on\n"
	    "                        CLOCK_MONOTONIC every ms: a third of clock_gettime's cost)\n"
	    "  -s, --speed X         scale the schedule: 2 replays twice as fast (default 1)\n"
	    "  -e, --engine E        sync (default: the same syscalls, from the worker threads),\n"
	    "                        io_uring or libaio: reads/writes are submitted through the\n"
	    "                        engine without waiting (up to 64 in flight per thread);\n"
	    "                        the trace's own libaio/io_uring requests replay through\n"
	    "                        libaio/io_uring with their queue depth whatever E is\n"
	    "      --cold            drop the file set from the page cache before replaying\n"
	    "                        (posix_fadvise DONTNEED per file; drop_caches when root);\n"
	    "                        without it the files just prepared are in the cache, and\n"
	    "                        a disk's reads of them come from memory: the summary\n"
	    "                        says how much of the set was cached at the start\n"
	    "      --direct POLICY   where the target rejects O_DIRECT (ramfs, tmpfs before\n"
	    "                        Linux 6.6): drop the flag and say so (default), or\n"
	    "                        keep it and fail those opens\n"
	    "      --spin[=US]       wait for each op by spinning instead of sleeping (lowest\n"
	    "                        lateness; one busy core per thread, so no more threads\n"
	    "                        than cores); =US: sleep until US µs before, spin the rest\n"
	    "      --fresh           wipe the target and prepare the file set again\n"
	    "  -o, --output RESULT   result trace (default: TRACE's name + .replay.reel in the\n"
	    "                        current directory); with several targets RESULT.0,\n"
	    "                        RESULT.1, ... in --target order\n"
	    "  -q, --quiet           no summary, no comparison report\n"
	    "  -h, --help            this text\n"
	    "\n"
	    "Paths: a traced path P is replayed at TARGET/P. --map rules are tried in order,\n"
	    "the first that matches wins:\n"
	    "  prefix  /var/lib/pg/pg_wal=/dev/shm/wal   P equal to or below FROM goes to\n"
	    "          TO/<the rest of P>: /var/lib/pg/pg_wal/0001 -> /dev/shm/wal/0001\n"
	    "  glob    '*/pg_wal=/dev/shm/wal'  FROM with * ? [ is a pattern ('*' crosses '/',\n"
	    "          a trailing '/*' is ignored); the shortest leading part of P it matches is\n"
	    "          replaced by TO. A pattern matching whole file paths ('*.tmp') puts the\n"
	    "          files at TO/<file name>.\n"
	    "Every path is resolved beneath its target (openat2 RESOLVE_BENEATH): '..' and\n"
	    "symlinks leading out are refused. Targets must be directories (created with\n"
	    "their missing parents, mode 0755, as mkdir -p does), not '/', not containing\n"
	    "traced paths, and not nested in one another;\n"
	    "TRACE and RESULT must lie outside them. A target another replay is using is\n"
	    "refused (replays sharing a target change each other's files).\n"
	    "Paths under /proc, /sys and /dev (except /dev/shm), and I/O on pipes, sockets and\n"
	    "devices, are the application's think time and are not replayed.\n"
	    "\n"
	    "File set: before replaying, every file and directory the application found (read,\n"
	    "opened without O_CREAT, stat'ed...) is created under the target, each file at least\n"
	    "as large as the furthest byte read from it and filled with non-zero data (no holes);\n"
	    "one it wrote, cut, removed or replaced as large as it was, when the trace says;\n"
	    "files the application created are left for the replay to create. A symlink there\n"
	    "before is prepared as one where the trace shows it (a readlink, an lstat, or an\n"
	    "unlink or a rename over a name with paths below it: one to a directory, which\n"
	    "leads where a readlink read, else to a stand-in beside it). The set is\n"
	    "recorded in TARGET/.ioreel-prepared and reused by the next replay of the same trace\n"
	    "(\"reusing prepared file set\") unless a replay changed it (created, deleted,\n"
	    "renamed, truncated files) or --fresh is given. A non-empty target without that\n"
	    "manifest is never wiped without --fresh.\n"
	    "\n"
	    "Ops whose outcome differs from the original (an error, a short read) and ops that\n"
	    "could not be replayed (unknown fd, escaping path) are counted and named in\n"
	    "the summary, never hidden. Ctrl-C stops early and still closes RESULT whole.\n"
	    "\n"
	    "mmap maps the same region of the replayed file with the same protection and\n"
	    "flags, at an address of the replay's choosing (MAP_FIXED dropped); its result is\n"
	    "that address, never compared with the original's. msync of any address inside an\n"
	    "original mapping goes to the same offset of the replay's mapping (per process).\n"
	    "Limit: loads and stores through mappings are not in the trace, so no data is\n"
	    "written through the replay's mappings: an msync writes back only what the\n"
	    "replay's own writes dirtied. A munmap (traces of format 1.2) unmaps the replay's\n"
	    "mappings it covers whole; others live until the replay ends: a new one replaces\n"
	    "those it overlaps, and beyond 64 GiB the oldest are unmapped, with a notice. An\n"
	    "unlink or a rename over the last name of a file still mapped frees none of its\n"
	    "blocks then: the summary counts those.\n"
	    "\n"
	    "File locks (traces of format 1.3) are taken and released as recorded: a request\n"
	    "that waited for another process's lock waits for it in the replay, as long as the\n"
	    "holder keeps it there. fcntl record locks go as F_OFD_* locks on one fd per trace\n"
	    "process and file (the replay is one process), flock on the op's fd. A blocked\n"
	    "request is given up (EINTR, counted) after 1 s plus 4x the original's time.\n"
	    "\n"
	    "Processes (traces of format 1.4): a forked child starts with its parent's open\n"
	    "files (shared offsets and flock locks), an execve closes the close-on-exec fds,\n"
	    "and an exit closes what the process had open at the exit's time. Older traces\n"
	    "close a process's files after its last op.\n"
	    "\n"
	    "EXAMPLES\n"
	    "  ioreel replay app.reel --target /var/tmp/t\n"
	    "  ioreel replay app.reel --target /var/tmp/t --target /dev/shm/t -o run.reel\n"
	    "      # run.reel.0 (ext4) and run.reel.1 (tmpfs), then a comparison\n"
	    "  ioreel replay pg.reel --target /var/tmp/t --map /var/lib/pg/pg_wal=/dev/shm/wal\n"
	    "      # WAL on tmpfs, the rest on disk\n"
	    "  ioreel replay app.reel --target /var/tmp/t --timing afap --engine io_uring\n"
	    "  ioreel replay app.reel --target /var/tmp/t --cold --spin=50\n"
	    "\n"
	    "exit status: 0 when every target was replayed; 1 when one failed, when the trace\n"
	    "holds no ops, or when it is damaged (the ops before and after the damage are\n"
	    "still replayed and the result written; one line on stderr says where); 2 on usage\n"
	    "errors and when TRACE cannot be opened as a trace (nothing is made then); 130\n"
	    "when interrupted (the result so far kept).\n");
}

/* lock-free atomics are async-signal-safe, and the workers read it */
static _Atomic int interrupted;

static void on_signal(int sig)
{
	atomic_store(&interrupted, sig);
}

struct cli_ctx {
	int tty;
	int progress_shown;
};

static void on_notice(void *ctx, const char *line)
{
	struct cli_ctx *c = ctx;

	if (c->progress_shown) {
		fputs("\r\033[K", stderr);
		c->progress_shown = 0;
	}
	fprintf(stderr, "ioreel: replay: %s\n", line);
}

static void on_progress(void *ctx, const struct replay_progress *p)
{
	struct cli_ctx *c = ctx;

	if (p->ops_total)
		fprintf(stderr, "\r\033[K%llu/%llu ops (%.0f%%)", (unsigned long long)p->ops_done,
			(unsigned long long)p->ops_total,
			100.0 * (double)p->ops_done / (double)p->ops_total);
	else
		fprintf(stderr, "\r\033[K%llu ops", (unsigned long long)p->ops_done);
	fprintf(stderr, "  late %.0fus  elapsed %.1fs", (double)p->lateness_ns / 1e3,
		(double)p->elapsed_ns / 1e9);
	if (p->left_ns)
		fprintf(stderr, "  left %.1fs", (double)p->left_ns / 1e9);
	if (p->differing)
		fprintf(stderr, "  differing %llu", (unsigned long long)p->differing);
	if (p->not_replayed)
		fprintf(stderr, "  not replayed %llu", (unsigned long long)p->not_replayed);
	fflush(stderr);
	c->progress_shown = 1;
}

static char *default_result(const char *trace)
{
	const char *base = strrchr(trace, '/');
	size_t n;
	char *s;

	base = base ? base + 1 : trace;
	n = strlen(base);
	if (n > 5 && !strcmp(base + n - 5, ".reel"))
		n -= 5;
	s = malloc(n + 16);
	if (s)
		snprintf(s, n + 16, "%.*s.replay.reel", (int)n, base);
	return s;
}

/*
 * A slice of a damaged trace is whole itself, and its replay meets no damage: that the
 * window lacks what the damage lost is only in its meta (slice.source_damage).
 */
static void slice_damage_print(const char *trace, FILE *out)
{
	struct reel_reader *r;
	const char *v;

	if (reel_reader__open(trace, &r))
		return;
	v = reel_reader__meta(r, REEL_META_SLICE_SOURCE_DAMAGE);
	if (v)
		fprintf(out, "  SLICE OF A DAMAGED TRACE: the window may lack ops, not replayed: %s\n",
			v);
	reel_reader__close(r);
}

int cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"target", required_argument, NULL, 't'},
	    {"map", required_argument, NULL, 'm'},
	    {"timing", required_argument, NULL, 'T'},
	    {"speed", required_argument, NULL, 's'},
	    {"engine", required_argument, NULL, 'e'},
	    {"cold", no_argument, NULL, 'C'},
	    {"direct", required_argument, NULL, 'D'},
	    {"spin", optional_argument, NULL, 'S'},
	    {"fresh", no_argument, NULL, 'F'},
	    {"output", required_argument, NULL, 'o'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	const char *targets[MAX_TARGETS];
	struct replay_map_rule maps[MAX_TARGETS];
	char *results[MAX_TARGETS] = {0};
	struct replay_opts o = {.speed = 1.0, .spin_us = -1};
	struct cli_ctx cc = {.tty = isatty(2)};
	struct sigaction sa = {.sa_handler = on_signal};
	struct replay_summary *sum = NULL;
	size_t nt = 0, nm = 0;
	int damaged = 0;
	char *result = NULL, *end;
	int c, quiet = 0, rc = 1, err;

	optind = 1;
	while ((c = getopt_long(argc, argv, "t:m:T:s:e:o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (nt == MAX_TARGETS) {
				fprintf(stderr,
					"ioreel: failed to parse arguments: too many targets\n");
				return 2;
			}
			targets[nt++] = optarg;
			break;
		case 'm': {
			char *eq = strchr(optarg, '=');

			if (!eq || eq == optarg || !eq[1] || nm == MAX_TARGETS) {
				fprintf(stderr,
					"ioreel: failed to parse --map %s: expected FROM=TO\n",
					optarg);
				return 2;
			}
			*eq = '\0';
			maps[nm].from = optarg;
			maps[nm++].to = eq + 1;
			break;
		}
		case 'T':
			if (replay_timing__parse(optarg, &o.timing)) {
				fprintf(stderr,
					"ioreel: failed to parse --timing %s: expected original, "
					"think or afap\n",
					optarg);
				return 2;
			}
			break;
		case 's':
			o.speed = strtod(optarg, &end);
			if (*end || !(o.speed > 0)) {
				fprintf(stderr,
					"ioreel: failed to parse --speed %s: expected a number "
					"> 0\n",
					optarg);
				return 2;
			}
			break;
		case 'e':
			if (replay_engine__parse(optarg, &o.engine)) {
				fprintf(stderr,
					"ioreel: failed to parse --engine %s: expected sync, "
					"io_uring or libaio\n",
					optarg);
				return 2;
			}
			break;
		case 'C':
			o.cold = 1;
			break;
		case 'D':
			if (strcmp(optarg, "keep") && strcmp(optarg, "drop")) {
				fprintf(stderr,
					"ioreel: failed to parse --direct %s: expected keep or "
					"drop\n",
					optarg);
				return 2;
			}
			o.direct_keep = !strcmp(optarg, "keep");
			break;
		case 'S':
			o.spin_us = REPLAY_SPIN_ALWAYS;
			if (optarg) {
				long v = strtol(optarg, &end, 10);

				if (*end || v < 0 || v > 1000000) {
					fprintf(stderr,
						"ioreel: failed to parse --spin=%s: expected "
						"microseconds\n",
						optarg);
					return 2;
				}
				o.spin_us = (int)v;
			}
			break;
		case 'F':
			o.fresh = 1;
			break;
		case 'o':
			result = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage_short();
			return 2;
		}
	}
	if (optind != argc - 1 || !nt) {
		fprintf(stderr, "ioreel: failed to parse arguments: %s\n",
			optind >= argc ? "no TRACE given"
			: !nt	       ? "no --target given"
				       : "more than one TRACE");
		usage_short();
		return 2;
	}
	/* before any target is made: a file that is no trace leaves nothing behind */
	rc = cli_trace__check(argv[optind]);
	if (rc)
		return rc;
	rc = 1;
	if (replay_targets__check(targets, nt)) {
		fprintf(stderr, "ioreel: %s\n", replay__last_error());
		return 2;
	}
	o.trace = argv[optind];
	o.maps = maps;
	o.n_maps = nm;
	o.notice = on_notice;
	o.progress = cc.tty ? on_progress : NULL;
	o.cb_ctx = &cc;
	o.interrupt = &interrupted;
	/* Ctrl-C stops the replay and still closes the result whole */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sum = calloc(1, sizeof(*sum));
	if (!sum)
		goto out;
	for (size_t i = 0; i < nt; i++) {
		char *base = result ? strdup(result) : default_result(o.trace);

		if (!base)
			goto out;
		if (nt > 1) {
			results[i] = malloc(strlen(base) + 24);
			if (results[i])
				sprintf(results[i], "%s.%zu", base, i);
			free(base);
		} else {
			results[i] = base;
		}
		if (!results[i])
			goto out;
	}
	for (size_t i = 0; i < nt; i++) {
		o.target = targets[i];
		o.result = results[i];
		err = replay__run(&o, sum);
		if (cc.progress_shown) {
			fputs("\r\033[K", stderr);
			cc.progress_shown = 0;
		}
		if (err) {
			const char *why = replay__last_error();

			fprintf(stderr, "ioreel: failed to replay %s on %s: %s\n", o.trace,
				targets[i], why && *why ? why : strerror(err < 0 ? -err : err));
			goto out;
		}
		damaged |= sum->damaged != 0;
		if (!quiet) {
			replay_summary__print(sum, stdout);
			slice_damage_print(o.trace, stdout);
		}
		fflush(stdout);
		if (atomic_load(&interrupted)) {
			fprintf(stderr,
				"ioreel: failed to replay %s: interrupted (result %s kept)\n",
				o.trace, results[i]);
			rc = 130;
			goto out;
		}
	}
	err = quiet ? 0 : replay__compare(o.trace, (const char *const *)results, nt, stdout);
	if (err) {
		fprintf(stderr, "ioreel: failed to compare the replays: %s\n", strerror(-err));
		goto out;
	}
	/* what could be read was replayed and its result written (the damage was named as
	 * it was met), but it was not the whole trace: as info and dump, a script can tell */
	rc = damaged ? 1 : 0;
out:
	for (size_t i = 0; i < nt; i++)
		free(results[i]);
	free(sum);
	return rc;
}
