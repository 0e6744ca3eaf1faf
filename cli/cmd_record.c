/* SPDX-License-Identifier: MIT */
/* cmd_record.c - "ioreel record": argument parsing and the end-of-capture summary. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture.h"
#include "commands.h"
#include "reel.h"

#define EXIT_LOST 3 /* the trace is whole but the kernel dropped events */

static void usage(FILE *out)
{
	fprintf(out,
		"usage: ioreel record -o TRACE (-p PID[,PID...] | --cgroup PATH | -- CMD [ARGS...])\n"
		"                     [-d SECONDS] [--buffer-mb N] [--anonymize-paths]\n\n"
		"Record the file I/O of a command, of running processes (and everything they\n"
		"fork from now on, and their children already running), or of a cgroup, with\n"
		"eBPF. Needs root. Only metadata is kept: paths, offsets, sizes, times, results.\n\n"
		"  -o, --output TRACE     trace file to write\n"
		"  -p, --pid PID[,PID]    follow running processes and their descendants\n"
		"      --cgroup PATH      follow a cgroup v2 (its directory, or a path below\n"
		"                         the cgroup2 mount; a cgroup v1 hierarchy's directory\n"
		"                         is refused: the capture matches cgroup v2 ids)\n"
		"  -- CMD [ARGS...]       start CMD held until the probes are attached; its\n"
		"                         exit ends the capture. When CMD cannot be run (not\n"
		"                         found, not executable), nothing is recorded: TRACE\n"
		"                         is removed and the exit status is 1\n"
		"  -d, --duration SECONDS stop after this long (also: Ctrl-C, SIGTERM). A CMD\n"
		"                         still running then is left running, no longer\n"
		"                         recorded (not killed: stderr says so, with its pid);\n"
		"                         the trace's meta capture.stopped_by says why the\n"
		"                         capture ended: exit, duration or signal\n"
		"      --buffer-mb N      ring buffer size in MiB, a power of two (default 16)\n"
		"      --anonymize-paths  replace every path component with a keyed hash\n"
		"                         (paths under /proc, /sys, /dev stay in clear, but\n"
		"                         not the names below /dev/shm)\n"
		"  -q, --quiet            no summary (lost events are still said)\n"
		"  -h, --help             this text\n\n"
		"Exit status: 0 ok, 1 failure, 2 usage, %d when events were lost (the trace\n"
		"is still complete and says how many).\n\n"
		"EXAMPLES\n"
		"  ioreel record -o ls.reel -- ls -l /etc\n"
		"  ioreel record -o pg.reel -p $(head -1 $PGDATA/postmaster.pid) -d 60\n"
		"  ioreel record -o db.reel --cgroup system.slice/mariadb.service -d 30\n"
		"  ioreel record -o app.reel --anonymize-paths --buffer-mb 64 -- ./app\n",
		EXIT_LOST);
}

static void on_signal(int sig)
{
	capture__stop(sig);
}

/*
 * Why the capture ended, on stderr: always when a command it started is left running (-d's
 * time was up, or a signal stopped the recorder: the command is not killed, as a user's
 * command should not be, but it goes on unrecorded), else with the summary.
 */
static void say_stop(const struct capture_opts *o, const struct capture_stats *st, bool quiet)
{
	bool running = o->argv && st->child > 0 && !st->child_exited;
	char why[96];

	if (st->stopped_by == CAPTURE_STOP_DURATION)
		snprintf(why, sizeof(why), "stopped after %g s (-d)", o->duration_s);
	else if (st->stopped_by == CAPTURE_STOP_SIGNAL)
		snprintf(why, sizeof(why), "interrupted by %s after %.1f s",
			 st->stop_signal == SIGINT    ? "SIGINT"
			 : st->stop_signal == SIGTERM ? "SIGTERM"
						      : "a signal",
			 st->seconds);
	else if (st->stopped_by == CAPTURE_STOP_EXIT)
		snprintf(why, sizeof(why), "stopped: %s",
			 o->argv ? "the command exited" : "the followed processes ended");
	else
		return;
	if (running)
		fprintf(stderr, "ioreel: %s; %s (pid %d) is still running, no longer recorded\n",
			why, o->argv[0], (int)st->child);
	else if (!quiet || st->stopped_by == CAPTURE_STOP_SIGNAL)
		fprintf(stderr, "ioreel: %s\n", why);
}

static void on_attached(void *arg)
{
	const struct capture_opts *o = arg;

	fprintf(stderr, "ioreel: recording to %s%s\n", o->output,
		o->duration_s > 0 ? "" : " (Ctrl-C to stop)");
}

static int parse_pids(const char *arg, pid_t **pids, size_t *n)
{
	const char *s = arg;

	while (*s) {
		char *end;
		long v;
		pid_t *p;

		errno = 0;
		v = strtol(s, &end, 10);
		if (errno || end == s || v <= 0 || v > INT_MAX || (*end && *end != ','))
			return -EINVAL;
		p = realloc(*pids, (*n + 1) * sizeof(**pids));
		if (!p)
			return -ENOMEM;
		p[(*n)++] = v;
		*pids = p;
		s = *end ? end + 1 : end;
	}
	return *n ? 0 : -EINVAL;
}

