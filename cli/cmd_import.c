/* SPDX-License-Identifier: MIT */
/* cmd_import.c - "ioreel import strace LOG... -o TRACE": other tools' output as a trace. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "reel.h"
#include "reel_convert.h"

static void import_usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: ioreel import strace LOG... -o TRACE\n\n"
	    "Make a trace from the output of strace -f -ttt -T -y (or -yy; -f optional; with\n"
	    "-o, one file; LOG '-' reads stdin; -tt's times of day work as -ttt's, a log\n"
	    "without times does not). Several LOGs are the files of strace -ff\n"
	    "(PREFIX.PID, one per process): merged in time order. Calls split in\n"
	    "<unfinished ...> and <... resumed> become one op; threads keep their tid and get\n"
	    "their process from the clone flags; read/write get the file position tracked\n"
	    "from opens, lseek and transfers (O_APPEND writes go to the end); fds that are\n"
	    "not files (sockets, pipes, eventfds, terminals, /proc, /sys) are left out and\n"
	    "counted in meta nonfile_ops. Lines that cannot be parsed are skipped and counted\n"
	    "on stderr. A log that yields no op at all is an error (exit status 1, no\n"
	    "TRACE written), with one line saying why.\n"
	    "strace cannot show io_uring submissions: io_uring_enter calls are only counted.\n\n"
	    "options:\n"
	    "  -o, --output TRACE  the trace to write (required)\n"
	    "  -h, --help          this text\n\n"
	    "EXAMPLES\n"
	    "  strace -f -ttt -T -y -o app.strace ./app\n"
	    "  ioreel import strace app.strace -o app.reel\n"
	    "  ioreel info app.reel\n"
	    "  strace -ff -ttt -T -y -o app.strace ./app   # app.strace.PID per process\n"
	    "  ioreel import strace app.strace.* -o app.reel\n");
}

/* The importer reads its input twice: copy a pipe to an unnamed temporary file first. */
static FILE *import_open_seekable(const char *path)
{
	FILE *in = strcmp(path, "-") ? fopen(path, "r") : stdin;
	FILE *tmp;
	struct stat st;
	char buf[65536];
	size_t n;

	if (!in)
		return NULL;
	if (!fstat(fileno(in), &st) && S_ISREG(st.st_mode))
		return in;
	tmp = tmpfile();
	if (!tmp)
		goto fail;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, tmp) != n)
			goto fail;
	if (ferror(in))
		goto fail;
	if (in != stdin)
		fclose(in);
	rewind(tmp);
	return tmp;
fail:
	if (tmp)
		fclose(tmp);
	if (in != stdin)
		fclose(in);
	if (!errno)
		errno = EIO;
	return NULL;
}

/* the pid strace -ff put at the end of the file name (PREFIX.PID); 0 when there is none */
static uint32_t ff_pid(const char *path)
{
	const char *dot = strrchr(path, '.');
	char *end;
	unsigned long v;

	if (!dot || !dot[1])
		return 0;
	errno = 0;
	v = strtoul(dot + 1, &end, 10);
	return *end || errno || v == 0 || v > UINT32_MAX ? 0 : (uint32_t)v;
}

/* strace -ff logs merged into one -f log in an unnamed temporary file; NULL: said why */
static FILE *import_merge_ff(char **logs, size_t n)
{
	FILE **in = calloc(n, sizeof(*in)), *tmp = NULL;
	uint32_t *pids = calloc(n, sizeof(*pids));
	struct rlimit rl;
	size_t i, bad_file = 0;
	uint64_t bad_line = 0;
	int err;

	if (!in || !pids) {
		fprintf(stderr, "ioreel: failed to import: %s\n", strerror(ENOMEM));
		goto out;
	}
	/* one open file per process log: a build may have thousands */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	for (i = 0; i < n; i++) {
		pids[i] = ff_pid(logs[i]);
		if (!pids[i]) {
			fprintf(stderr,
				"ioreel: failed to import %s: with several logs, each must be a "
				"strace -ff file named PREFIX.PID\n",
				logs[i]);
			goto out;
		}
		in[i] = fopen(logs[i], "r");
		if (!in[i]) {
			fprintf(stderr, "ioreel: failed to read %s: %s\n", logs[i], strerror(errno));
			goto out;
		}
	}
	tmp = tmpfile();
	if (!tmp) {
		fprintf(stderr, "ioreel: failed to create a temporary file: %s\n", strerror(errno));
		goto out;
	}
	err = reel_strace__merge_ff(in, pids, n, tmp, &bad_file, &bad_line);
	if (err == -EINVAL) {
		fprintf(stderr,
			"ioreel: failed to import %s: line %llu has no time stamp (record with strace "
			"-ff -ttt -T -y)\n",
			logs[bad_file], (unsigned long long)bad_line);
	} else if (err) {
		fprintf(stderr, "ioreel: failed to merge the strace -ff logs: %s\n", strerror(-err));
	}
	if (err) {
		fclose(tmp);
		tmp = NULL;
	} else {
		rewind(tmp);
	}
out:
	for (i = 0; in && i < n; i++)
		if (in[i])
			fclose(in[i]);
	free(in);
	free(pids);
	return tmp;
}

