/* SPDX-License-Identifier: MIT */
/*
 * conv_new_ops.c - capture_conv fed the kernel events of the format 1.1 syscalls by hand, and
 * each op it writes compared with FORMAT.md ("Fields per op type", "Copies"). The real capture
 * of the same syscalls is proved by the workload (tests/workload); this runs without BPF and
 * reaches what a workload cannot choose: a *loff_t unreadable at both ends of the syscall, an
 * fd whose kind only the fd table knows, a readlink content the kernel side could not carry
 * whole; and --anonymize-paths on readlink's content. Exit 0 pass, 1 fail.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "capture_int.h"

#define PID 2147483001u /* above any pid_max: /proc knows nothing of it */
#define TID 2147483001u
#define AT_EMPTY 0x1000
#define U32_MINUS1 4294967295u

static struct ioreel_sys_event *ev;
static uint64_t now = 2000;

/* One syscall event: raw fd kind of the fd argument (0: none), up to two strings in data. */
static size_t fill(unsigned nr, const uint64_t args[6], unsigned kind, const char *s0,
		   const char *s1, int64_t ret)
{
	size_t size = offsetof(struct ioreel_sys_event, data);

	memset(ev, 0, size);
	ev->hdr.type = IOREEL_EV_SYS;
	ev->hdr.pid = PID;
	ev->hdr.tid = TID;
	ev->hdr.nr = nr;
	ev->hdr.fd_kind = kind;
	ev->has_pos = kind != 0;
	memcpy(ev->args, args, sizeof(ev->args));
	ev->ret = ret;
	ev->start_ns = now;
	ev->end_ns = now + 50;
	now += 100;
	if (s0) {
		ev->len0 = strlen(s0) + 1;
		memcpy(ev->data, s0, ev->len0);
	}
	if (s1) {
		ev->len1 = strlen(s1) + 1;
		memcpy(ev->data + ev->len0, s1, ev->len1);
	}
	size += ev->len0 + ev->len1;
	ev->hdr.size = size;
	return size;
}

static void sys(struct capture_conv *c, unsigned nr, const uint64_t args[6], unsigned kind,
		const char *s0, const char *s1, int64_t ret)
{
	capture_conv__event(c, ev, fill(nr, args, kind, s0, s1, ret));
}

static void open_at(struct capture_conv *c, const char *path, int fd, unsigned kind)
{
	size_t size =
	    fill(__NR_openat, (uint64_t[6]){(uint64_t)AT_FDCWD, 1, O_RDWR}, 0, path, NULL, fd);

	ev->ret_kind = kind;
	capture_conv__event(c, ev, size);
}

/* A copy event: the source as any fd argument (pos), the destination in ioreel_copy_data. */
static void copy(struct capture_conv *c, unsigned nr, const uint64_t args[6], unsigned in_kind,
		 uint64_t pos, const struct ioreel_copy_data *cd, int64_t ret)
{
	size_t size = offsetof(struct ioreel_sys_event, data) + sizeof(*cd);

	fill(nr, args, in_kind, NULL, NULL, ret);
	ev->pos = pos;
	ev->len0 = sizeof(*cd);
	memcpy(ev->data, cd, sizeof(*cd));
	ev->hdr.size = size;
	capture_conv__event(c, ev, size);
}

struct want {
	unsigned type;
	int fd, fd2;
	const char *path, *path2;
	unsigned fd_kind;
	uint32_t flags, mode;
	uint64_t offset, len, aux, ctx;
	int64_t ret;
};

