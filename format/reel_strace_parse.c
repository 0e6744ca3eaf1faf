/* SPDX-License-Identifier: MIT */
/*
 * reel_strace_parse.c - lexing strace's output (see reel_strace_parse.h). strace prints C:
 * strings in double quotes with C escapes, structs in braces, arrays in brackets, and with
 * -y an fd's path in angle brackets right after the number (-yy nests "<char 1:3>" in it).
 * The scanner tracks those groups so that commas and parentheses inside them are data.
 *
 * The symbol tables hold the x86-64 values (the traces we import come from Linux on x86-64
 * and arm64, whose generic values match for every flag below except the O_* ones marked).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "reel_cvt_util.h"
#include "reel_strace_parse.h"

static char *stl_skip_space(char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static int stl_digits(const char *p, int n)
{
	for (int i = 0; i < n; i++)
		if (!isdigit((unsigned char)p[i]))
			return 0;
	return 1;
}

#define STL_DAY_NS (86400ULL * 1000000000ULL)

/* -ttt "SECONDS.FRACTION" (since the epoch), or -tt "HH:MM:SS.FRACTION" (*tod set) */
static int stl_parse_ts(char **pp, uint64_t *ns, int *tod)
{
	char *p = *pp;
	uint64_t sec = 0, frac = 0;
	int digits = 0;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	*tod = stl_digits(p, 2) && p[2] == ':' && stl_digits(p + 3, 2) && p[5] == ':' &&
	       stl_digits(p + 6, 2) && p[8] == '.';
	if (*tod) {
		sec = (uint64_t)((p[0] - '0') * 10 + (p[1] - '0')) * 3600 +
		      (uint64_t)((p[3] - '0') * 10 + (p[4] - '0')) * 60 +
		      (uint64_t)((p[6] - '0') * 10 + (p[7] - '0'));
		p += 8;
	} else {
		while (isdigit((unsigned char)*p))
			sec = sec * 10 + (uint64_t)(*p++ - '0');
	}
	if (*p != '.')
		return -EINVAL;
	p++;
	while (isdigit((unsigned char)*p)) {
		if (digits < 9) {
			frac = frac * 10 + (uint64_t)(*p - '0');
			digits++;
		}
		p++;
	}
	if (!digits || (*p != ' ' && *p != '\t'))
		return -EINVAL;
	while (digits++ < 9)
		frac *= 10;
	*ns = sec * 1000000000ULL + frac;
	*pp = stl_skip_space(p);
	return 0;
}

/* What follows a line's pid column when it has no usable time stamp: a call, "+++", "---",
 * "<... NAME resumed>", or -t's whole seconds ("12:34:56 "). */
static int stl_untimed(const char *p)
{
	const char *q = p;

	if (!strncmp(p, "+++ ", 4) || !strncmp(p, "--- ", 4) || !strncmp(p, "<... ", 5))
		return 1;
	if (stl_digits(p, 2) && p[2] == ':' && stl_digits(p + 3, 2) && p[5] == ':' &&
	    stl_digits(p + 6, 2) && (p[8] == ' ' || p[8] == '\t'))
		return 1;
	while (isalnum((unsigned char)*q) || *q == '_')
		q++;
	return q != p && !isdigit((unsigned char)*p) && *q == '(';
}

