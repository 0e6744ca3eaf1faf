/* SPDX-License-Identifier: MIT */
/*
 * capture_session.c - one recording, start to end: open -> configure the .rodata knobs ->
 * load -> fill the pid filter -> attach -> snapshot /proc -> release the held command ->
 * poll the ring buffer into the writer -> detach -> drain -> footer.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "capture.h"
#include "capture_int.h"
#include "ioreel.skel.h"

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t stop_signal;

void capture__stop(int sig)
{
	stop_signal = sig;
	stop_requested = 1;
}

const char *capture_stop__name(enum capture_stop s)
{
	switch (s) {
	case CAPTURE_STOP_EXIT:
		return "exit";
	case CAPTURE_STOP_DURATION:
		return "duration";
	case CAPTURE_STOP_SIGNAL:
		return "signal";
	default:
		return NULL;
	}
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Raw tracepoints need no tracefs, but tools run next to us (and the tests) expect it. */
static void mount_tracefs(void)
{
	if (access("/sys/kernel/tracing/events", F_OK) == 0)
		return;
	mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
}

/*
 * The command is forked at once but waits on a pipe before exec, so that its pid can go
 * into the filter and the probes can be attached first: its very first syscall is seen.
 * A second pipe, close-on-exec, tells the recorder whether the exec happened: it reads EOF
 * when it did, the errno when it failed (the usual way: the child has nobody else to say it to).
 */
static int spawn_held(char *const *argv, pid_t *pid, int *release_fd, int *exec_fd)
{
	int fds[2], efds[2];
	char c;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	if (pipe2(efds, O_CLOEXEC)) {
		int err = -errno;

		close(fds[0]);
		close(fds[1]);
		return err;
	}
	*pid = fork();
	if (*pid < 0) {
		int err = -errno;

		close(fds[0]);
		close(fds[1]);
		close(efds[0]);
		close(efds[1]);
		return err;
	}
	if (*pid == 0) {
		int e;

		close(fds[1]);
		close(efds[0]);
		if (read(fds[0], &c, 1) != 1)
			_exit(127); /* the recorder gave up: do not run untraced */
		execvp(argv[0], argv);
		e = errno;
		if (write(efds[1], &e, sizeof(e)) != sizeof(e))
			_exit(127);
		_exit(127);
	}
	close(fds[0]);
	close(efds[1]);
	*release_fd = fds[1];
	*exec_fd = efds[0];
	return 0;
}

/* After the release: 0 once the held command has exec'ed, its exec's -errno if it could not. */
static int exec_result(int exec_fd)
{
	ssize_t n;
	int e;

	do
		n = read(exec_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(e) && e > 0 ? -e : 0;
}

/* Where cgroup v2 is mounted: /sys/fs/cgroup, or /sys/fs/cgroup/unified on hybrid hosts. */
static int cgroup2_root(char *out, size_t size)
{
	char dev[256], dir[PATH_MAX], type[64];
	FILE *f = fopen("/proc/self/mounts", "re");
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3) {
		if (!strcmp(type, "cgroup2")) {
			snprintf(out, size, "%s", dir);
			err = 0;
			break;
		}
	}
	fclose(f);
	return err;
}

/*
 * --cgroup's directory into out: a cgroup2 directory as it is, else a cgroup path ("/",
 * "system.slice/x") below the cgroup2 mount. An absolute path that is there but in no cgroup2
 * (a v1 hierarchy's directory, which the BPF side's cgroup v2 ids would never match) is
 * -EMEDIUMTYPE. The path tried and the cgroup2 mount go to st, for the message.
 */