static const struct want wants[] = {
    /* copy_file_range(7, NULL, 8, NULL, 4096, 0) at f_pos 100 -> f_pos 200 */
    {REEL_OP_COPY_FILE_RANGE, 7, 8, "/r/a", "/r/b", REEL_FD_REG, 0, 0, 100, 4096, 200, 0, 4096},
    /* both *loff_t unreadable at entry and exit (EFAULT): positions 0, flags kept */
    {REEL_OP_COPY_FILE_RANGE, 7, 8, "/r/a", "/r/b", REEL_FD_REG, 0, 0, 0, 10, 0, 0, -14},
    /* sendfile(8, 7, &off = 300, 1000) to a regular file at f_pos 64 */
    {REEL_OP_SENDFILE, 7, 8, "/r/a", "/r/b", REEL_FD_REG, 0, REEL_FD_REG, 300, 1000, 64, 0, 1000},
    /* sendfile(socket 9, 7, NULL, 500): mode sock, no destination position nor path */
    {REEL_OP_SENDFILE, 7, 9, "/r/a", NULL, REEL_FD_REG, 0, REEL_FD_SOCK, 4096, 500, 0, 0, 500},
    /* the destination's kind from the fd table when the kernel side had none */
    {REEL_OP_SENDFILE, 7, 8, "/r/a", "/r/b", REEL_FD_REG, 0, REEL_FD_REG, 0, 1, 0, 0, -9},
    /* (sendfile from socket 9 into a pipe: no file at either end, left out) */
    /* symlinkat("../../x/./y", 5, "l"): the link resolved against dirfd 5, content verbatim */
    {REEL_OP_SYMLINKAT, 5, -1, "/r/dir/l", "../../x/./y", 0, 0, 0, 0, 0, 0, 0, 0},
    /* symlink("t", "sub/../m") from the cwd, /w */
    {REEL_OP_SYMLINK, -1, -1, "/w/m", "t", 0, 0, 0, 0, 0, 0, 0, 0},
    /* chown("/r/a", 0, -1) */
    {REEL_OP_CHOWN, -1, -1, "/r/a", NULL, 0, 0, 0, 0, 0, 0, U32_MINUS1, 0},
    /* fchownat(5, "b", -1, 7, AT_SYMLINK_NOFOLLOW) */
    {REEL_OP_FCHOWNAT, 5, -1, "/r/dir/b", NULL, 0, 0x100, 0, 0, 0, U32_MINUS1, 7, 0},
    /* futimens(7) = utimensat(7, NULL, times, 0): on the fd, marked AT_EMPTY_PATH */
    {REEL_OP_UTIMENSAT, 7, -1, "/r/a", NULL, REEL_FD_REG, 0x1000, 0, 0, 0, 0, 0, 0},
    /* fchmodat2(7, "", 0600, AT_EMPTY_PATH): fchmodat on the fd, flags kept */
    {REEL_OP_FCHMODAT, 7, -1, "/r/a", NULL, REEL_FD_REG, AT_EMPTY, 0600, 0, 0, 0, 0, 0},
    /* (fchmodat2(socket 9, "", ..., AT_EMPTY_PATH): no file, left out) */
    /* fchmod(8, 0640) */
    {REEL_OP_FCHMOD, 8, -1, "/r/b", NULL, REEL_FD_REG, 0, 0640, 0, 0, 0, 0, 0},
    /* linkat(5, "b", AT_FDCWD, "/r/c", 0) */
    {REEL_OP_LINKAT, 5, AT_FDCWD, "/r/dir/b", "/r/c", 0, 0, 0, 0, 0, 0, 0, 0},
    /* readlinkat(5, "l", buf, 64): what it read, verbatim (path 1 of the event) */
    {REEL_OP_READLINKAT, 5, -1, "/r/dir/l", "../../x/./y", 0, 0, 0, 0, 64, 0, 0, 11},
    /* chmod("/proc/self/fd/5/sub", 0700): fd 5's file, not the /proc path */
    {REEL_OP_CHMOD, -1, -1, "/r/dir/sub", NULL, 0, 0, 0700, 0, 0, 0, 0, 0},
    /* chmod("/proc/1/fd/5", 0700): another process's fd, left as it is */
    {REEL_OP_CHMOD, -1, -1, "/proc/1/fd/5", NULL, 0, 0, 0700, 0, 0, 0, 0, 0},
    /* readlink("/proc/self/fd/7"): the magic link itself, not followed: left as it is */
    {REEL_OP_READLINK, -1, -1, "/proc/self/fd/7", "/r/a", 0, 0, 0, 0, 64, 0, 0, 4},
    /* readlink("/r/l") = 12 with 11 bytes sent (cut by the BPF side): no content at all */
    {REEL_OP_READLINK, -1, -1, "/r/l", NULL, 0, 0, 0, 0, 64, 0, 0, 12},
    /* readlink("/r/a") = -EINVAL: nothing read */
    {REEL_OP_READLINK, -1, -1, "/r/a", NULL, 0, 0, 0, 0, 64, 0, 0, -22},
    /* readlinkat(AT_FDCWD, <unreadable path>) = 1: no path 0, the content all the same */
    {REEL_OP_READLINKAT, AT_FDCWD, -1, NULL, "z", 0, 0, 0, 0, 8, 0, 0, 1},
    /* utimensat(AT_FDCWD, "/proc/self/fd/7", AT_SYMLINK_NOFOLLOW): the same */
    {REEL_OP_UTIMENSAT, AT_FDCWD, -1, "/proc/self/fd/7", NULL, 0, 0x100, 0, 0, 0, 0, 0, -1},
    /* utimensat(AT_FDCWD, "/proc/thread-self/fd/7", 0): followed, fd 7's file */
    {REEL_OP_UTIMENSAT, AT_FDCWD, -1, "/r/a", NULL, 0, 0, 0, 0, 0, 0, 0, 0},
    /*
     * AT_EMPTY_PATH with a path that is not empty: the kernel ignores it, a path lookup from
     * the dirfd, and the trace must not say "on the fd itself" (FORMAT.md): flag cleared
     */
    /* fchmodat2(5, "b", 0600, AT_EMPTY_PATH) */
    {REEL_OP_FCHMODAT, 5, -1, "/r/dir/b", NULL, 0, 0, 0600, 0, 0, 0, 0, 0},
    /* newfstatat(5, "b", buf, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW): the other flag kept */
    {REEL_OP_NEWFSTATAT, 5, -1, "/r/dir/b", NULL, 0, 0x100, 0, 0, 0, 0, 0, 0},
    /* statx(5, "b", AT_EMPTY_PATH, STATX_BASIC_STATS, buf) */
    {REEL_OP_STATX, 5, -1, "/r/dir/b", NULL, 0, 0, 0x7ff, 0, 0, 0, 0, 0},
    /* fchownat(5, "b", -1, 7, AT_EMPTY_PATH) */
    {REEL_OP_FCHOWNAT, 5, -1, "/r/dir/b", NULL, 0, 0, 0, 0, 0, U32_MINUS1, 7, 0},
    /* utimensat(5, "b", NULL, AT_EMPTY_PATH) */
    {REEL_OP_UTIMENSAT, 5, -1, "/r/dir/b", NULL, 0, 0, 0, 0, 0, 0, 0, 0},
    /* linkat(5, "b", AT_FDCWD, "/r/d", AT_EMPTY_PATH) */
    {REEL_OP_LINKAT, 5, AT_FDCWD, "/r/dir/b", "/r/d", 0, 0, 0, 0, 0, 0, 0, 0},
    /*
     * open(2)'s O_TMPFILE idiom, linkat(AT_FDCWD, "/proc/self/fd/7", AT_FDCWD, "/r/e",
     * AT_SYMLINK_FOLLOW): a link from fd 7 itself, AT_EMPTY_PATH for AT_SYMLINK_FOLLOW
     */
    {REEL_OP_LINKAT, 7, AT_FDCWD, "/r/a", "/r/e", REEL_FD_REG, AT_EMPTY, 0, 0, 0, 0, 0, 0},
    /* the same through dirfd 5 (kind dir) and the pid: fd 8's kind, not the dirfd's */
    {REEL_OP_LINKAT, 8, AT_FDCWD, "/r/b", "/r/f", REEL_FD_REG, AT_EMPTY, 0, 0, 0, 0, 0, 0},
    /* without AT_SYMLINK_FOLLOW the magic link itself: left as it is */
    {REEL_OP_LINKAT, AT_FDCWD, AT_FDCWD, "/proc/self/fd/7", "/r/g", 0, 0, 0, 0, 0, 0, 0, -18},
};