void stl_parse_line(char *line, struct stl_line *l, struct stl_clock *ck)
{
	size_t n = strlen(line);
	char *p, *q;
	static const char unfinished[] = " <unfinished ...>";

	memset(l, 0, sizeof(*l));
	l->pid = -1;
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = 0;
	p = stl_skip_space(line);
	if (!*p || !strncmp(p, "strace: ", 8)) {
		l->kind = STL_BLANK;
		return;
	}
	if (!strncmp(p, "[pid ", 5)) {
		l->pid = strtol(p + 5, &q, 10);
		if (*q != ']') {
			l->kind = STL_BAD;
			return;
		}
		p = stl_skip_space(q + 1);
	} else {
		/* "1234 1700000000.5 ..." (-o / -ff): the pid is digits followed by a space */
		q = p;
		while (isdigit((unsigned char)*q))
			q++;
		if (q != p && (*q == ' ' || *q == '\t')) {
			l->pid = strtol(p, NULL, 10);
			p = stl_skip_space(q);
		}
	}
	if (stl_parse_ts(&p, &l->ts_ns, &l->tod)) {
		l->kind = STL_BAD;
		l->untimed = stl_untimed(p);
		return;
	}
	if (l->tod) {
		l->ts_ns += ck->day_ns;
		if (l->ts_ns + STL_DAY_NS / 2 < ck->last_ns) {
			ck->day_ns += STL_DAY_NS; /* past midnight */
			l->ts_ns += STL_DAY_NS;
		}
		if (l->ts_ns > ck->last_ns)
			ck->last_ns = l->ts_ns;
	}
	if (!strncmp(p, "+++ ", 4)) {
		l->kind = STL_EXIT;
		l->text = p;
		return;
	}
	if (!strncmp(p, "--- ", 4)) {
		l->kind = STL_SIGNAL;
		return;
	}
	if (!strncmp(p, "<... ", 5)) {
		char *e = strstr(p, " resumed>");
		size_t len;

		if (!e) {
			l->kind = STL_BAD;
			return;
		}
		len = (size_t)(e - (p + 5));
		if (len >= sizeof(l->name))
			len = sizeof(l->name) - 1;
		memcpy(l->name, p + 5, len);
		l->name[len] = 0;
		l->text = e + strlen(" resumed>");
		l->kind = STL_RESUMED;
		return;
	}
	n = strlen(p);
	if (n >= sizeof(unfinished) - 1 && !strcmp(p + n - (sizeof(unfinished) - 1), unfinished)) {
		p[n - (sizeof(unfinished) - 1)] = 0;
		l->text = p;
		l->kind = STL_UNFINISHED;
		return;
	}
	/* a thread's execve left open as the kernel gave it the tgid's id (strace -ff always,
	 * -f when no other line came between): "execve(...) <pid changed to TGID ...>"; it
	 * resumes as the tgid, after "+++ superseded by execve in pid TID +++" */
	q = strstr(p, " <pid changed to ");
	if (q && n >= 5 && !strcmp(p + n - 5, " ...>") && !strchr(q + 2, '<')) {
		*q = 0;
		l->text = p;
		l->kind = STL_UNFINISHED;
		return;
	}
	if (!strchr(p, '(')) {
		l->kind = STL_BAD;
		return;
	}
	l->text = p;
	l->kind = STL_CALL;
}

static int stl_hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Unescapes C escapes from p up to (not including) an unescaped stop char; returns the end. */
static char *stl_unescape(char *p, char stop, char *dst)
{
	while (*p && *p != stop) {
		if (*p != '\\') {
			*dst++ = *p++;
			continue;
		}
		p++;
		switch (*p) {
		case 'n':
			*dst++ = '\n';
			p++;
			break;
		case 't':
			*dst++ = '\t';
			p++;
			break;
		case 'r':
			*dst++ = '\r';
			p++;
			break;
		case 'v':
			*dst++ = '\v';
			p++;
			break;
		case 'f':
			*dst++ = '\f';
			p++;
			break;
		case 'x': {
			int v = 0, k = 0;

			p++;
			while (k < 2 && stl_hex(*p) >= 0) {
				v = v * 16 + stl_hex(*p++);
				k++;
			}
			*dst++ = (char)v;
			break;
		}
		case '0' ... '7': {
			int v = 0, k = 0;

			while (k < 3 && *p >= '0' && *p <= '7') {
				v = v * 8 + (*p++ - '0');
				k++;
			}
			*dst++ = (char)v;
			break;
		}
		case 0:
			break;
		default:
			*dst++ = *p++;
		}
	}
	*dst = 0;
	return p;
}

/* p at '<': returns the char after the matching '>' (escapes and nesting honoured). */
static char *stl_skip_angle(char *p)
{
	int depth = 0;

	for (; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			continue;
		}
		if (*p == '<')
			depth++;
		else if (*p == '>' && --depth == 0)
			return p + 1;
	}
	return p;
}

