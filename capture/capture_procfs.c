/* SPDX-License-Identifier: MIT */
/*
 * capture_procfs.c - what a process already had open when the capture began, read from
 * /proc/PID/fd and fdinfo, so that its reads and writes on those fds keep their path.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "capture_int.h"

static unsigned kind_of_mode(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG:
		return REEL_FD_REG;
	case S_IFDIR:
		return REEL_FD_DIR;
	case S_IFBLK:
		return REEL_FD_BLK;
	case S_IFCHR:
		return REEL_FD_CHR;
	case S_IFIFO:
		return REEL_FD_FIFO;
	case S_IFSOCK:
		return REEL_FD_SOCK;
	default:
		return REEL_FD_OTHER;
	}
}

/* fdinfo's "flags:" (octal); the position comes from the kernel per op. */
static unsigned long fd_flags(pid_t pid, const char *fd)
{
	char path[320], line[256];
	unsigned long flags = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", pid, fd);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "flags: %lo", &flags) == 1)
			break;
	}
	fclose(f);
	return flags;
}

/*
 * The open flags the replay needs to open such a file as the application had it: without
 * O_DIRECT, a database's reads of a file it opened before the capture (InnoDB's tablespaces,
 * all of them) came from the replay's page cache, 40x faster than the device reads recorded.
 */
static void flags_add(char *buf, size_t len, pid_t pid, int fd, unsigned long flags)
{
	size_t off = strlen(buf);

	flags &= O_DIRECT | O_DSYNC | O_SYNC;
	if (!flags || !buf || off + 40 >= len)
		return;
	snprintf(buf + off, len - off, "%s%d:%d:%lo", off ? " " : "", pid, fd, flags);
}

/*
 * And its size: a file the application only writes in place (a database's preallocated redo
 * log, its tablespaces' pages) was prepared only as long as the furthest byte read, so the
 * replay's writes extended a short, sparse file (allocating blocks, and fdatasync flushing
 * the size too) where the application overwrote a 64 MiB one.
 */