#define NWANT (sizeof(wants) / sizeof(wants[0]))

static int check(const char *trace)
{
	struct reel_reader *r;
	struct reel_op op;
	size_t i = 0;
	int fails = 0;

	if (reel_reader__open(trace, &r))
		return 1;
	while (reel_reader__next(r, &op) == 1) {
		const char *p = op.path ? reel_reader__path(r, op.path) : NULL;
		const char *p2 = op.path2 ? reel_reader__path(r, op.path2) : NULL;
		const struct want *w = &wants[i];

		if (op.type == REEL_OP_OPENAT)
			continue;
		if (i >= NWANT) {
			fprintf(stderr, "op %zu: %s, not expected\n", i, reel_op__name(op.type));
			fails++;
			continue;
		}
		i++;
		if (op.type != w->type || op.fd != w->fd || op.fd2 != w->fd2 ||
		    strcmp(p ? p : "-", w->path ? w->path : "-") ||
		    strcmp(p2 ? p2 : "-", w->path2 ? w->path2 : "-") || op.fd_kind != w->fd_kind ||
		    op.flags != w->flags || op.mode != w->mode || op.offset != w->offset ||
		    op.len != w->len || op.aux != w->aux || op.ctx != w->ctx || op.ret != w->ret) {
			fprintf(
			    stderr,
			    "op %zu: %s fd %d fd2 %d path %s path2 %s kind %u flags %#x mode %#o "
			    "offset %llu len %llu aux %llu ctx %llu ret %lld\n"
			    "  want %s fd %d fd2 %d path %s path2 %s kind %u flags %#x mode %#o "
			    "offset %llu len %llu aux %llu ctx %llu ret %lld\n",
			    i - 1, reel_op__name(op.type), op.fd, op.fd2, p ? p : "-",
			    p2 ? p2 : "-", op.fd_kind, op.flags, op.mode,
			    (unsigned long long)op.offset, (unsigned long long)op.len,
			    (unsigned long long)op.aux, (unsigned long long)op.ctx,
			    (long long)op.ret, reel_op__name(w->type), w->fd, w->fd2,
			    w->path ? w->path : "-", w->path2 ? w->path2 : "-", w->fd_kind,
			    w->flags, w->mode, (unsigned long long)w->offset,
			    (unsigned long long)w->len, (unsigned long long)w->aux,
			    (unsigned long long)w->ctx, (long long)w->ret);
			fails++;
		}
	}
	reel_reader__close(r);
	if (i != NWANT) {
		fprintf(stderr, "%zu ops, want %zu\n", i, NWANT);
		fails++;
	}
	return fails ? 1 : 0;
}