static int cgroup_dir(const char *cg, char *out, size_t size, struct capture_stats *st)
{
	struct statfs sf;
	struct stat sb;
	int err;

	st->failed = CAPTURE_FAILED_CGROUP;
	snprintf(st->cgroup_tried, sizeof(st->cgroup_tried), "%s", cg);
	if (cg[0] == '/' && statfs(cg, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC) {
		snprintf(out, size, "%s", cg);
	} else {
		err = cgroup2_root(st->cgroup2_root, sizeof(st->cgroup2_root));
		if (err) {
			st->cgroup2_root[0] = '\0';
			return err;
		}
		if ((size_t)snprintf(out, size, "%s/%s", st->cgroup2_root,
				     cg[0] == '/' ? cg + 1 : cg) >= size)
			return -ENAMETOOLONG;
		/* /sys/fs/cgroup/memory is no path below a cgroup2 mount, but a v1 directory */
		if (cg[0] == '/' && stat(out, &sb) && stat(cg, &sb) == 0)
			return -EMEDIUMTYPE;
		snprintf(st->cgroup_tried, sizeof(st->cgroup_tried), "%s", out);
	}
	if (stat(out, &sb))
		return -errno;
	if (!S_ISDIR(sb.st_mode))
		return -ENOTDIR;
	if (statfs(out, &sf) || sf.f_type != CGROUP2_SUPER_MAGIC)
		return -EMEDIUMTYPE;
	st->failed = CAPTURE_FAILED_OTHER;
	return 0;
}

static void fill_sys_flags(struct ioreel_bpf *skel)
{
	size_t n;
	const struct capture_sysdef *t = capture_sys__table(&n);

	for (size_t i = 0; i < n; i++) {
		if (t[i].nr < CAPTURE_NR_MAX)
			skel->rodata->sys_flags[t[i].nr] = t[i].flags;
	}
}

static int attach(struct ioreel_bpf *skel, bool *uring)
{
	struct bpf_link **links[] = { &skel->links.ioreel_sys_enter, &skel->links.ioreel_sys_exit,
				      &skel->links.ioreel_fork, &skel->links.ioreel_exec,
				      &skel->links.ioreel_exit };
	struct bpf_program *progs[] = { skel->progs.ioreel_sys_enter, skel->progs.ioreel_sys_exit,
					skel->progs.ioreel_fork, skel->progs.ioreel_exec,
					skel->progs.ioreel_exit };

	/* fork/exec/exit before the syscalls: no child may slip out of the filter */
	for (int i = 4; i >= 0; i--) {
		*links[i] = bpf_program__attach(progs[i]);
		if (!*links[i])
			return -errno;
	}
	/* io_uring's tracepoints are optional: a kernel without them still records syscalls */
	skel->links.ioreel_uring_submit = bpf_program__attach(skel->progs.ioreel_uring_submit);
	skel->links.ioreel_uring_complete =
		bpf_program__attach(skel->progs.ioreel_uring_complete);
	*uring = skel->links.ioreel_uring_submit && skel->links.ioreel_uring_complete;
	return 0;
}

static void read_counters(struct ioreel_bpf *skel, struct capture_stats *st)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals;

	if (ncpu <= 0)
		return;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return;
	for (uint32_t k = 0; k < IOREEL_CNT__MAX; k++) {
		uint64_t sum = 0;

		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.counters), &k, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			sum += vals[c];
		if (k == IOREEL_CNT_EVENTS)
			st->events = sum;
		else if (k == IOREEL_CNT_LOST)
			st->lost = sum;
		else if (k == IOREEL_CNT_NOENTRY)
			st->noentry = sum;
		else if (k == IOREEL_CNT_POS_MOVED)
			st->pos_moved = sum;
	}
	free(vals);
}

static int on_event(void *ctx, void *data, size_t size)
{
	return capture_conv__event(ctx, data, size);
}

static int join_words(char *const *argv, char *out, size_t size)
{
	size_t o = 0;

	out[0] = '\0';
	for (; argv && *argv; argv++) {
		int n = snprintf(out + o, size - o, "%s%s", o ? " " : "", *argv);

		if (n < 0 || (size_t)n >= size - o)
			return -ENAMETOOLONG;
		o += n;
	}
	return 0;
}

