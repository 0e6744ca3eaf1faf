/* SPDX-License-Identifier: MIT */
/*
 * ioworkload.c - a workload with its own ground truth, to prove "ioreel record" right.
 *
 * It issues a known mix of every op the capturer records (wl_sync.c, wl_async.c) from several
 * threads and two processes, and logs each op after it returned (wl_log.c): the syscall name
 * the kernel saw, pid, tid, absolute path, fd, the file position used, length, the real
 * return value, and a per-thread sequence number. check_record.py matches that log against
 * "ioreel dump --format jsonl" of a recording of this program.
 *
 * Process tree: the first process forks; the child reads through an fd it inherited, then
 * execs this program again (--proc 1), which goes on with the same fd and runs its own
 * threads. So the capture has to follow fork, exec, and fds that cross both.
 *
 * It also carries the capture benchmark's load (--bench-preads, wl_bench.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "ioworkload.h"

struct wl_opts wl_opt = { .threads = 3, .rounds = 2, .inherit_fd = -1 };

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "Usage: ioworkload --dir DIR --log FILE [OPTIONS]\n"
	    "       ioworkload --bench-preads --file F --seconds S [--rate OPS_PER_S]\n"
	    "\n"
	    "Issues a known mix of every file op ioreel records, from several threads and two\n"
	    "processes (fork + exec), and logs each op as one JSON line after it returned.\n"
	    "\n"
	    "  --dir DIR        scratch dir (created files go there; the process chdirs into it)\n"
	    "  --log FILE       the ground-truth log (appended to; keep it outside DIR)\n"
	    "  --threads N      worker threads per process (default 3)\n"
	    "  --rounds N       rounds of the mix per thread (default 2)\n"
	    "  --aio-dir D      where the O_DIRECT Linux AIO file goes (default DIR)\n"
	    "  --shm-dir D      where the O_DIRECT attempts go (default DIR; tmpfs may refuse)\n"
	    "  --verify         check the kept file positions against /proc/self/fdinfo\n"
	    "                   (adds ops of its own: not for recordings)\n"
	    "  --wait-attach    after opening shared.dat, print \"ready PID\" and wait for\n"
	    "                   SIGUSR1 (attach \"ioreel record -p PID\" meanwhile); ops\n"
	    "                   before it are logged with \"before_capture\":1\n"
	    "  --bench-reads    the same with read(2) at the file's position (lseek to 0 at its end)\n"
	    "  --bench-preads   4 KiB preads of F (page cache) for S seconds, at full speed or\n"
	    "                   at --rate; prints ops/s and, at a rate, pread latency p50/p99\n"
	    "\n"
	    "EXAMPLES\n"
	    "  ioworkload --dir /var/tmp/wl --log /var/tmp/wl.log --threads 2\n"
	    "  ioreel record -o t.reel -- ioworkload --dir /var/tmp/wl --log /var/tmp/wl.log\n"
	    "  ioworkload --bench-preads --file /dev/shm/f --seconds 3 --rate 5000\n");
}

static void resolve(const char *dir, char *out)
{
	if (!realpath(dir, out))
		wl__die("realpath %s: %s", dir, strerror(errno));
}

/*
 * The same for a directory the log's paths are under, without realpath(): glibc's issues a
 * readlink on every component, which the capture records (on the workload's own files, and
 * not in the log). A chdir is no op of a trace.
 */