static char *stl_skip_string(char *p)
{
	for (p++; *p && *p != '"'; p++)
		if (*p == '\\' && p[1])
			p++;
	return *p ? p + 1 : p;
}

char *stl_annotation(char *ann, int *kind_hint)
{
	/* ann points inside '<' ... '>' (the outer pair already removed by the caller) */
	char *nest = NULL;

	*kind_hint = 0;
	for (char *p = ann; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			continue;
		}
		if (*p == '<') {
			nest = p;
			break;
		}
	}
	if (nest) {
		if (!strncmp(nest + 1, "char ", 5))
			*kind_hint = 'c';
		else if (!strncmp(nest + 1, "block ", 6))
			*kind_hint = 'b';
		*nest = 0;
	}
	stl_unescape(ann, 0, ann);
	return ann;
}

/* At '<' in s: cuts the group out, returns its inner text (not yet unescaped). */
static char *stl_take_angle(char *s)
{
	char *end = stl_skip_angle(s);

	if (end > s + 1 && end[-1] == '>')
		end[-1] = 0;
	return s + 1;
}

int stl_fd_arg(char *arg, int *fd, char **ann, int *kind_hint)
{
	char *p = arg;

	*ann = NULL;
	*kind_hint = 0;
	if (!strncmp(p, "AT_FDCWD", 8)) {
		*fd = -100;
		p += 8;
	} else {
		char *e;
		long v;

		errno = 0;
		v = strtol(p, &e, 10);
		if (e == p)
			return -EINVAL;
		/* no fd is beyond an int: 99999999999 is no fd, not 1215752191 */
		if (errno == ERANGE || v < INT_MIN || v > INT_MAX)
			return -ERANGE;
		*fd = (int)v;
		p = e;
	}
	if (*p == '<')
		*ann = stl_annotation(stl_take_angle(p), kind_hint);
	return 0;
}

char *stl_str_arg(char *arg)
{
	if (*arg != '"')
		return NULL;
	stl_unescape(arg + 1, '"', arg);
	return arg;
}

int64_t stl_int_arg(const char *arg)
{
	return strtoll(arg, NULL, 0);
}

uint64_t stl_flags_arg(const char *arg, const struct stl_sym *tab)
{
	uint64_t v = 0;
	const char *p = arg;

	while (*p && *p != ',' && *p != '}' && *p != ']' && *p != ')') {
		const char *e = p;
		size_t len;

		while (*e && *e != '|' && *e != ',' && *e != '}' && *e != ']' && *e != ')' &&
		       *e != ' ')
			e++;
		len = (size_t)(e - p);
		if (isdigit((unsigned char)*p)) {
			v |= strtoull(p, NULL, 0);
		} else {
			for (const struct stl_sym *s = tab; s->name; s++) {
				if (strlen(s->name) == len && !strncmp(s->name, p, len)) {
					v |= s->val;
					break;
				}
			}
		}
		p = e;
		while (*p == '|' || *p == ' ')
			p++;
	}
	return v;
}

const char *stl_field(const char *s, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = strstr(s, key); p; p = strstr(p + 1, key)) {
		if ((p == s || p[-1] == '{' || p[-1] == ' ' || p[-1] == ',') && p[kl] == '=')
			return p + kl + 1;
	}
	return NULL;
}

/*
 * Whether a top-level argument that is a number is one strace could print: a decimal fits 64
 * bits signed (offsets, counts and fds are printed so: 2^64-1 would be -1), a hex one 64 bits,
 * an fd with its -y annotation ("3</f>") an int. Not a number: nothing to check.
 */
static int stl_number_fits(const char *arg)
{
	const char *p = arg + (*arg == '-');
	long long v;
	char *e;

	if (!isdigit((unsigned char)*p))
		return 1;
	errno = 0;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		(void)strtoull(p, &e, 16);
		return errno != ERANGE;
	}
	v = strtoll(arg, &e, 10);
	if (errno == ERANGE)
		return 0;
	return *e != '<' || (v >= INT_MIN && v <= INT_MAX);
}

