/* SPDX-License-Identifier: MIT */
/* reel_cvt_util.c - helpers private to the converters (see reel_cvt_util.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "reel_cvt_util.h"

void cvt_map__init(struct cvt_map *m)
{
	memset(m, 0, sizeof(*m));
}

void cvt_map__free(struct cvt_map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

static size_t cvt_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return (size_t)k;
}

uint64_t *cvt_map__get(const struct cvt_map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = cvt_hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->used[i])
			return NULL;
		if (m->used[i] == 1 && m->keys[i] == key)
			return &m->vals[i];
	}
}

static int cvt_map__grow(struct cvt_map *m)
{
	struct cvt_map n;
	size_t cap = m->cap ? m->cap * 2 : 64;

	n.keys = calloc(cap, sizeof(*n.keys));
	n.vals = calloc(cap, sizeof(*n.vals));
	n.used = calloc(cap, 1);
	n.cap = cap;
	n.len = 0;
	if (!n.keys || !n.vals || !n.used) {
		cvt_map__free(&n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (m->used[i] != 1)
			continue;
		size_t j = cvt_hash(m->keys[i]) & (cap - 1);
		while (n.used[j])
			j = (j + 1) & (cap - 1);
		n.used[j] = 1;
		n.keys[j] = m->keys[i];
		n.vals[j] = m->vals[i];
		n.len++;
	}
	cvt_map__free(m);
	*m = n;
	return 0;
}

uint64_t *cvt_map__put(struct cvt_map *m, uint64_t key, int *created)
{
	uint64_t *v = cvt_map__get(m, key);
	size_t i;

	if (created)
		*created = 0;
	if (v)
		return v;
	/* tombstones (used == 2) count as load so that lookups always end */
	if ((m->len + 1) * 4 > m->cap * 3 && cvt_map__grow(m))
		return NULL;
	for (i = cvt_hash(key) & (m->cap - 1); m->used[i] == 1; i = (i + 1) & (m->cap - 1))
		;
	if (!m->used[i])
		m->len++;
	m->used[i] = 1;
	m->keys[i] = key;
	m->vals[i] = 0;
	if (created)
		*created = 1;
	return &m->vals[i];
}

int cvt_map__del(struct cvt_map *m, uint64_t key)
{
	uint64_t *v = cvt_map__get(m, key);

	if (!v)
		return -ENOENT;
	m->used[v - m->vals] = 2;
	return 0;
}

int cvt_map__next(const struct cvt_map *m, size_t *i, uint64_t *key, uint64_t *val)
{
	for (; *i < m->cap; (*i)++) {
		if (m->used[*i] == 1) {
			*key = m->keys[*i];
			*val = m->vals[*i];
			(*i)++;
			return 1;
		}
	}
	return 0;
}

/* The kernel's restart codes never reach user space, but strace shows them. */
static const struct {
	const char *name;
	int err;
} cvt_kernel_errnos[] = {
    {"ERESTARTSYS", 512},
    {"ERESTARTNOINTR", 513},
    {"ERESTARTNOHAND", 514},
    {"ENOIOCTLCMD", 515},
    {"ERESTART_RESTARTBLOCK", 516},
    {"EPROBE_DEFER", 517},
    {"EOPENSTALE", 518},
    {"ENOPARAM", 519},
};

const char *cvt_errno_name(int err)
{
	if (err < 0)
		err = -err;
	for (size_t i = 0; i < sizeof(cvt_kernel_errnos) / sizeof(cvt_kernel_errnos[0]); i++)
		if (cvt_kernel_errnos[i].err == err)
			return cvt_kernel_errnos[i].name;
	return strerrorname_np(err);
}

int cvt_errno_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof(cvt_kernel_errnos) / sizeof(cvt_kernel_errnos[0]); i++)
		if (!strcmp(cvt_kernel_errnos[i].name, name))
			return cvt_kernel_errnos[i].err;
	for (int e = 1; e < 512; e++) {
		const char *n = strerrorname_np(e);

		if (n && !strcmp(n, name))
			return e;
	}
	return 0;
}