static void resolve_dir(const char *dir, char *out)
{
	char here[PATH_MAX];

	if (!getcwd(here, sizeof(here)) || chdir(dir) || !getcwd(out, PATH_MAX) || chdir(here))
		wl__die("resolve %s: %s", dir, strerror(errno));
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	char abs[PATH_MAX];
	struct ofd o;
	int dirfd;
	long r;

	wl_log__start(0);
	/* databases rename their threads: the capture must follow tids, not names */
	snprintf(abs, sizeof(abs), "renamed-%d", w->idx);
	prctl(PR_SET_NAME, abs);
	wl__join(abs, wl_opt.root, w->rel);
	r = SC(SYS_mkdir, w->rel, 0755);
	EMIT(.op = "mkdir", .path = abs, .mode = 0755, .ret = r, .has = H_PATH | H_MODE | H_RET);
	if (r < 0)
		wl__die("mkdir %s: %s", abs, strerror(-r));
	dirfd = wl__open(&o, "open", SYS_open, AT_FDCWD, w->rel, abs, O_RDONLY | O_DIRECTORY, 0);
	if (dirfd < 0)
		wl__die("open %s: %s", abs, strerror(-dirfd));
	for (int i = 0; i < wl_opt.rounds; i++)
		wl_sync__round(w, dirfd, i);
	wl__close(dirfd, &o);
	if (w->aio)
		wl_aio__run(w);
	if (w->uring)
		wl_uring__run(w);
	wl_log__flush();
	return NULL;
}

static void run_threads(int proc)
{
	int n = wl_opt.threads, cfd;
	struct worker *ws = calloc(n, sizeof(*ws));
	char name[64], abs[PATH_MAX];
	struct ofd common;

	if (!ws)
		wl__die("out of memory");
	snprintf(name, sizeof(name), "common_p%d.dat", proc);
	wl__join(abs, wl_opt.root, name);
	cfd = wl__open(&common, "open", SYS_open, AT_FDCWD, name, abs, O_RDWR | O_CREAT | O_TRUNC,
		       0644);
	if (cfd < 0)
		wl__die("open %s: %s", abs, strerror(-cfd));
	for (int i = 0; i < n; i++) {
		struct worker *w = &ws[i];

		w->proc = proc;
		w->idx = i;
		snprintf(w->rel, sizeof(w->rel), "p%dt%d", proc, i);
		wl__join(w->dir, wl_opt.root, w->rel);
		w->aio = i == 0;
		w->uring = i == (n > 1 ? 1 : 0);
		w->common_fd = cfd;
		w->common = &common;
		if (pthread_create(&w->th, NULL, worker_main, w))
			wl__die("pthread_create failed");
	}
	for (int i = 0; i < n; i++)
		pthread_join(ws[i].th, NULL);
	wl__close(cfd, &common);
	free(ws);
}

/* The capture follows the cwd through fchdir and chdir ("..") too. */
static void cwd_moves(void)
{
	char abs[PATH_MAX], dir[PATH_MAX];
	struct ofd o;
	struct stat st;
	long r;
	int dfd;

	wl__join(dir, wl_opt.root, "p1t0");
	dfd = wl__open(&o, "open", SYS_open, AT_FDCWD, "p1t0", dir, O_RDONLY | O_DIRECTORY, 0);
	if (dfd < 0)
		wl__die("open %s: %s", dir, strerror(-dfd));
	r = SC(SYS_fchdir, dfd);
	EMIT(.op = "fchdir", .path = dir, .ret = r, .info = true, .has = H_PATH | H_RET);
	if (r)
		wl__die("fchdir: %s", strerror(-r));
	wl__join(abs, dir, "final0");
	r = SC(SYS_stat, "final0", &st);
	EMIT(.op = "stat", .path = abs, .ret = r, .has = H_PATH | H_RET);
	r = SC(SYS_chdir, "..");
	EMIT(.op = "chdir", .path = wl_opt.root, .ret = r, .info = true, .has = H_PATH | H_RET);
	if (r)
		wl__die("chdir ..: %s", strerror(-r));
	wl__join(abs, wl_opt.root, "shared.dat");
	r = SC(SYS_access, "shared.dat", F_OK);
	EMIT(.op = "access", .path = abs, .mode = F_OK, .ret = r, .has = H_PATH | H_MODE | H_RET);
	wl__close(dfd, &o);
}