/*
 * pids no clone line made are taken as processes of their own: a thread among them then
 * has fds of its own, its reads and writes no longer share its process's file positions.
 * Said once, since nothing in the trace will show it.
 */
static void import_warn_unparented(const struct reel_strace_stats *st, const char *log)
{
	if (!st->unparented)
		return;
	if (!st->clone_lines)
		fprintf(stderr,
			"ioreel: warning: %s has no clone, fork or vfork lines (strace -e trace= "
			"without %%process?): threads and processes cannot be told apart, and its "
			"%llu pid(s) after the first are taken as processes of their own\n",
			log, (unsigned long long)st->unparented);
	else
		fprintf(stderr,
			"ioreel: warning: %llu pid(s) of %s appear without the clone that made "
			"them (strace -p attached to them?): each is taken as a process of its "
			"own, though it may have been a thread\n",
			(unsigned long long)st->unparented, log);
}

int cmd_import(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	struct reel_strace_stats st;
	struct reel_writer *w;
	const char *out = NULL, *log;
	FILE *in;
	int c, err, cerr;

	/* GNU getopt permutes: options may come anywhere ("import strace LOG -o TRACE") */
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'h':
			import_usage(stdout);
			return 0;
		default:
			import_usage(stderr);
			return 2;
		}
	}
	if (optind < argc && strcmp(argv[optind], "strace")) {
		fprintf(stderr, "ioreel: failed to import: unknown format '%s' (known: strace)\n",
			argv[optind]);
		return 2;
	}
	if (optind > argc - 2 || !out) {
		import_usage(stderr);
		return 2;
	}
	log = argv[optind + 1];
	if (optind < argc - 2) {
		in = import_merge_ff(argv + optind + 1, (size_t)(argc - optind - 1));
		if (!in)
			return 1;
		log = "the strace -ff logs";
	} else {
		errno = 0;
		in = import_open_seekable(log);
		if (!in) {
			fprintf(stderr, "ioreel: failed to read %s: %s\n", log, strerror(errno));
			return 1;
		}
	}
	err = reel_writer__open(out, NULL, &w);
	if (err) {
		fprintf(stderr, "ioreel: failed to create %s: %s\n", out, reel_strerror(err));
		if (in != stdin)
			fclose(in);
		return 1;
	}
	err = reel_strace__import(in, w, &st);
	cerr = reel_writer__close(w);
	if (in != stdin)
		fclose(in);
	if (err || cerr) {
		fprintf(stderr, "ioreel: failed to import %s: %s\n", log,
			reel_strerror(err ? err : cerr));
		return 1;
	}
	if (!st.ops) {
		/* an empty trace and status 0 would hide that the log was of no use */
		unlink(out);
		if (st.untimed_lines)
			fprintf(stderr,
				"ioreel: failed to import %s: its lines have no time stamps: strace "
				"logs need -ttt or -tt timestamps (and -T, -f, -y as the README "
				"says)\n",
				log);
		else if (st.bad_lines)
			fprintf(stderr,
				"ioreel: failed to import %s: no op in it: %llu of its %llu lines "
				"could not be parsed (first: line %llu); record with strace -f -ttt "
				"-T -y\n",
				log, (unsigned long long)st.bad_lines, (unsigned long long)st.lines,
				(unsigned long long)st.first_bad_line);
		else
			fprintf(stderr,
				"ioreel: failed to import %s: no file I/O in its %llu lines (%llu "
				"non-file ops left out)\n",
				log, (unsigned long long)st.lines,
				(unsigned long long)st.nonfile_ops);
		return 1;
	}
	import_warn_unparented(&st, log);
	if (st.bad_lines)
		fprintf(stderr,
			"ioreel: %llu line(s) of %s could not be parsed and were skipped (first: "
			"line %llu)\n",
			(unsigned long long)st.bad_lines, log,
			(unsigned long long)st.first_bad_line);
	fprintf(stderr,
		"ioreel: imported %llu ops from %llu lines (%llu non-file ops left out%s%s)\n",
		(unsigned long long)st.ops, (unsigned long long)st.lines,
		(unsigned long long)st.nonfile_ops,
		st.uring_enters ? "; io_uring_enter calls counted only" : "",
		st.xattr_ops ? "; extended attribute changes counted only" : "");
	return 0;
}