size_t cvt_utf8_len(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (*p >= 0xc2 && *p <= 0xdf)
		n = 2;
	else if (*p >= 0xe0 && *p <= 0xef)
		n = 3;
	else if (*p >= 0xf0 && *p <= 0xf4)
		n = 4;
	else
		return 0;
	if (*p == 0xe0)
		lo = 0xa0;
	else if (*p == 0xed)
		hi = 0x9f;
	else if (*p == 0xf0)
		lo = 0x90;
	else if (*p == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void cvt_json_str(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	putc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		size_t n;

		switch (*p) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				fprintf(out, "\\u%04x", *p);
			} else if (*p < 0x80) {
				putc(*p, out);
			} else if ((n = cvt_utf8_len(p))) {
				/* JSON is UTF-8: a name in UTF-8 reads as itself */
				fwrite(p, 1, n, out);
				p += n - 1;
			} else {
				/*
				 * Paths are bytes, not always UTF-8: a byte that is not part of
				 * a well-formed sequence is the lone surrogate U+DC00 + byte, as
				 * Python's surrogateescape (os.fsdecode) makes it, so that a
				 * reader gets the exact bytes back (os.fsencode).
				 */
				fprintf(out, "\\udc%02x", *p);
			}
		}
	}
	putc('"', out);
}

void cvt_csv_str(FILE *out, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	putc('"', out);
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			putc('"', out);
		putc(*p, out);
	}
	putc('"', out);
}

/* Raw ABI values (linux/aio_abi.h, linux/io_uring.h); format/ includes no kernel headers. */
enum {
	CVT_IOCB_PREAD = 0,
	CVT_IOCB_PWRITE = 1,
	CVT_IOCB_PREADV = 7,
	CVT_IOCB_PWRITEV = 8,
	CVT_URING_READV = 1,
	CVT_URING_WRITEV = 2,
	CVT_URING_READ_FIXED = 4,
	CVT_URING_WRITE_FIXED = 5,
	CVT_URING_READ = 22,
	CVT_URING_WRITE = 23,
};

int cvt_op_dir(const struct reel_op *op, int count_submits)
{
	if (reel_op__is_read(op->type))
		return 'r';
	if (reel_op__is_write(op->type))
		return 'w';
	if (op->type == REEL_OP_AIO_COMPLETE || (count_submits && op->type == REEL_OP_AIO_SUBMIT)) {
		if (op->subop == CVT_IOCB_PREAD || op->subop == CVT_IOCB_PREADV)
			return 'r';
		if (op->subop == CVT_IOCB_PWRITE || op->subop == CVT_IOCB_PWRITEV)
			return 'w';
	}
	if (op->type == REEL_OP_URING_COMPLETE ||
	    (count_submits && op->type == REEL_OP_URING_SUBMIT)) {
		if (op->subop == CVT_URING_READV || op->subop == CVT_URING_READ_FIXED ||
		    op->subop == CVT_URING_READ)
			return 'r';
		if (op->subop == CVT_URING_WRITEV || op->subop == CVT_URING_WRITE_FIXED ||
		    op->subop == CVT_URING_WRITE)
			return 'w';
	}
	return 0;
}

int cvt_proc_fd(const char *s, uint32_t pid, const char **rest)
{
	unsigned long n;
	char *end;

	if (strncmp(s, "/proc/", 6))
		return -1;
	s += 6;
	if (!strncmp(s, "self/", 5)) {
		s += 5;
	} else if (!strncmp(s, "thread-self/", 12)) {
		s += 12;
	} else {
		n = strtoul(s, &end, 10);
		if (end == s || *end != '/' || n != pid)
			return -1;
		s = end + 1;
	}
	if (strncmp(s, "fd/", 3))
		return -1;
	s += 3;
	n = strtoul(s, &end, 10);
	if (end == s || (*end && *end != '/') || n > INT_MAX)
		return -1;
	*rest = end;
	return (int)n;
}