/*
 * What the capture counted and did not record as the application did it, each said in the
 * summary when it happened: "  N <text>". A new count is a line here.
 */
/* an entry: the field's offset, refused at compile time unless the field is a uint64_t */
#define RECORD_NOTE(field, text)                                                                   \
	{_Generic(((struct capture_stats *)0)->field,                                              \
		  uint64_t: offsetof(struct capture_stats, field)),                                \
	 text}

static const struct record_note {
	size_t count; /* offset of a uint64_t in struct capture_stats */
	const char *text;
} record_notes[] = {
	RECORD_NOTE(lost_items,
		    "aio/iovec items beyond the per-syscall limit not recorded"),
	RECORD_NOTE(xattr_ops,
		    "extended attribute changes (setxattr, removexattr: ACLs, as cp -a and cp -p "
		    "set modes) counted, not recorded: a replay does not make them"),
	RECORD_NOTE(unpaired,
		    "async completions without their submission (made before the capture began, or "
		    "its event lost): recorded without its fd, offset and length"),
	RECORD_NOTE(after_exit,
		    "ops of processes that had ended (io_uring completions of requests left in "
		    "flight, finished as the kernel tore the ring down) not recorded"),
	RECORD_NOTE(paths_too_long,
		    "paths longer than PATH_MAX (4096 bytes) once made absolute recorded "
		    "without their path: a replay cannot replay their ops"),
	RECORD_NOTE(links_unresolved,
		    "paths climbing with \"..\" from a /proc link's directory "
		    "(/proc/self/cwd/../x) to where the kernel could no longer say: recorded "
		    "by that name, a replay does not replay their ops"),
	RECORD_NOTE(uring_fixed,
		    "io_uring requests on registered (fixed) files recorded without their file "
		    "(the capture does not follow io_uring_register): a replay cannot replay them"),
	RECORD_NOTE(pos_moved,
		    "reads/writes did not take place where their fd's position was when they were "
		    "called (another thread or process sharing the open file went first): "
		    "recorded where they took place"),
};

static void summary(const struct capture_opts *o, const struct capture_stats *st)
{
	const struct reel_totals *t = &st->totals;
	int col = 0;

	fprintf(stderr, "ioreel: recorded %llu ops from %llu events in %.1f s (%.0f events/s)\n",
		(unsigned long long)t->ops, (unsigned long long)st->received, st->seconds,
		st->seconds > 0 ? st->received / st->seconds : 0.0);
	for (unsigned i = 1; i < REEL_OP__COUNT; i++) {
		if (!t->ops_by_type[i])
			continue;
		col += fprintf(stderr, "%s%s %llu", col ? "  " : "  ", reel_op__name(i),
			       (unsigned long long)t->ops_by_type[i]);
		if (col > 80) {
			fputc('\n', stderr);
			col = 0;
		}
	}
	if (col)
		fputc('\n', stderr);
	/* async requests' bytes too, as "ioreel info" says: an InnoDB capture said it wrote 28 MB
	 * (its log's pwrites), when its page writes through libaio were 470 MB more */
	fprintf(stderr, "  read %llu bytes, wrote %llu bytes; %llu non-file ops (pipes, sockets, ...)"
			" counted, not recorded\n",
		(unsigned long long)(t->bytes_read + st->async_read),
		(unsigned long long)(t->bytes_written + st->async_written),
		(unsigned long long)st->nonfile_ops);
	if (st->shared_wmaps)
		fprintf(stderr,
			"  %llu shared writable file mappings (%llu bytes): what the application "
			"stored through them is no syscall, so neither recorded nor in the bytes "
			"written, and a replay does not write it\n",
			(unsigned long long)st->shared_wmaps, (unsigned long long)st->wmap_bytes);
	if (!st->uring)
		fprintf(stderr, "  io_uring tracepoints unavailable: io_uring requests not seen\n");
	for (size_t i = 0; i < sizeof(record_notes) / sizeof(record_notes[0]); i++) {
		uint64_t n = *(const uint64_t *)((const char *)st + record_notes[i].count);

		if (n)
			fprintf(stderr, "  %llu %s\n", (unsigned long long)n, record_notes[i].text);
	}
	if (st->uring_unrecorded)
		fprintf(stderr,
			"  %llu io_uring requests of file system ops the capture does not record "
			"(%s): not in the trace, so a replay does not make them\n",
			(unsigned long long)st->uring_unrecorded, st->uring_unrecorded_ops);
	fprintf(stderr, "  trace %s: %llu bytes, %.1f bytes/op\n", o->output,
		(unsigned long long)st->trace_bytes,
		t->ops ? (double)st->trace_bytes / t->ops : 0.0);
	if (st->child_exited && WIFEXITED(st->child_status) && WEXITSTATUS(st->child_status))
		fprintf(stderr, "  the command exited with status %d\n",
			WEXITSTATUS(st->child_status));
	else if (st->child_exited && WIFSIGNALED(st->child_status))
		fprintf(stderr, "  the command was killed by signal %d\n",
			WTERMSIG(st->child_status));
}