int stl_parse_call(char *text, struct stl_call *c)
{
	char *p = text, *arg, *e;
	int depth = 0;
	size_t n;

	memset(c, 0, sizeof(*c));
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	if (*p != '(' || p == text || (size_t)(p - text) >= sizeof(c->name))
		return -EINVAL;
	memcpy(c->name, text, (size_t)(p - text));
	arg = ++p;
	for (;;) {
		if (!*p)
			return -EINVAL;
		if (*p == '"') {
			p = stl_skip_string(p);
			continue;
		}
		if (*p == '<') {
			p = stl_skip_angle(p);
			continue;
		}
		if (*p == '(' || *p == '[' || *p == '{') {
			depth++;
		} else if (*p == ']' || *p == '}' || (*p == ')' && depth)) {
			depth--;
		} else if ((*p == ',' || *p == ')') && !depth) {
			int last = *p == ')';

			*p = 0;
			arg = stl_skip_space(arg);
			for (e = p; e > arg && (e[-1] == ' ' || e[-1] == '\t'); e--)
				e[-1] = 0;
			if (!stl_number_fits(arg))
				return -ERANGE;
			if (*arg || c->nargs)
				if (c->nargs < STC_MAX_ARGS)
					c->args[c->nargs++] = arg;
			arg = ++p;
			if (last)
				break;
			continue;
		}
		p++;
	}
	p = stl_skip_space(p);
	if (*p != '=')
		return -EINVAL;
	p = stl_skip_space(p + 1);
	if (*p == '?') {
		p++;
	} else {
		errno = 0;
		c->ret = strtoll(p, &e, 0);
		if (e == p)
			return -EINVAL;
		if (errno == ERANGE)
			return -ERANGE;
		c->ret_known = 1;
		p = e;
		if (*p == '<') {
			char *end = stl_skip_angle(p);
			char save = *end;

			*end = 0;
			c->ret_ann = stl_annotation(stl_take_angle(p), &c->ret_kind_hint);
			*end = save;
			p = end;
		}
		p = stl_skip_space(p);
		if (c->ret < 0 && *p == 'E') {
			char name[40];
			size_t k = 0;

			while ((isupper((unsigned char)p[k]) || isdigit((unsigned char)p[k]) ||
				p[k] == '_') &&
			       k < sizeof(name) - 1) {
				name[k] = p[k];
				k++;
			}
			name[k] = 0;
			int err = cvt_errno_from_name(name);

			if (err)
				c->ret = -err;
			p += k;
		}
	}
	/* -T: the last "<digits.digits>" of the line */
	n = strlen(p);
	if (n && p[n - 1] == '>') {
		char *lt = strrchr(p, '<');

		if (lt && isdigit((unsigned char)lt[1])) {
			char *q = lt + 1;
			uint64_t sec = strtoull(q, &q, 10), frac = 0;
			int digits = 0;

			if (*q == '.') {
				for (q++; isdigit((unsigned char)*q); q++)
					if (digits < 9) {
						frac = frac * 10 + (uint64_t)(*q - '0');
						digits++;
					}
				while (digits++ < 9)
					frac *= 10;
				if (*q == '>') {
					c->has_dur = 1;
					c->dur_ns = sec * 1000000000ULL + frac;
				}
			}
		}
	}
	return 0;
}

/* The tables read better as tables. */
/* clang-format off */
#define SYM(x, v) { #x, v }

const struct stl_sym stl_open_flags[] = {
	SYM(O_RDONLY, 0),	   SYM(O_WRONLY, 01),	       SYM(O_RDWR, 02),
	SYM(O_CREAT, 0100),	   SYM(O_EXCL, 0200),	       SYM(O_NOCTTY, 0400),
	SYM(O_TRUNC, 01000),	   SYM(O_APPEND, 02000),       SYM(O_NONBLOCK, 04000),
	SYM(O_NDELAY, 04000),	   SYM(O_DSYNC, 010000),       SYM(O_ASYNC, 020000),
	SYM(O_DIRECT, 040000),	   SYM(O_LARGEFILE, 0100000), SYM(O_DIRECTORY, 0200000),
	SYM(O_NOFOLLOW, 0400000),  SYM(O_NOATIME, 01000000),   SYM(O_CLOEXEC, 02000000),
	SYM(O_SYNC, 04010000),	   SYM(O_RSYNC, 04010000),     SYM(O_PATH, 010000000),
	SYM(O_TMPFILE, 020200000), SYM(FD_CLOEXEC, 1),	       { NULL, 0 },
};