/* s starts with the component name: what follows it ("" or "/...") */
static const char *component(const char *s, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(s, name, n) && (s[n] == '/' || !s[n]) ? s + n : NULL;
}

/* N of "N" or "N/...": *rest after it; -1 when s is no such number */
static int fd_number(const char *s, const char **rest)
{
	unsigned long n;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || (*end && *end != '/') || n > INT_MAX)
		return -1;
	*rest = end;
	return (int)n;
}

enum cvt_link cvt_proc_link(const char *s, uint32_t pid, int *fd, const char **rest)
{
	static const char *const std[] = {"stdin", "stdout", "stderr"};
	const char *r;
	unsigned long n;
	char *end;

	if (!strncmp(s, "/dev/", 5)) {
		s += 5;
		for (int i = 0; i < 3; i++) {
			if ((r = component(s, std[i]))) {
				*fd = i;
				*rest = r;
				return CVT_LINK_FD;
			}
		}
		if (strncmp(s, "fd/", 3) || (*fd = fd_number(s + 3, rest)) < 0)
			return 0;
		return CVT_LINK_FD;
	}
	if (strncmp(s, "/proc/", 6))
		return 0;
	s += 6;
	if ((r = component(s, "self")) || (r = component(s, "thread-self"))) {
		s = r;
	} else {
		if (*s < '0' || *s > '9')
			return 0;
		n = strtoul(s, &end, 10);
		if (*end != '/' || (pid && n != pid))
			return 0;
		s = end;
	}
	if (*s++ != '/')
		return 0;
	if ((r = component(s, "cwd")) || (r = component(s, "root")) || (r = component(s, "exe"))) {
		*rest = r;
		return *s == 'c' ? CVT_LINK_CWD : *s == 'r' ? CVT_LINK_ROOT : CVT_LINK_EXE;
	}
	if (strncmp(s, "fd/", 3) || (*fd = fd_number(s + 3, rest)) < 0)
		return 0;
	return CVT_LINK_FD;
}

/*
 * Whether path's first len bytes are one of proc(5)'s magic links (cvt_proc_link, any pid):
 * a ".." after it climbs from the file the link stands for, which its name does not say.
 */
static int ends_in_magic_link(char *path, size_t len)
{
	const char *rest;
	char was = path[len];
	int fd, link;

	if (strncmp(path, "/proc/", 6) && strncmp(path, "/dev/", 5))
		return 0;
	path[len] = '\0';
	link = cvt_proc_link(path, 0, &fd, &rest) && !*rest;
	path[len] = was;
	return link;
}

void cvt_normalise_path(char *path)
{
	/* out never passes in: each component written takes no more than it read */
	char *out = path, *in = path, *floor = path; /* a ".." never takes out below floor */
	int linked = 0;

	if (*path != '/')
		return;
	while (*in) {
		char *end;
		size_t len;
		int dotdot;

		while (*in == '/')
			in++;
		if (!*in)
			break;
		end = strchr(in, '/');
		len = end ? (size_t)(end - in) : strlen(in);
		dotdot = len == 2 && in[0] == '.' && in[1] == '.';
		if (len == 1 && in[0] == '.') {
			/* skip */
		} else if (dotdot && (out > floor || !linked)) {
			while (out > floor && *--out != '/')
				;
		} else {
			/* a component, or a ".." climbing above a magic link: that one is kept, and
			 * kept from being taken out by a later ".." */
			*out++ = '/';
			memmove(out, in, len);
			out += len;
			if (dotdot || (!linked && ends_in_magic_link(path, (size_t)(out - path)))) {
				linked = 1;
				floor = out;
			}
		}
		in += len;
	}
	if (out == path)
		*out++ = '/';
	*out = '\0';
}