/* --cgroup names no cgroup v2 directory: say which path was tried, and where cgroup2 is */
static void cgroup_error(const struct capture_opts *o, const struct capture_stats *st, int err)
{
	fprintf(stderr, "ioreel: failed to record: --cgroup %s: ", o->cgroup);
	if (!st->cgroup2_root[0] && err == -ENOENT)
		fprintf(stderr, "no cgroup2 file system is mounted (--cgroup follows a cgroup v2)\n");
	else if (err == -EMEDIUMTYPE)
		fprintf(stderr, "%s%snot a cgroup v2 directory (cgroup2 is mounted at %s)\n",
			strcmp(st->cgroup_tried, o->cgroup) ? st->cgroup_tried : "",
			strcmp(st->cgroup_tried, o->cgroup) ? ": " : "",
			st->cgroup2_root[0] ? st->cgroup2_root : "nowhere");
	else
		fprintf(stderr, "%s: %s (a cgroup v2 directory, or a path below the cgroup2 "
				"mount, %s)\n", st->cgroup_tried, reel_strerror(err),
			st->cgroup2_root);
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "cgroup", required_argument, NULL, 'g' },
		{ "duration", required_argument, NULL, 'd' },
		{ "buffer-mb", required_argument, NULL, 'b' },
		{ "buffer-kb", required_argument, NULL, 'k' }, /* tests: tiny buffers */
		{ "anonymize-paths", no_argument, NULL, 'a' },
		{ "noop-probes", no_argument, NULL, 'n' },     /* benchmark floor */
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct capture_opts o = { 0 };
	struct capture_stats st;
	struct sigaction sa = { 0 };
	pid_t *pids = NULL;
	size_t npids = 0;
	bool quiet = false;
	char *end;
	int c, err;
	unsigned long long v;

	o.buffer_bytes = 16ull << 20;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:p:d:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.output = optarg;
			break;
		case 'p':
			if (parse_pids(optarg, &pids, &npids)) {
				fprintf(stderr, "ioreel: failed to parse pids: '%s'\n", optarg);
				free(pids);
				return 2;
			}
			break;
		case 'g':
			o.cgroup = optarg;
			break;
		case 'd':
			o.duration_s = strtod(optarg, &end);
			if (*end || o.duration_s <= 0) {
				fprintf(stderr, "ioreel: failed to parse duration: '%s'\n", optarg);
				free(pids);
				return 2;
			}
			break;
		case 'b':
		case 'k':
			v = strtoull(optarg, &end, 10);
			v <<= c == 'b' ? 20 : 10;
			if (*end || v < 4096 || (v & (v - 1)) || v > (1ull << 31)) {
				fprintf(stderr, "ioreel: failed to parse buffer size: '%s' (a power of"
						" two, at most 2048 MiB)\n", optarg);
				free(pids);
				return 2;
			}
			o.buffer_bytes = v;
			break;
		case 'a':
			o.anonymize = true;
			break;
		case 'n':
			o.noop_probes = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			free(pids);
			return 0;
		default:
			usage(stderr);
			free(pids);
			return 2;
		}
	}
	if (optind < argc)
		o.argv = argv + optind;
	o.pids = pids;
	o.npids = npids;
	if (!quiet) {
		o.on_attached = on_attached;
		o.arg = &o;
	}
	if (!o.output || (!!o.argv + !!npids + !!o.cgroup) != 1) {
		fprintf(stderr, "ioreel: failed to parse arguments: need -o and exactly one of "
				"-p, --cgroup, -- CMD (see 'ioreel record --help')\n");
		free(pids);
		return 2;
	}

	/* no SA_RESTART: the poll must return EINTR so that the loop sees the request */
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	err = capture__run(&o, &st);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	free(pids);
	if (err && st.failed == CAPTURE_FAILED_EXEC) {
		/* nothing of the command ran: its trace would hold only the failed execve */
		unlink(o.output);
		fprintf(stderr, "ioreel: cannot run %s: %s (nothing recorded, %s not written)\n",
			o.argv[0], strerror(-err), o.output);
		return 1;
	}
	if (err && st.failed == CAPTURE_FAILED_OUTPUT) {
		fprintf(stderr, "ioreel: failed to create %s: %s\n", o.output, reel_strerror(err));
		return 1;
	}
	if (err && st.failed == CAPTURE_FAILED_CGROUP) {
		cgroup_error(&o, &st, err);
		return 1;
	}
	if (err) {
		fprintf(stderr, "ioreel: failed to record: %s%s\n", reel_strerror(err),
			err == -EPERM		? " (BPF needs root)" :
			err == -ESRCH		? " (no such pid)" :
						  "");
		return 1;
	}
	say_stop(&o, &st, quiet);
	if (!quiet)
		summary(&o, &st);
	/* -q: said only when something was lost (and the exit status is EXIT_LOST) */
	if (!quiet || st.lost + st.noentry)
		fprintf(stderr, "ioreel: lost %llu of %llu events\n",
			(unsigned long long)(st.lost + st.noentry),
			(unsigned long long)st.events);
	return st.lost + st.noentry ? EXIT_LOST : 0;
}
