/* SPDX-License-Identifier: MIT */
/*
 * replay_linkpath.c - symlink contents as path arithmetic, by name alone: where a content
 * leads from its link (replay_linkpath__resolve), and the content a symlink that was there
 * before the capture is prepared with under the target (replay_linkpath__disk). No file
 * system access: the file-set scan (replay_fileset.c) decides with these what to prepare.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "replay_int.h"

/* Resolves "..", "." and repeated slashes of an absolute path in place, by name alone; -1 when
 * it climbs above "/". */
static int lp__normalize(char *p)
{
	char out[PATH_MAX];
	size_t n = 0;

	for (const char *c = p, *e; *c; c = e) {
		while (*c == '/')
			c++;
		e = strchrnul(c, '/');
		if (e == c || (e - c == 1 && c[0] == '.'))
			continue;
		if (e - c == 2 && c[0] == '.' && c[1] == '.') {
			if (!n)
				return -1;
			while (out[n - 1] != '/')
				n--;
			n--;
			continue;
		}
		if (n + 1 + (size_t)(e - c) >= sizeof(out))
			return -1;
		out[n++] = '/';
		memcpy(out + n, c, (size_t)(e - c));
		n += (size_t)(e - c);
	}
	if (!n)
		out[n++] = '/';
	out[n] = '\0';
	memcpy(p, out, n + 1);
	return 0;
}

/* a ".." after a name: the kernel needs that name to be there, which resolving by name alone
 * would not prepare */
static int lp__climbs_back(const char *c)
{
	int named = 0;

	for (const char *e; *c; c = *e ? e + 1 : e) {
		e = strchrnul(c, '/');
		if (e - c == 2 && c[0] == '.' && c[1] == '.') {
			if (named)
				return 1;
		} else if (e > c && !(e - c == 1 && c[0] == '.')) {
			named = 1;
		}
	}
	return 0;
}

/*
 * Where a path at or below the symlink link leads: its relative content taken from the link's
 * directory, then rest. -1 for an absolute content unless abs (the replay refuses to follow
 * one the application made: it is made verbatim), one that climbs above "/", or back out of
 * a name it went into.
 */
int replay_linkpath__resolve(const char *link, const char *content, int abs, const char *rest,
			     char *out, size_t sz)
{
	const char *slash = strrchr(link, '/');
	int n;

	if (!content || (content[0] == '/' && !abs) || !slash || lp__climbs_back(content))
		return -1;
	if (content[0] == '/')
		n = snprintf(out, sz, "%s%s", content, rest);
	else
		n = snprintf(out, sz, "%.*s/%s%s", (int)(slash - link), link, content, rest);
	if (n < 0 || (size_t)n >= sz)
		return -1;
	return lp__normalize(out);
}

/* a ".." component: fs__add refuses such a path */
static int lp__climbs(const char *rel)
{
	for (const char *c = rel, *e; *c; c = *e ? e + 1 : e) {
		e = strchrnul(c, '/');
		if (e - c == 2 && c[0] == '.' && c[1] == '.')
			return 1;
	}
	return 0;
}

/*
 * The relative content that leads from directory dir (dirlen bytes, "" for the root) to dest,
 * both relative to one root and free of "." and "..": up to their last common directory, then
 * down. -1 when it does not fit.
 */
static int lp__between(const char *dir, size_t dirlen, const char *dest, char *out, size_t sz)
{
	size_t i = 0, c, ups = 0, o = 0;

	while (i < dirlen && dest[i] && dir[i] == dest[i])
		i++;
	if ((i == dirlen || dir[i] == '/') && (!dest[i] || dest[i] == '/'))
		c = i;
	else /* back to the last whole directory both share */
		for (c = i; c > 0 && dir[--c] != '/';)
			;
	for (size_t j = c; j < dirlen; j++)
		ups += dir[j] != '/' && (j == 0 || dir[j - 1] == '/');
	dest += c;
	while (*dest == '/')
		dest++;
	if (ups * 3 + strlen(dest) + 2 > sz)
		return -1;
	for (; ups; ups--, o += 3)
		memcpy(out + o, "../", 3);
	strcpy(out + o, dest);
	o += strlen(dest);
	if (o && out[o - 1] == '/')
		out[--o] = '\0';
	if (!o)
		strcpy(out, ".");
	return 0;
}

/*
 * The content a symlink that was there before the capture is prepared with (into out), so
 * that under the target it leads where the original led (dest, replay_linkpath__resolve's, by
 * name), mapped. The content read is kept verbatim when it does so already: readlink then returns
 * what it returned. Otherwise (an absolute content; a --map that put the link and its
 * destination apart) it is rewritten as the relative path from the link's directory to the
 * destination, when both lie under one root. Why: RESOLVE_BENEATH refuses to follow an
 * absolute symlink (EXDEV), and a verbatim relative one would lead out of the root or to the
 * wrong place; a different content is the least loss. readlink then returns another length,
 * which the replay does not count as a differing outcome (worker__check compares successes
 * and errnos, lengths only of data ops): the summary says 0 for it, and the manifest shows the
 * rewritten content. Under different roots no content leads from one to the other beneath
 * both: -1, and the link is prepared as without its content (a stand-in, or what it led to).
 */
int replay_linkpath__disk(const struct replay_mapper *m, const char *link, const char *content,
			  const char *dest, char *out, size_t sz)
{
	char l[PATH_MAX], d[PATH_MAX], naive[PATH_MAX];
	const char *slash;
	size_t dirlen;
	int lroot, droot, n;

	if (replay_path__is_nonfile(dest) || replay_mapper__overlaps(m, dest) ||
	    replay_mapper__map(m, link, &lroot, l, sizeof(l)) ||
	    replay_mapper__map(m, dest, &droot, d, sizeof(d)) || lroot != droot ||
	    !strcmp(l, ".") || lp__climbs(l) || lp__climbs(d))
		return -1;
	if (!strcmp(d, "."))
		d[0] = '\0';
	slash = strrchr(l, '/');
	dirlen = slash ? (size_t)(slash - l) : 0;
	if (content[0] != '/') {
		n = snprintf(naive, sizeof(naive), "/%.*s/%s", (int)dirlen, l, content);
		if (n > 0 && (size_t)n < sizeof(naive) && !lp__normalize(naive) &&
		    !strcmp(naive + 1, d) && strlen(content) < sz) {
			strcpy(out, content);
			return 0;
		}
	}
	return lp__between(l, dirlen, d, out, sz);
}