static int head_meta(struct reel_writer *w, const struct capture_opts *o, const pid_t *pids,
		     size_t npids, uint64_t mono, uint64_t wall)
{
	char buf[8192], num[32];
	struct utsname u;
	size_t off = 0;
	int err = 0;

	uname(&u);
	snprintf(buf, sizeof(buf), "%s %s", u.release, u.version);
	err = err ?: reel_writer__meta(w, REEL_META_TOOL, "ioreel record 0.1");
	err = err ?: reel_writer__meta(w, REEL_META_HOST, u.nodename);
	err = err ?: reel_writer__meta(w, REEL_META_KERNEL, buf);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)mono);
	err = err ?: reel_writer__meta(w, REEL_META_START_MONO_NS, num);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)wall);
	err = err ?: reel_writer__meta(w, REEL_META_START_WALL_NS, num);
	if (o->command_line)
		snprintf(buf, sizeof(buf), "%s", o->command_line);
	else if (join_words(o->argv, buf, sizeof(buf)))
		buf[0] = '\0';
	/* a command line names files too: with --anonymize-paths it is left out */
	if (buf[0] && !o->anonymize)
		err = err ?: reel_writer__meta(w, REEL_META_COMMAND, buf);
	buf[0] = '\0';
	for (size_t i = 0; i < npids && off + 16 < sizeof(buf); i++)
		off += snprintf(buf + off, sizeof(buf) - off, "%s%d", i ? "," : "", pids[i]);
	if (buf[0])
		err = err ?: reel_writer__meta(w, REEL_META_PIDS, buf);
	if (o->cgroup)
		err = err ?: reel_writer__meta(w, REEL_META_CGROUP, o->cgroup);
	err = err ?: reel_writer__meta(w, REEL_META_ANONYMIZED, o->anonymize ? "1" : "0");
	if (o->noop_probes)
		err = err ?: reel_writer__meta(w, "capture.noop_probes", "1");
	return err;
}

/*
 * IORING_SETUP_* flags as "0x3108 (CQSIZE|COOP_TASKRUN|SINGLE_ISSUER|DEFER_TASKRUN)": the
 * number for programs, the names for people (bits this table does not know stay in the number
 * only). By bit, from include/uapi/linux/io_uring.h.
 */
static void capture__uring_setup_str(uint32_t flags, char *buf, size_t size)
{
	static const char *const names[] = {
	    "IOPOLL",	     "SQPOLL",	       "SQ_AFF",	"CQSIZE",
	    "CLAMP",	     "ATTACH_WQ",      "R_DISABLED",	"SUBMIT_ALL",
	    "COOP_TASKRUN", "TASKRUN_FLAG",   "SQE128",	"CQE32",
	    "SINGLE_ISSUER", "DEFER_TASKRUN", "NO_MMAP",	"REGISTERED_FD_ONLY",
	    "NO_SQARRAY",   "HYBRID_IOPOLL",
	};
	size_t off = (size_t)snprintf(buf, size, "%#x (", flags);
	int first = 1;

	for (unsigned b = 0; b < sizeof(names) / sizeof(names[0]) && off < size; b++)
		if (flags & (1U << b)) {
			off += (size_t)snprintf(buf + off, size - off, "%s%s", first ? "" : "|",
						names[b]);
			first = 0;
		}
	if (first)
		snprintf(buf, size, "%#x", flags); /* none known: the number alone */
	else if (off < size)
		snprintf(buf + off, size - off, ")");
}

int capture__footer_meta(struct reel_writer *w, const struct capture_stats *st)
{
	char num[32];
	int err = 0;

#define PUT(key, val)                                                                          \
	do {                                                                                   \
		snprintf(num, sizeof(num), "%llu", (unsigned long long)(val));                 \
		err = err ?: reel_writer__meta(w, key, num);                                   \
	} while (0)
	PUT(REEL_META_LOST_EVENTS, st->lost + st->noentry);
	PUT("nonfile_ops", st->nonfile_ops);
	PUT("capture.events", st->events);
	PUT("capture.lost_items", st->lost_items);
	PUT(REEL_META_CAPTURE_UNPAIRED, st->unpaired);
	PUT(REEL_META_CAPTURE_XATTR_OPS, st->xattr_ops);
	PUT(REEL_META_CAPTURE_AFTER_EXIT, st->after_exit);
	PUT(REEL_META_CAPTURE_POS_MOVED, st->pos_moved);
	PUT(REEL_META_CAPTURE_PATHS_TOO_LONG, st->paths_too_long);
	PUT("capture.links_unresolved", st->links_unresolved);
	PUT("capture.uring_fixed_files", st->uring_fixed);
	PUT("capture.uring_unrecorded", st->uring_unrecorded);
	if (st->uring_unrecorded)
		err = err ?: reel_writer__meta(w, "capture.uring_unrecorded_ops",
					       st->uring_unrecorded_ops);
#undef PUT
	if (st->uring_seen) {
		char flags[256];

		capture__uring_setup_str(st->uring_setup, flags, sizeof(flags));
		err = err ?: reel_writer__meta(w, REEL_META_CAPTURE_URING_SETUP, flags);
	}
	/* beside the replay's (replay.cpu_busy): the report says when the two differ */
	if (st->cpu_busy >= 0) {
		snprintf(num, sizeof(num), "%.3f", st->cpu_busy);
		err = err ?: reel_writer__meta(w, REEL_META_CAPTURE_CPU_BUSY, num);
	}
	if (capture_stop__name(st->stopped_by))
		err = err ?: reel_writer__meta(w, REEL_META_CAPTURE_STOPPED_BY,
					       capture_stop__name(st->stopped_by));
	/* "INT" -> "SIGINT", as kill -l and the recorder's own message name it */
	if (st->stop_signal && sigabbrev_np(st->stop_signal)) {
		char name[32];

		snprintf(name, sizeof(name), "SIG%s", sigabbrev_np(st->stop_signal));
		err = err ?: reel_writer__meta(w, REEL_META_CAPTURE_STOP_SIGNAL, name);
	}
	return err;
}