const struct stl_sym stl_at_flags[] = {
	SYM(AT_SYMLINK_NOFOLLOW, 0x100), SYM(AT_REMOVEDIR, 0x200),
	SYM(AT_EACCESS, 0x200),		 SYM(AT_SYMLINK_FOLLOW, 0x400),
	SYM(AT_NO_AUTOMOUNT, 0x800),	 SYM(AT_EMPTY_PATH, 0x1000),
	SYM(AT_STATX_SYNC_AS_STAT, 0),	 SYM(AT_STATX_FORCE_SYNC, 0x2000),
	SYM(AT_STATX_DONT_SYNC, 0x4000), SYM(AT_RECURSIVE, 0x8000),
	{ NULL, 0 },
};

/* statx's mask (linux/stat.h); strace prints the composite names when all bits are there */
const struct stl_sym stl_statx_mask[] = {
	SYM(STATX_BASIC_STATS, 0x7ff), SYM(STATX_ALL, 0xfff),	 SYM(STATX_TYPE, 0x1),
	SYM(STATX_MODE, 0x2),	       SYM(STATX_NLINK, 0x4),	 SYM(STATX_UID, 0x8),
	SYM(STATX_GID, 0x10),	       SYM(STATX_ATIME, 0x20),	 SYM(STATX_MTIME, 0x40),
	SYM(STATX_CTIME, 0x80),	       SYM(STATX_INO, 0x100),	 SYM(STATX_SIZE, 0x200),
	SYM(STATX_BLOCKS, 0x400),      SYM(STATX_BTIME, 0x800),	 SYM(STATX_MNT_ID, 0x1000),
	SYM(STATX_DIOALIGN, 0x2000),   SYM(STATX_MNT_ID_UNIQUE, 0x4000),
	SYM(STATX_SUBVOL, 0x8000),     { NULL, 0 },
};

const struct stl_sym stl_rwf_flags[] = {
	SYM(RWF_HIPRI, 1), SYM(RWF_DSYNC, 2),	 SYM(RWF_SYNC, 4),
	SYM(RWF_NOWAIT, 8), SYM(RWF_APPEND, 0x10), { NULL, 0 },
};

const struct stl_sym stl_seek[] = {
	SYM(SEEK_SET, 0), SYM(SEEK_CUR, 1), SYM(SEEK_END, 2),
	SYM(SEEK_DATA, 3), SYM(SEEK_HOLE, 4), { NULL, 0 },
};

const struct stl_sym stl_sfr_flags[] = {
	SYM(SYNC_FILE_RANGE_WAIT_BEFORE, 1),
	SYM(SYNC_FILE_RANGE_WRITE, 2),
	SYM(SYNC_FILE_RANGE_WAIT_AFTER, 4),
	{ NULL, 0 },
};

const struct stl_sym stl_fadv[] = {
	SYM(POSIX_FADV_NORMAL, 0),   SYM(POSIX_FADV_RANDOM, 1),	  SYM(POSIX_FADV_SEQUENTIAL, 2),
	SYM(POSIX_FADV_WILLNEED, 3), SYM(POSIX_FADV_DONTNEED, 4), SYM(POSIX_FADV_NOREUSE, 5),
	{ NULL, 0 },
};

const struct stl_sym stl_falloc[] = {
	SYM(FALLOC_FL_KEEP_SIZE, 1),	  SYM(FALLOC_FL_PUNCH_HOLE, 2),
	SYM(FALLOC_FL_NO_HIDE_STALE, 4),  SYM(FALLOC_FL_COLLAPSE_RANGE, 8),
	SYM(FALLOC_FL_ZERO_RANGE, 0x10),  SYM(FALLOC_FL_INSERT_RANGE, 0x20),
	SYM(FALLOC_FL_UNSHARE_RANGE, 0x40), { NULL, 0 },
};