/*
 * --anonymize-paths: what a readlink read is hashed as a symlink's content is, so that the
 * two still agree (and "." and ".." stay). 0 when they do.
 */
static int check_anon(const char *trace)
{
	const char *got[2] = {NULL, NULL};
	struct capture_anon anon;
	struct reel_writer *w;
	struct reel_reader *r;
	struct capture_conv c;
	struct reel_op op;
	int n = 0, fails = 0;

	if (capture_anon__init(&anon) || reel_writer__open(trace, NULL, &w))
		return 1;
	if (capture_conv__init(&c, w, 1000, &anon)) {
		reel_writer__close(w);
		return 1;
	}
	sys(&c, __NR_symlink, (uint64_t[6]){1, 2}, 0, "../secret/./name", "/r/l", 0);
	sys(&c, __NR_readlink, (uint64_t[6]){1, 2, 64}, 0, "/r/l", "../secret/./name", 16);
	capture_conv__free(&c);
	if (reel_writer__close(w) || reel_reader__open(trace, &r))
		return 1;
	while (reel_reader__next(r, &op) == 1 && n < 2) {
		const char *p2 = op.path2 ? reel_reader__path(r, op.path2) : NULL;

		got[n++] = p2 ? strdup(p2) : NULL;
	}
	reel_reader__close(r);
	if (n != 2 || !got[0] || !got[1] || strcmp(got[0], got[1]) || strstr(got[0], "secret") ||
	    strncmp(got[0], "../", 3) || strlen(got[0]) != 3 + 12 + 3 + 12) {
		fprintf(stderr, "anonymised: symlink content %s, readlink read %s\n",
			got[0] ? got[0] : "-", got[1] ? got[1] : "-");
		fails++;
	}
	free((char *)got[0]);
	free((char *)got[1]);
	return fails;
}