/* The exec'd child: goes on reading the fd it inherited, then runs its own threads. */
static int child_main(void)
{
	struct ofd o = { .pos = wl_opt.inherit_pos, .kind = "reg" };
	char buf[4096];

	wl_log__start(wl_opt.seq_base);
	wl__join(o.path, wl_opt.root, "shared.dat");
	wl__read(wl_opt.inherit_fd, &o, buf, sizeof(buf));
	wl__pread(wl_opt.inherit_fd, &o, buf, 100, 50000);
	wl__close(wl_opt.inherit_fd, &o);
	run_threads(1);
	cwd_moves();
	wl_log__flush();
	return 0;
}

/*
 * The first process: opens shared.dat, forks; the child reads through the inherited fd
 * (so the position moves under the parent's fd too) and execs the second process.
 */
static int parent_main(const char *self)
{
	struct ofd o;
	char buf[4096], abs[PATH_MAX];
	int fd, st;
	pid_t pid;

	wl_log__start(0);
	EMIT(.op = "chdir", .path = wl_opt.root, .info = true, .has = H_PATH);
	wl__join(abs, wl_opt.root, "shared.dat");
	fd = wl__open(&o, "open", SYS_open, AT_FDCWD, "shared.dat", abs, O_RDWR | O_CREAT | O_TRUNC,
		      0644);
	if (fd < 0)
		wl__die("open %s: %s", abs, strerror(-fd));
	wl__write(fd, &o, wl_pat, sizeof(wl_pat));
	wl__lseek(fd, &o, 4096, SEEK_SET);
	wl_log__flush();
	if (wl_opt.wait_attach) {
		/* the capture attaches now: shared.dat is an fd it has to find in /proc */
		sigset_t set;
		int sig;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		printf("ready %d\n", getpid());
		fflush(stdout);
		if (sigwait(&set, &sig))
			wl__die("sigwait failed");
		wl_opt.before_capture = false;
	}

	pid = fork();
	if (pid < 0)
		wl__die("fork: %s", strerror(errno));
	if (pid == 0) {
		char sfd[16], spos[32], sseq[32], sth[16], srd[16];
		const char *argv[32];
		int n = 0;

		wl_log__start(0);
		wl__read(fd, &o, buf, sizeof(buf));
		EMIT(.op = "execve", .path = self, .info = true, .has = H_PATH);
		snprintf(sfd, sizeof(sfd), "%d", fd);
		snprintf(spos, sizeof(spos), "%" PRId64, o.pos);
		snprintf(sseq, sizeof(sseq), "%" PRIu64, wl_log__seq());
		snprintf(sth, sizeof(sth), "%d", wl_opt.threads);
		snprintf(srd, sizeof(srd), "%d", wl_opt.rounds);
		wl_log__flush();
		argv[n++] = self;
		argv[n++] = "--proc-child";
		argv[n++] = sfd;
		argv[n++] = spos;
		argv[n++] = sseq;
		argv[n++] = "--dir";
		argv[n++] = wl_opt.root;
		argv[n++] = "--log";
		argv[n++] = wl_opt.log;
		argv[n++] = "--aio-dir";
		argv[n++] = wl_opt.aio_root;
		argv[n++] = "--threads";
		argv[n++] = sth;
		argv[n++] = "--rounds";
		argv[n++] = srd;
		if (wl_opt.shm_dir) {
			argv[n++] = "--shm-dir";
			argv[n++] = wl_opt.shm_root;
		}
		if (wl_opt.verify)
			argv[n++] = "--verify";
		argv[n] = NULL;
		execv(self, (char **)argv);
		wl__die("exec %s: %s", self, strerror(errno));
	}
	EMIT(.op = "fork", .ret = pid, .info = true, .has = H_RET);
	wl_log__flush();

	run_threads(0);

	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		wl__die("child process failed (status 0x%x)", st);
	/* the child moved the shared position by one 4 KiB read: lseek says where it is */
	wl__lseek(fd, &o, 0, SEEK_CUR);
	wl__read(fd, &o, buf, sizeof(buf));
	wl__close(fd, &o);
	wl_log__flush();
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "log", required_argument, NULL, 'l' },
		{ "threads", required_argument, NULL, 't' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "aio-dir", required_argument, NULL, 'a' },
		{ "shm-dir", required_argument, NULL, 's' },
		{ "verify", no_argument, NULL, 'v' },
		{ "wait-attach", no_argument, NULL, 'W' },
		{ "proc-child", required_argument, NULL, 'P' },
		{ "bench-preads", no_argument, NULL, 'B' },
		{ "bench-reads", no_argument, NULL, 'b' },
		{ "file", required_argument, NULL, 'f' },
		{ "seconds", required_argument, NULL, 'S' },
		{ "rate", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	const char *bench_file = NULL;
	double seconds = 3, rate = 0;
	bool bench = false, bench_reads = false;
	static char self[PATH_MAX], log_abs[PATH_MAX];
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			wl_opt.dir = optarg;
			break;
		case 'l':
			wl_opt.log = optarg;
			break;
		case 't':
			wl_opt.threads = atoi(optarg);
			break;
		case 'r':
			wl_opt.rounds = atoi(optarg);
			break;
		case 'a':
			wl_opt.aio_dir = optarg;
			break;
		case 's':
			wl_opt.shm_dir = optarg;
			break;
		case 'v':
			wl_opt.verify = true;
			break;
		case 'W':
			wl_opt.wait_attach = true;
			break;
		case 'P':
			/* --proc-child FD POS SEQ: internal, set by the first process's exec */
			if (optind + 1 >= argc)
				wl__die("--proc-child needs FD POS SEQ");
			wl_opt.proc = 1;
			wl_opt.inherit_fd = atoi(optarg);
			wl_opt.inherit_pos = strtoll(argv[optind++], NULL, 10);
			wl_opt.seq_base = strtoull(argv[optind++], NULL, 10);
			break;
		case 'B':
			bench = true;
			break;
		case 'b':
			bench = bench_reads = true;
			break;
		case 'f':
			bench_file = optarg;
			break;
		case 'S':
			seconds = atof(optarg);
			break;
		case 'R':
			rate = atof(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (bench) {
		if (!bench_file || seconds <= 0)
			wl__die("--bench-preads needs --file F and --seconds S > 0");
		return wl_bench__preads(bench_file, seconds, rate, bench_reads);
	}
	if (!wl_opt.dir || !wl_opt.log || wl_opt.threads < 1 || wl_opt.rounds < 1) {
		usage(stderr);
		return 2;
	}
	for (size_t i = 0; i < sizeof(wl_pat); i++)
		wl_pat[i] = 'a' + (i * 7 + i / 4096) % 26;
	resolve_dir(wl_opt.dir, wl_opt.root);
	resolve_dir(wl_opt.aio_dir ? wl_opt.aio_dir : wl_opt.dir, wl_opt.aio_root);
	if (wl_opt.shm_dir)
		resolve_dir(wl_opt.shm_dir, wl_opt.shm_root);
	wl_opt.log_fd = open(wl_opt.log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (wl_opt.log_fd < 0)
		wl__die("open %s: %s", wl_opt.log, strerror(errno));
	resolve(wl_opt.log, log_abs); /* the exec'd child opens it again after the chdir */
	wl_opt.log = log_abs;
	/* relative paths from here on: the capture must follow the cwd */
	if (chdir(wl_opt.root))
		wl__die("chdir %s: %s", wl_opt.root, strerror(errno));
	if (wl_opt.proc == 1)
		return child_main();
	if (wl_opt.wait_attach) {
		sigset_t set;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		wl_opt.before_capture = true;
	}
	if (!realpath("/proc/self/exe", self))
		wl__die("realpath /proc/self/exe: %s", strerror(errno));
	return parent_main(self);
}