const struct stl_sym stl_prot[] = {
	SYM(PROT_NONE, 0), SYM(PROT_READ, 1), SYM(PROT_WRITE, 2), SYM(PROT_EXEC, 4), { NULL, 0 },
};

const struct stl_sym stl_map_flags[] = {
	SYM(MAP_SHARED, 1),	   SYM(MAP_PRIVATE, 2),	      SYM(MAP_SHARED_VALIDATE, 3),
	SYM(MAP_FIXED, 0x10),	   SYM(MAP_ANONYMOUS, 0x20),  SYM(MAP_32BIT, 0x40),
	SYM(MAP_GROWSDOWN, 0x100), SYM(MAP_DENYWRITE, 0x800), SYM(MAP_EXECUTABLE, 0x1000),
	SYM(MAP_LOCKED, 0x2000),   SYM(MAP_NORESERVE, 0x4000), SYM(MAP_POPULATE, 0x8000),
	SYM(MAP_NONBLOCK, 0x10000), SYM(MAP_STACK, 0x20000),  SYM(MAP_HUGETLB, 0x40000),
	SYM(MAP_SYNC, 0x80000),	   SYM(MAP_FIXED_NOREPLACE, 0x100000), { NULL, 0 },
};

const struct stl_sym stl_ms_flags[] = {
	SYM(MS_ASYNC, 1), SYM(MS_INVALIDATE, 2), SYM(MS_SYNC, 4), { NULL, 0 },
};

const struct stl_sym stl_rename_flags[] = {
	SYM(RENAME_NOREPLACE, 1), SYM(RENAME_EXCHANGE, 2), SYM(RENAME_WHITEOUT, 4), { NULL, 0 },
};

const struct stl_sym stl_access_modes[] = {
	SYM(F_OK, 0), SYM(X_OK, 1), SYM(W_OK, 2), SYM(R_OK, 4), { NULL, 0 },
};

/* fcntl's record-lock commands. strace prints the *64 names for fcntl64 on 32-bit ABIs (12-14
 * there): the same requests, recorded with the plain commands' numbers (FORMAT.md) */
const struct stl_sym stl_lock_cmds[] = {
	SYM(F_GETLK, 5),	SYM(F_SETLK, 6),	 SYM(F_SETLKW, 7),
	SYM(F_GETLK64, 5),	SYM(F_SETLK64, 6),	 SYM(F_SETLKW64, 7),
	SYM(F_OFD_GETLK, 36),	SYM(F_OFD_SETLK, 37),	 SYM(F_OFD_SETLKW, 38),
	{ NULL, 0 },
};

const struct stl_sym stl_lock_types[] = {
	SYM(F_RDLCK, 0), SYM(F_WRLCK, 1), SYM(F_UNLCK, 2), { NULL, 0 },
};

const struct stl_sym stl_flock_ops[] = {
	SYM(LOCK_SH, 1), SYM(LOCK_EX, 2), SYM(LOCK_NB, 4), SYM(LOCK_UN, 8), { NULL, 0 },
};

/* the clone flags the importer acts on: a thread, or a process sharing its parent's fds */
const struct stl_sym stl_clone_flags[] = {
	SYM(CLONE_FILES, 0x400), SYM(CLONE_THREAD, 0x10000), { NULL, 0 },
};

const struct stl_sym stl_iocb_cmds[] = {
	SYM(IOCB_CMD_PREAD, 0), SYM(IOCB_CMD_PWRITE, 1), SYM(IOCB_CMD_FSYNC, 2),
	SYM(IOCB_CMD_FDSYNC, 3), SYM(IOCB_CMD_POLL, 5), SYM(IOCB_CMD_NOOP, 6),
	SYM(IOCB_CMD_PREADV, 7), SYM(IOCB_CMD_PWRITEV, 8), { NULL, 0 },
};
/* clang-format on */
