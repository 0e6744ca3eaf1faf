/* SPDX-License-Identifier: MIT */
/*
 * newops.c - issues every syscall of trace format 1.1 (copies, chmod/chown families,
 * utimensat, link, symlink, readlink), for test_import_newops.sh to run under strace.
 *
 *   newops DIR > EXPECTED.jsonl
 *
 * Works in DIR (it chdirs there). Prints, one JSON object per line, the op each call must
 * become in an import, with the values this program knows: fds, paths, positions it
 * computed itself (never asked of the kernel during the run, so that no lseek tells the
 * importer a position it should have worked out), lengths and results. At the end it checks
 * its own position arithmetic against the kernel (lseek), and exits 1 if it was wrong.
 * A forked child copies through an fd it shares with the parent, so the shared file
 * position is tested across processes (and across strace -ff logs).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[4096];
static char out[1 << 16];
static size_t outlen;
static int failed;

/* Expected ops are buffered and printed at the end: no write of ours lands between them. */
static void expect(const char *op, int pid, int fd, int fd2, const char *path, const char *path2,
		   const char *fmt, ...)
{
	char p1[8192], p2[8192];
	va_list ap;

	if (path)
		snprintf(p1, sizeof(p1), "\"%s%s%s\"", *path == '/' ? "" : dir,
			 *path == '/' ? "" : "/", path);
	else
		strcpy(p1, "null");
	/* a symlink's content is stored verbatim, never joined to a directory */
	if (path2 && *path2 == '=')
		snprintf(p2, sizeof(p2), "\"%s\"", path2 + 1);
	else if (path2)
		snprintf(p2, sizeof(p2), "\"%s/%s\"", dir, path2);
	else
		strcpy(p2, "null");
	outlen += (size_t)snprintf(out + outlen, sizeof(out) - outlen,
				   "{\"op\":\"%s\",\"pid\":%d,\"fd\":%d,\"fd2\":%d,\"path\":%s,"
				   "\"path2\":%s",
				   op, pid, fd, fd2, p1, p2);
	va_start(ap, fmt);
	outlen += (size_t)vsnprintf(out + outlen, sizeof(out) - outlen, fmt, ap);
	va_end(ap);
	outlen += (size_t)snprintf(out + outlen, sizeof(out) - outlen, "}\n");
}

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "newops: line %d: %s: %s\n", __LINE__, #cond,              \
				strerror(errno));                                                  \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

static void pos_is(int fd, off_t want, const char *what)
{
	off_t got = lseek(fd, 0, SEEK_CUR);

	if (got != want) {
		fprintf(stderr, "newops: %s position %lld, computed %lld\n", what, (long long)got,
			(long long)want);
		failed = 1;
	}
}