/* All pids to follow and snapshot: -p's and their descendants, a cgroup's, or the child. */
static int initial_pids(const struct capture_opts *o, const char *cgdir, pid_t child,
			pid_t **pids, size_t *n)
{
	int err = 0;

	if (o->argv) {
		*pids = malloc(sizeof(**pids));
		if (!*pids)
			return -ENOMEM;
		(*pids)[0] = child;
		*n = 1;
		return 0;
	}
	if (cgdir)
		return capture_procfs__cgroup_pids(cgdir, pids, n);
	*pids = malloc(o->npids * sizeof(**pids));
	if (!*pids)
		return -ENOMEM;
	memcpy(*pids, o->pids, o->npids * sizeof(**pids));
	*n = o->npids;
	for (size_t i = 0; i < o->npids && !err; i++) {
		if (kill(o->pids[i], 0) && errno == ESRCH)
			return -ESRCH;
		/* a thread id names its whole process: the filter is by tgid */
		(*pids)[i] = capture_procfs__tgid(o->pids[i]);
	}
	return err;
}

/*
 * -p: the descendants already running. Scanned once the fork probe is attached, so that a
 * child forked meanwhile is either seen by the probe (it is the child of a followed process)
 * or found here - never neither.
 */
static int add_descendants(struct ioreel_bpf *skel, size_t ngiven, pid_t **pids, size_t *n)
{
	size_t first = *n;
	uint8_t one = 1;
	int err = 0;

	for (size_t i = 0; i < ngiven && !err; i++)
		err = capture_procfs__descendants((*pids)[i], pids, n);
	for (size_t i = first; i < *n && !err; i++) {
		if (bpf_map_update_elem(bpf_map__fd(skel->maps.targets), &(*pids)[i], &one,
					BPF_ANY))
			err = -errno;
	}
	return err;
}

static bool child_done(pid_t child, struct capture_stats *st)
{
	int status;

	if (child <= 0 || st->child_exited)
		return st->child_exited;
	if (waitpid(child, &status, WNOHANG) == child &&
	    (WIFEXITED(status) || WIFSIGNALED(status))) {
		st->child_exited = true;
		st->child_status = status;
	}
	return st->child_exited;
}

/* REEL_META_CAPTURE_FD_FLAGS, _FD_SIZES: ~20-30 bytes an fd, some thousands of files at most */
#define FD_FLAGS_MAX (64u << 10)