int main(void)
{
	char dir[] = "/dev/shm/ioreel-conv.XXXXXX", trace[64], flink[64];
	struct reel_writer *w;
	struct capture_conv c;
	uint64_t base;
	int rc = 1;

	ev = calloc(1, sizeof(*ev));
	if (!ev || !mkdtemp(dir))
		return 1;
	snprintf(trace, sizeof(trace), "%s/t.reel", dir);
	if (reel_writer__open(trace, NULL, &w) || capture_conv__init(&c, w, 1000, NULL))
		goto out;
	open_at(&c, "/r/dir", 5, 4);
	open_at(&c, "/r/a", 7, 8);
	open_at(&c, "/r/b", 8, 8);
	open_at(&c, "/r/sock", 9, 12); /* as a unix socket bound there would come */
	sys(&c, __NR_chdir, (uint64_t[6]){1}, 0, "/w", NULL, 0);
	base = c.nonfile_ops;

	copy(&c, __NR_copy_file_range, (uint64_t[6]){7, 0, 8, 0, 4096, 0}, 8, 100,
	     &(struct ioreel_copy_data){.pos_out = 200, .out_kind = 8, .out_open = 1}, 4096);
	copy(&c, __NR_copy_file_range, (uint64_t[6]){7, 16, 8, 24, 10, 0}, 8, 0,
	     &(struct ioreel_copy_data){.out_kind = 8, .out_open = 1, .pos_fault = 3}, -14);
	copy(&c, __NR_sendfile, (uint64_t[6]){8, 7, 0x7ffc0000, 1000}, 8, 300,
	     &(struct ioreel_copy_data){.pos_out = 64, .out_kind = 8, .out_open = 1}, 1000);
	copy(&c, __NR_sendfile, (uint64_t[6]){9, 7, 0, 500}, 8, 4096,
	     &(struct ioreel_copy_data){.pos_out = 777, .out_kind = 12, .out_open = 1}, 500);
	copy(&c, __NR_sendfile, (uint64_t[6]){8, 7, 0, 1}, 8, 0, &(struct ioreel_copy_data){0}, -9);
	copy(&c, __NR_sendfile, (uint64_t[6]){10, 9, 0, 10}, 12, 0,
	     &(struct ioreel_copy_data){.out_kind = 1, .out_open = 1}, 10);

	sys(&c, __NR_symlinkat, (uint64_t[6]){1, 5, 2}, 0, "../../x/./y", "l", 0);
	sys(&c, __NR_symlink, (uint64_t[6]){1, 2}, 0, "t", "sub/../m", 0);
	sys(&c, __NR_chown, (uint64_t[6]){1, 0, U32_MINUS1}, 0, "/r/a", NULL, 0);
	sys(&c, __NR_fchownat, (uint64_t[6]){5, 1, U32_MINUS1, 7, 0x100}, 0, "b", NULL, 0);
	sys(&c, __NR_utimensat, (uint64_t[6]){7, 0, 1, 0}, 8, NULL, NULL, 0);
	sys(&c, __NR_fchmodat2, (uint64_t[6]){7, 1, 0600, AT_EMPTY}, 8, "", NULL, 0);
	sys(&c, __NR_fchmodat2, (uint64_t[6]){9, 1, 0600, AT_EMPTY}, 12, "", NULL, 0);
	sys(&c, __NR_fchmod, (uint64_t[6]){8, 0640}, 8, NULL, NULL, 0);
	sys(&c, __NR_linkat, (uint64_t[6]){5, 1, (uint64_t)AT_FDCWD, 2, 0}, 0, "b", "/r/c", 0);
	sys(&c, __NR_readlinkat, (uint64_t[6]){5, 1, 2, 64}, 0, "l", "../../x/./y", 11);
	sys(&c, __NR_chmod, (uint64_t[6]){1, 0700}, 0, "/proc/self/fd/5/sub", NULL, 0);
	sys(&c, __NR_chmod, (uint64_t[6]){1, 0700}, 0, "/proc/1/fd/5", NULL, 0);
	sys(&c, __NR_readlink, (uint64_t[6]){1, 2, 64}, 0, "/proc/self/fd/7", "/r/a", 4);
	sys(&c, __NR_readlink, (uint64_t[6]){1, 2, 64}, 0, "/r/l", "../../x/./y", 12);
	sys(&c, __NR_readlink, (uint64_t[6]){1, 2, 64}, 0, "/r/a", NULL, -22);
	sys(&c, __NR_readlinkat, (uint64_t[6]){(uint64_t)AT_FDCWD, 1, 2, 8}, 0, NULL, "z", 1);
	sys(&c, __NR_utimensat, (uint64_t[6]){(uint64_t)AT_FDCWD, 1, 0, 0x100}, 0,
	    "/proc/self/fd/7", NULL, -1);
	sys(&c, __NR_utimensat, (uint64_t[6]){(uint64_t)AT_FDCWD, 1, 0, 0}, 0,
	    "/proc/thread-self/fd/7", NULL, 0);
	sys(&c, __NR_fchmodat2, (uint64_t[6]){5, 1, 0600, AT_EMPTY}, 0, "b", NULL, 0);
	sys(&c, __NR_newfstatat, (uint64_t[6]){5, 1, 2, AT_EMPTY | 0x100}, 0, "b", NULL, 0);
	sys(&c, __NR_statx, (uint64_t[6]){5, 1, AT_EMPTY, 0x7ff, 2}, 0, "b", NULL, 0);
	sys(&c, __NR_fchownat, (uint64_t[6]){5, 1, U32_MINUS1, 7, AT_EMPTY}, 0, "b", NULL, 0);
	sys(&c, __NR_utimensat, (uint64_t[6]){5, 1, 0, AT_EMPTY}, 0, "b", NULL, 0);
	sys(&c, __NR_linkat, (uint64_t[6]){5, 1, (uint64_t)AT_FDCWD, 2, AT_EMPTY}, 0, "b", "/r/d",
	    0);
	sys(&c, __NR_linkat, (uint64_t[6]){(uint64_t)AT_FDCWD, 1, (uint64_t)AT_FDCWD, 2, 0x400}, 0,
	    "/proc/self/fd/7", "/r/e", 0);
	snprintf(flink, sizeof(flink), "/proc/%u/fd/8", PID);
	sys(&c, __NR_linkat, (uint64_t[6]){5, 1, (uint64_t)AT_FDCWD, 2, 0x400}, 4, flink, "/r/f",
	    0);
	sys(&c, __NR_linkat, (uint64_t[6]){(uint64_t)AT_FDCWD, 1, (uint64_t)AT_FDCWD, 2, 0}, 0,
	    "/proc/self/fd/7", "/r/g", -18);
	if (c.nonfile_ops - base != 2) {
		fprintf(stderr,
			"non-file ops %llu, want 2 (sendfile socket -> pipe, fchmodat2 on a "
			"socket)\n",
			(unsigned long long)(c.nonfile_ops - base));
		capture_conv__free(&c);
		reel_writer__close(w);
		goto out;
	}
	capture_conv__free(&c);
	if (reel_writer__close(w))
		goto out;
	rc = check(trace);
	if (rc == 0)
		rc = check_anon(trace);
out:
	unlink(trace);
	rmdir(dir);
	free(ev);
	if (rc == 0)
		printf("conv_new_ops: ok\n");
	return rc;
}