int main(int argc, char **argv)
{
	static char buf[65536];
	int src, dst, dst2, ro, dirfd, sv[2], pp[2], pid = getpid();
	off_t spos, dpos = 0, d2pos = 0;
	loff_t oin, oout;
	ssize_t n;
	struct timespec ts[2] = {{1000000000, 0}, {1000000000, 0}};
	pid_t child;
	int st;

	if (argc != 2 || chdir(argv[1]) || !getcwd(dir, sizeof(dir)))
		return 2;
	memset(buf, 'a', sizeof(buf));
	CHECK((src = open("src", O_RDWR | O_CREAT | O_TRUNC, 0644)) >= 0);
	CHECK(write(src, buf, sizeof(buf)) == sizeof(buf));
	expect("write", pid, src, -1, "src", NULL, ",\"offset\":0,\"len\":65536,\"ret\":65536");
	CHECK(lseek(src, 1000, SEEK_SET) == 1000);
	spos = 1000;
	CHECK((dst = open("dst", O_RDWR | O_CREAT | O_TRUNC, 0600)) >= 0);
	CHECK((dst2 = open("dst2", O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0);
	CHECK((dirfd = open(".", O_RDONLY | O_DIRECTORY)) >= 0);

	/* copy_file_range: both positions (NULL pointers), both offsets, then one of each */
	CHECK(copy_file_range(src, NULL, dst, NULL, 5000, 0) == 5000);
	expect("copy_file_range", pid, src, dst, "src", "dst",
	       ",\"offset\":%lld,\"aux\":%lld,\"len\":5000,\"ret\":5000,\"fd_kind\":\"reg\"",
	       (long long)spos, (long long)dpos);
	spos += 5000;
	dpos += 5000;
	oin = 100;
	oout = 20000;
	CHECK(copy_file_range(src, &oin, dst, &oout, 3000, 0) == 3000 && oin == 3100);
	expect("copy_file_range", pid, src, dst, "src", "dst",
	       ",\"offset\":100,\"aux\":20000,\"len\":3000,\"ret\":3000");
	oin = 60000; /* 5536 bytes left before the end of src: a short copy */
	CHECK(copy_file_range(src, &oin, dst, NULL, 8000, 0) == 5536);
	expect("copy_file_range", pid, src, dst, "src", "dst",
	       ",\"offset\":60000,\"aux\":%lld,\"len\":8000,\"ret\":5536", (long long)dpos);
	dpos += 5536;
	oout = 40000;
	CHECK(copy_file_range(src, NULL, dst, &oout, 700, 0) == 700);
	expect("copy_file_range", pid, src, dst, "src", "dst",
	       ",\"offset\":%lld,\"aux\":40000,\"len\":700,\"ret\":700", (long long)spos);
	spos += 700;
	/* at the end of src: nothing moved, nothing advances */
	oin = 65536;
	CHECK(copy_file_range(src, &oin, dst, NULL, 100, 0) == 0);
	expect("copy_file_range", pid, src, dst, "src", "dst",
	       ",\"offset\":65536,\"aux\":%lld,\"len\":100,\"ret\":0", (long long)dpos);
	/* a failing copy (EBADF: destination opened read-only) moves no position either */
	CHECK((ro = open("src", O_RDONLY)) >= 0);
	CHECK(copy_file_range(src, NULL, ro, NULL, 100, 0) == -1 && errno == EBADF);
	expect("copy_file_range", pid, src, ro, "src", "src",
	       ",\"offset\":%lld,\"aux\":0,\"len\":100,\"ret\":-9,\"err\":\"EBADF\"",
	       (long long)spos);
	/* the positions the copies left: a read of src and a write of dst use them */
	CHECK(read(src, buf, 10) == 10);
	expect("read", pid, src, -1, "src", NULL, ",\"offset\":%lld,\"len\":10,\"ret\":10",
	       (long long)spos);
	spos += 10;
	CHECK(write(dst, buf, 1) == 1);
	expect("write", pid, dst, -1, "dst", NULL, ",\"offset\":%lld,\"len\":1,\"ret\":1",
	       (long long)dpos);
	dpos += 1;

	/* sendfile file -> file, with the position and with an offset */
	CHECK(sendfile(dst2, src, NULL, 4000) == 4000);
	expect("sendfile", pid, src, dst2, "src", "dst2",
	       ",\"offset\":%lld,\"aux\":%lld,\"len\":4000,\"ret\":4000,\"mode\":1",
	       (long long)spos, (long long)d2pos);
	spos += 4000;
	d2pos += 4000;
	oin = 50000;
	CHECK(sendfile(dst2, src, &oin, 4000) == 4000 && oin == 54000);
	expect("sendfile", pid, src, dst2, "src", "dst2",
	       ",\"offset\":50000,\"aux\":%lld,\"len\":4000,\"ret\":4000,\"mode\":1",
	       (long long)d2pos);
	d2pos += 4000;
	/* sendfile to a socket and to a pipe: no position written, the fd kind in mode */
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	CHECK(sendfile(sv[0], src, NULL, 1000) == 1000);
	expect("sendfile", pid, src, sv[0], "src", NULL,
	       ",\"offset\":%lld,\"aux\":0,\"len\":1000,\"ret\":1000,\"mode\":6", (long long)spos);
	spos += 1000;
	CHECK(recv(sv[1], buf, 1000, MSG_WAITALL) == 1000);
	CHECK(pipe(pp) == 0);
	CHECK(sendfile(pp[1], src, NULL, 500) == 500);
	expect("sendfile", pid, src, pp[1], "src", NULL,
	       ",\"offset\":%lld,\"aux\":0,\"len\":500,\"ret\":500,\"mode\":5", (long long)spos);
	spos += 500;
	CHECK(read(pp[0], buf, 500) == 500);

	/*
	 * A child copies through the fds it shares with us, so our positions move too. Its
	 * sendfile into a full 4 KiB pipe blocks until we read: strace shows it as
	 * "<unfinished ...>" and "<... sendfile resumed>" around our lines.
	 */
	CHECK(pipe(pp) == 0 && pipe(sv) == 0);
	CHECK(fcntl(pp[1], F_SETPIPE_SZ, 4096) == 4096);
	child = fork();
	CHECK(child >= 0);
	if (!child) {
		if (copy_file_range(src, NULL, dst, NULL, 1234, 0) != 1234 ||
		    write(pp[1], buf, 4096) != 4096)
			_exit(1);
		n = sendfile(pp[1], src, NULL, 20000);
		_exit(write(sv[1], &n, sizeof(n)) == sizeof(n) ? 0 : 1);
	}
	expect("copy_file_range", child, src, dst, "src", "dst",
	       ",\"offset\":%lld,\"aux\":%lld,\"len\":1234,\"ret\":1234", (long long)spos,
	       (long long)dpos);
	spos += 1234;
	dpos += 1234;
	usleep(300000);
	CHECK(read(pp[0], buf, 4096) == 4096);
	CHECK(read(sv[0], &n, sizeof(n)) == sizeof(n) && n > 0);
	CHECK(read(pp[0], buf, (size_t)n) == n);
	expect("sendfile", child, src, pp[1], "src", NULL,
	       ",\"offset\":%lld,\"aux\":0,\"len\":20000,\"ret\":%lld,\"mode\":5,"
	       "\"unfinished\":1",
	       (long long)spos, (long long)n);
	spos += n;
	CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(read(src, buf, 10) == 10);
	expect("read", pid, src, -1, "src", NULL, ",\"offset\":%lld,\"len\":10,\"ret\":10",
	       (long long)spos);
	spos += 10;

	/* modes */
	CHECK(chmod("src", 0640) == 0);
	expect("chmod", pid, -1, -1, "src", NULL, ",\"mode\":%d", 0640);
	CHECK(fchmod(dst, 0604) == 0);
	expect("fchmod", pid, dst, -1, "dst", NULL, ",\"mode\":%d", 0604);
	CHECK(fchmodat(AT_FDCWD, "dst2", 0644, 0) == 0);
	expect("fchmodat", pid, -100, -1, "dst2", NULL, ",\"mode\":%d", 0644);
	CHECK(fchmodat(dirfd, "src", 0600, 0) == 0);
	expect("fchmodat", pid, dirfd, -1, "src", NULL, ",\"mode\":%d", 0600);
	CHECK(chmod("missing", 0644) == -1 && errno == ENOENT);
	expect("chmod", pid, -1, -1, "missing", NULL, ",\"mode\":%d,\"ret\":-2,\"err\":\"ENOENT\"",
	       0644);

	/* symlinks and links, before the l* calls that need them */
	CHECK(symlink("src", "sym") == 0);
	expect("symlink", pid, -1, -1, "sym", "=src", "");
	CHECK(symlinkat("../elsewhere/./nothing", dirfd, "sym2") == 0);
	expect("symlinkat", pid, dirfd, -1, "sym2", "=../elsewhere/./nothing", "");
	CHECK(link("src", "hard") == 0);
	expect("link", pid, -1, -1, "src", "hard", "");
	CHECK(linkat(dirfd, "dst", AT_FDCWD, "hard2", 0) == 0);
	expect("linkat", pid, dirfd, -100, "dst", "hard2", "");
	CHECK(linkat(AT_FDCWD, "sym", dirfd, "hard3", AT_SYMLINK_FOLLOW) == 0);
	expect("linkat", pid, -100, dirfd, "sym", "hard3", ",\"flags\":%d", AT_SYMLINK_FOLLOW);
	CHECK(link("src", "hard") == -1 && errno == EEXIST);
	expect("link", pid, -1, -1, "src", "hard", ",\"ret\":-17,\"err\":\"EEXIST\"");
	/* what a readlink read is kept verbatim, as a symlink's content is */
	n = readlink("sym", buf, 256);
	CHECK(n == 3);
	expect("readlink", pid, -1, -1, "sym", "=src", ",\"len\":256,\"ret\":3");
	n = readlinkat(dirfd, "sym2", buf, 100);
	CHECK(n == 22);
	expect("readlinkat", pid, dirfd, -1, "sym2", "=../elsewhere/./nothing",
	       ",\"len\":100,\"ret\":22");
	/* made by the test script, 40 bytes: strace (-s 32) cuts it, so it is unknown */
	n = readlink("longsym", buf, 256);
	CHECK(n == 40);
	expect("readlink", pid, -1, -1, "longsym", NULL, ",\"len\":256,\"ret\":40");
	/* a failed readlink read nothing */
	CHECK(readlink("src", buf, 256) == -1 && errno == EINVAL);
	expect("readlink", pid, -1, -1, "src", NULL, ",\"len\":256,\"ret\":-22,\"err\":\"EINVAL\"");

	/* owners: uid 1 gid 1; -1 leaves one unchanged and is stored as 4294967295 */
	CHECK(chown("src", 1, 1) == 0);
	expect("chown", pid, -1, -1, "src", NULL, ",\"aux\":1,\"ctx\":1");
	CHECK(lchown("sym", 1, 1) == 0);
	expect("lchown", pid, -1, -1, "sym", NULL, ",\"aux\":1,\"ctx\":1");
	CHECK(fchown(dst, 1, 1) == 0);
	expect("fchown", pid, dst, -1, "dst", NULL, ",\"aux\":1,\"ctx\":1");
	CHECK(fchown(dst2, (uid_t)-1, 1) == 0);
	expect("fchown", pid, dst2, -1, "dst2", NULL, ",\"aux\":4294967295,\"ctx\":1");
	CHECK(fchownat(dirfd, "sym2", 1, 1, AT_SYMLINK_NOFOLLOW) == 0);
	expect("fchownat", pid, dirfd, -1, "sym2", NULL, ",\"aux\":1,\"ctx\":1,\"flags\":%d",
	       AT_SYMLINK_NOFOLLOW);

	/* times: by path (AT_FDCWD and a dirfd), and futimens (utimensat with a NULL path) */
	CHECK(utimensat(AT_FDCWD, "src", NULL, 0) == 0);
	expect("utimensat", pid, -100, -1, "src", NULL, "");
	CHECK(utimensat(dirfd, "sym", ts, AT_SYMLINK_NOFOLLOW) == 0);
	expect("utimensat", pid, dirfd, -1, "sym", NULL, ",\"flags\":%d", AT_SYMLINK_NOFOLLOW);
	CHECK(futimens(dst, NULL) == 0);
	/* on the fd itself: marked AT_EMPTY_PATH (FORMAT.md) */
	expect("utimensat", pid, dst, -1, "dst", NULL, ",\"flags\":%d", AT_EMPTY_PATH);

	pos_is(src, spos, "src");
	pos_is(dst, dpos, "dst");
	pos_is(dst2, d2pos, "dst2");
	fwrite(out, 1, outlen, stdout);
	return failed || fflush(stdout) ? 1 : 0;
}