int capture__run(const struct capture_opts *o, struct capture_stats *st)
{
	struct ioreel_bpf *skel = NULL;
	struct ring_buffer *rb = NULL;
	struct reel_writer *w = NULL;
	struct capture_anon anon;
	struct capture_conv conv;
	char cgdir[PATH_MAX];
	bool have_conv = false;
	pid_t child = -1, *pids = NULL;
	size_t npids = 0;
	char *fd_flags, *fd_sizes;
	int release_fd = -1, exec_fd = -1, err, ncpu;
	uint64_t mono, wall, last_flush, deadline = 0;
	struct reel_cpu_sample cpu0 = {0}, cpu1;
	struct stat sb;
	uint8_t one = 1;

	memset(st, 0, sizeof(*st));
	st->cpu_busy = -1; /* not measured (yet) */
	stop_requested = 0;
	stop_signal = 0;
	if (!o->output || (!o->argv && !o->npids && !o->cgroup))
		return -EINVAL;
	if (o->buffer_bytes & (o->buffer_bytes - 1))
		return -EINVAL;
	if (o->cgroup) {
		err = cgroup_dir(o->cgroup, cgdir, sizeof(cgdir), st);
		if (err)
			return err;
	}
	if (o->anonymize) {
		err = capture_anon__init(&anon);
		if (err)
			return err;
	}
	mount_tracefs();

	skel = ioreel_bpf__open();
	if (!skel)
		return -errno;
	skel->rodata->noop = o->noop_probes;
	skel->rodata->self_tgid = getpid();
	if (o->cgroup) {
		if (stat(cgdir, &sb)) {
			err = -errno;
			goto cleanup;
		}
		/* a cgroup v2 id is its directory's inode number */
		skel->rodata->targ_cgroup = sb.st_ino;
	}
	if (o->buffer_bytes) {
		err = bpf_map__set_max_entries(skel->maps.events, o->buffer_bytes);
		if (err)
			goto cleanup;
	}
	/* each CPU wakes the consumer once per 1/8 of the buffer / ncpus it sends: far fewer
	 * wakeups than one per event, and the consumer still starts long before the buffer
	 * overflows (at most an eighth unread, whichever CPUs sent it) */
	ncpu = libbpf_num_possible_cpus();
	if (ncpu < 1)
		ncpu = 1;
	skel->rodata->wake_bytes = bpf_map__max_entries(skel->maps.events) / 8 / ncpu;
	fill_sys_flags(skel);
	skel->rodata->nr_io_getevents = __NR_io_getevents;
	err = ioreel_bpf__load(skel);
	if (err)
		goto cleanup;

	err = reel_writer__open(o->output, NULL, &w);
	if (err) {
		w = NULL;
		st->failed = CAPTURE_FAILED_OUTPUT;
		goto cleanup;
	}
	if (o->argv) {
		err = spawn_held(o->argv, &child, &release_fd, &exec_fd);
		if (err)
			goto cleanup;
	}
	err = initial_pids(o, o->cgroup ? cgdir : NULL, child, &pids, &npids);
	if (err)
		goto cleanup;
	if (!o->cgroup) {
		for (size_t i = 0; i < npids; i++) {
			err = bpf_map_update_elem(bpf_map__fd(skel->maps.targets), &pids[i], &one,
						  BPF_ANY);
			if (err) {
				err = -errno;
				goto cleanup;
			}
		}
	}

	mono = now_ns(CLOCK_MONOTONIC);
	wall = now_ns(CLOCK_REALTIME);
	err = capture_conv__init(&conv, w, mono, o->anonymize ? &anon : NULL);
	if (err)
		goto cleanup;
	have_conv = true;
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, &conv, NULL);
	if (!rb) {
		err = -errno;
		goto cleanup;
	}
	err = attach(skel, &st->uring);
	if (err)
		goto cleanup;
	if (o->npids && !o->argv && !o->cgroup) {
		err = add_descendants(skel, o->npids, &pids, &npids);
		if (err)
			goto cleanup;
	}
	/* before the first op is added (the poll loop), so it goes in the head */
	err = head_meta(w, o, pids, npids, mono, wall);
	if (err)
		goto cleanup;
	fd_flags = calloc(1, FD_FLAGS_MAX);
	fd_sizes = calloc(1, FD_FLAGS_MAX);
	for (size_t i = 0; i < npids; i++) {
		struct capture_proc *p = capture_procs__get(&conv.procs, pids[i], true);

		if (p)
			capture_procfs__snapshot(p, fd_flags, fd_sizes,
						 fd_flags && fd_sizes ? FD_FLAGS_MAX : 0, !!o->argv);
	}
	/* still before the first op: in the head, where a replay finds it before the ops */
	if (fd_flags && fd_flags[0])
		err = reel_writer__meta(w, REEL_META_CAPTURE_FD_FLAGS, fd_flags);
	if (!err && fd_sizes && fd_sizes[0])
		err = reel_writer__meta(w, REEL_META_CAPTURE_FD_SIZES, fd_sizes);
	free(fd_flags);
	free(fd_sizes);
	if (err)
		goto cleanup;
	if (o->on_attached)
		o->on_attached(o->arg);
	if (release_fd >= 0) {
		if (write(release_fd, &one, 1) != 1) {
			err = -errno;
			goto cleanup;
		}
		close(release_fd);
		release_fd = -1;
		/* the command could not be run (not found, not executable): there is nothing
		 * to record, and a trace of its failed execve would pass for one of it */
		err = exec_result(exec_fd);
		if (err) {
			st->failed = CAPTURE_FAILED_EXEC;
			waitpid(child, NULL, 0);
			child = -1;
			goto cleanup;
		}
	}

	if (reel_cpu__sample(&cpu0))
		cpu0.total = 0;
	last_flush = now_ns(CLOCK_MONOTONIC);
	if (o->duration_s > 0)
		deadline = last_flush + (uint64_t)(o->duration_s * 1e9);
	while (!stop_requested) {
		uint64_t t;

		/* events are sent without a wakeup until a CPU has sent its share (see
		 * wake_flags() in ioreel.bpf.c): a poll that times out must still consume */
		err = ring_buffer__poll(rb, 50);
		if (err == 0)
			err = ring_buffer__consume(rb);
		if (err == -EINTR) {
			err = 0;
			continue;
		}
		if (err < 0)
			break;
		err = 0;
		t = now_ns(CLOCK_MONOTONIC);
		if (t - last_flush >= 1000000000ull) {
			err = reel_writer__flush(w);
			if (err)
				break;
			last_flush = t;
		}
		if (deadline && t >= deadline) {
			st->stopped_by = CAPTURE_STOP_DURATION;
			break;
		}
		if ((child > 0 && child_done(child, st)) ||
		    /* -p: everything we followed has ended */
		    (child <= 0 && !o->cgroup && conv.procs.live == 0)) {
			st->stopped_by = CAPTURE_STOP_EXIT;
			break;
		}
	}
	if (!err && stop_requested && !st->stopped_by) {
		st->stopped_by = CAPTURE_STOP_SIGNAL;
		st->stop_signal = stop_signal;
	}
	/* detach first, then drain what is left: nothing is lost at the end */
	ioreel_bpf__detach(skel);
	st->cpu_busy = cpu0.total && !reel_cpu__sample(&cpu1) ? reel_cpu__busy(&cpu0, &cpu1) : -1;
	if (!err) {
		err = ring_buffer__consume(rb);
		err = err < 0 ? err : 0;
	}
	if (!err && conv.err)
		err = conv.err;
	if (child > 0)
		child_done(child, st);
	st->child = child;
	st->seconds = (now_ns(CLOCK_MONOTONIC) - mono) / 1e9;
	read_counters(skel, st);
	st->received = conv.events;
	st->nonfile_ops = conv.nonfile_ops;
	st->lost_items = conv.lost_items;
	st->unpaired = conv.unpaired;
	st->xattr_ops = conv.xattr_ops;
	st->after_exit = conv.after_exit;
	st->paths_too_long = conv.paths_too_long;
	st->links_unresolved = conv.links_unresolved;
	st->uring_fixed = conv.uring_fixed;
	st->uring_setup = conv.uring_setup;
	st->uring_seen = conv.uring_seen;
	st->uring_unrecorded = capture_conv__uring_unrecorded(&conv, st->uring_unrecorded_ops,
							       sizeof(st->uring_unrecorded_ops));
	st->async_read = conv.async_read;
	st->async_written = conv.async_written;
	st->shared_wmaps = conv.shared_wmaps;
	st->wmap_bytes = conv.wmap_bytes;
	st->totals = *reel_writer__totals(w);
	{
		int ferr = capture__footer_meta(w, st);

		err = err ?: ferr;
	}

cleanup:
	if (exec_fd >= 0)
		close(exec_fd);
	if (release_fd >= 0) {
		/* never released: the held child sees EOF and exits without running */
		close(release_fd);
		waitpid(child, NULL, 0);
	}
	ring_buffer__free(rb);
	if (w) {
		int cerr = reel_writer__close(w);

		err = err ?: cerr;
		if (!err && stat(o->output, &sb) == 0)
			st->trace_bytes = sb.st_size;
	}
	if (have_conv)
		capture_conv__free(&conv);
	ioreel_bpf__destroy(skel);
	free(pids);
	return err;
}