static void size_add(char *buf, size_t len, pid_t pid, int fd, long long size)
{
	size_t off = strlen(buf);

	if (size <= 0 || !buf || off + 48 >= len)
		return;
	snprintf(buf + off, len - off, "%s%d:%d:%lld", off ? " " : "", pid, fd, size);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

ssize_t capture_procfs__readlink(const char *link, char *buf, size_t size)
{
	ssize_t n = readlink(link, buf, size - 1);

	if (n < 0)
		return errno == ENAMETOOLONG ? -ENAMETOOLONG : 0;
	/* as long as the buffer: maybe cut */
	if ((size_t)n >= size - 1)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return n;
}

/* dir beneath root, as a path RESOLVE_IN_ROOT takes from root's fd ("/" for root itself) */
static const char *beneath(const char *root, const char *dir)
{
	size_t n = strlen(root);

	if (!strcmp(root, "/"))
		return dir;
	return !strncmp(dir, root, n) && (!dir[n] || dir[n] == '/') ? (dir[n] ? dir + n : "/")
								    : NULL;
}

int capture_procfs__dir_up(const char *root, const char *dir, unsigned up, char *out,
			   size_t size)
{
	/* no magic link followed: a /proc name here would be the recorder's own */
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	char rel[PATH_MAX], link[64];
	const char *in;
	int rootfd, fd, err;
	ssize_t len;
	size_t n;

	root = root ? root : "/";
	/* a cwd outside the root (chroot without chdir): its ".." never meets the root */
	if (!(in = beneath(root, dir))) {
		root = "/";
		in = dir;
	}
	n = strlen(in);
	if (n + 3 * (size_t)up >= sizeof(rel))
		return -ENAMETOOLONG;
	memcpy(rel, in, n);
	for (unsigned i = 0; i < up; i++, n += 3)
		memcpy(rel + n, "/..", 3);
	rel[n] = '\0';
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return -errno;
	fd = (int)syscall(SYS_openat2, rootfd, rel, &how, sizeof(how));
	if (fd < 0) {
		err = -errno;
		close(rootfd);
		return err;
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = capture_procfs__readlink(link, out, size);
	close(fd);
	close(rootfd);
	if (len < 0)
		return (int)len;
	return len > 0 && out[0] == '/' ? 0 : -ENOENT;
}

int capture_procfs__snapshot(struct capture_proc *p, char *fd_flags_buf, char *fd_sizes_buf,
			     size_t len, int before_exec)
{
	char dir[64], link[PATH_MAX], target[PATH_MAX];
	struct dirent *de;
	unsigned long flags;
	struct stat st;
	ssize_t n;
	DIR *d;

	snprintf(link, sizeof(link), "/proc/%d/cwd", p->pid);
	n = capture_procfs__readlink(link, target, sizeof(target));
	if (n > 0)
		capture_proc__set_cwd(p, target);
	else if (n == -ENAMETOOLONG)
		capture_proc__forget_cwd(p, true);
	snprintf(dir, sizeof(dir), "/proc/%d/fd", p->pid);
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		int fd;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		fd = atoi(de->d_name);
		snprintf(link, sizeof(link), "%s/%s", dir, de->d_name);
		n = capture_procfs__readlink(link, target, sizeof(target));
		if ((n <= 0 && n != -ENAMETOOLONG) || stat(link, &st))
			continue;
		flags = fd_flags(p->pid, de->d_name);
		if (n == -ENAMETOOLONG) {
			/* a path longer than PATH_MAX: not known, nor are those relative to it */
			capture_proc__set_fd(p, fd, NULL, kind_of_mode(st.st_mode),
					     flags & O_CLOEXEC);
			capture_proc__mark(p, fd, CAPTURE_FD_LONG);
			capture_proc__set_seen(p, fd, mono_ns());
			continue;
		}
		if (capture_path__is_memfd(target)) {
			/* a regular file's inode, but of no file system: not storage */
			capture_proc__set_fd(p, fd, NULL, REEL_FD_OTHER, flags & O_CLOEXEC);
			capture_proc__mark(p, fd, CAPTURE_FD_ANON);
			capture_proc__set_seen(p, fd, mono_ns());
			continue;
		}
		/* "pipe:[123]", "socket:[..]", "anon_inode:[eventfd]" are not paths */
		capture_proc__set_fd(p, fd, target[0] == '/' ? target : NULL,
				     kind_of_mode(st.st_mode), flags & O_CLOEXEC);
		capture_proc__set_seen(p, fd, mono_ns());
		/* a command held before its exec: its close-on-exec fds are the recorder's own
		 * (the trace being written), gone at the exec, not the command's */
		if (S_ISREG(st.st_mode) && !(before_exec && (flags & O_CLOEXEC))) {
			flags_add(fd_flags_buf, len, p->pid, fd, flags);
			size_add(fd_sizes_buf, len, p->pid, fd, (long long)st.st_size);
		}
	}
	closedir(d);
	return 0;
}

static pid_t ppid_of(pid_t pid)
{
	char path[64], buf[512], *rp;
	int ppid = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* the command name may hold spaces and parentheses: parse after the last ')' */
	rp = strrchr(buf, ')');
	if (!rp || sscanf(rp + 1, " %*c %d", &ppid) != 1)
		return 0;
	return ppid;
}

static int push(pid_t **pids, size_t *n, pid_t pid)
{
	pid_t *p = realloc(*pids, (*n + 1) * sizeof(**pids));

	if (!p)
		return -ENOMEM;
	p[(*n)++] = pid;
	*pids = p;
	return 0;
}

int capture_procfs__descendants(pid_t root, pid_t **pids, size_t *n)
{
	pid_t *all = NULL, *par = NULL;
	size_t nall = 0, first = *n;
	struct dirent *de;
	bool grew = true;
	int err = 0;
	DIR *d = opendir("/proc");

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		pid_t pid = atoi(de->d_name);

		if (pid <= 0)
			continue;
		if (push(&all, &nall, pid) || push(&par, &(size_t){ nall - 1 }, ppid_of(pid))) {
			err = -ENOMEM;
			break;
		}
	}
	closedir(d);
	/* transitive closure, the table is small: repeat until nothing new is found */
	while (!err && grew) {
		grew = false;
		for (size_t i = 0; i < nall; i++) {
			bool parent_in = par[i] == root, self_in = false;

			for (size_t j = first; j < *n && !parent_in; j++)
				parent_in = (*pids)[j] == par[i];
			for (size_t j = first; j < *n && !self_in; j++)
				self_in = (*pids)[j] == all[i];
			if (parent_in && !self_in && all[i] != root) {
				if (push(pids, n, all[i])) {
					err = -ENOMEM;
					break;
				}
				grew = true;
			}
		}
	}
	free(all);
	free(par);
	return err;
}

int capture_procfs__cgroup_pids(const char *dir, pid_t **pids, size_t *n)
{
	char path[PATH_MAX];
	int pid, err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fscanf(f, "%d", &pid) == 1) {
		if (push(pids, n, pid)) {
			err = -ENOMEM;
			break;
		}
	}
	fclose(f);
	return err;
}

pid_t capture_procfs__tgid(pid_t tid)
{
	char path[64], line[128];
	int tgid = tid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return tid;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	}
	fclose(f);
	return tgid;
}
