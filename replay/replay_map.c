/* SPDX-License-Identifier: MIT */
/*
 * replay_map.c - where a traced path is replayed, and opening it without ever leaving the
 * target.
 *
 * Mapping (documented in "ioreel replay --help"): a traced path P goes to TARGET/P (leading
 * slashes stripped) unless a --map rule matches; rules are tried in command-line order and
 * the first match wins.
 *   prefix  FROM=TO  (FROM has no * ? [): P == FROM or P below FROM  ->  TO/<P minus FROM>
 *   glob    PAT=TO   (fnmatch, '*' also matches '/'; a trailing "/ *" is ignored): the
 *           shortest leading part D of P (whole components) that PAT matches is replaced by
 *           TO: P = D/rest -> TO/rest; when D is P itself (a file pattern such as "*.tmp"),
 *           the file goes to TO/<basename>, unless the trace has paths below P (learnt
 *           before any path is mapped): then P is a directory, and TO itself.
 * Every TO is a root like the target: it must not be "/", nor inside or around another root.
 *
 * Safety: every root is opened once as an O_PATH directory fd, and every path operation is
 * relative to it: opens with openat2(RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS), and the *at
 * calls on a parent directory fd obtained the same way. The kernel then refuses "..", absolute
 * symlinks and symlinks leading out (EXDEV), whatever the trace or the target contain.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "replay_int.h"

static int path_is_below(const char *p, const char *dir)
{
	size_t n = strlen(dir);

	if (!strcmp(dir, "/"))
		return 1;
	return !strncmp(p, dir, n) && (p[n] == '/' || p[n] == '\0');
}

/*
 * dir as an absolute path without ".", ".." and repeated slashes, symlinks resolved where it
 * exists (realpath), else where its parent does: a target is often made by the replay.
 */
static int target__canon(const char *dir, char *out, size_t size)
{
	char abs[PATH_MAX], *save = NULL, *c;
	size_t len = 0;

	if (realpath(dir, out))
		return 0;
	if (dir[0] == '/')
		snprintf(abs, sizeof(abs), "%s", dir);
	else if (!getcwd(abs, sizeof(abs)) ||
		 snprintf(abs + strlen(abs), sizeof(abs) - strlen(abs), "/%s", dir) >=
		     (int)(sizeof(abs) - strlen(abs)))
		return -ENAMETOOLONG;
	out[0] = '\0';
	for (c = strtok_r(abs, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {
			char *slash = strrchr(out, '/');

			len = slash ? (size_t)(slash - out) : 0;
			out[len] = '\0';
			continue;
		}
		if (len + 1 + strlen(c) >= size)
			return -ENAMETOOLONG;
		len += (size_t)sprintf(out + len, "/%s", c);
		/* the part that exists, with its symlinks resolved */
		char real[PATH_MAX];
		if (realpath(out, real) && strlen(real) < size) {
			strcpy(out, real);
			len = strcmp(real, "/") ? strlen(real) : 0;
			out[len] = '\0';
		}
	}
	if (!len)
		strcpy(out, "/");
	return 0;
}

int replay_targets__check(const char *const *dirs, size_t n)
{
	char (*canon)[PATH_MAX] = calloc(n ? n : 1, PATH_MAX);

	if (!canon)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (target__canon(dirs[i], canon[i], PATH_MAX)) {
			replay_set_error("cannot resolve target %s: path too long", dirs[i]);
			free(canon);
			return -ENAMETOOLONG;
		}
		for (size_t j = 0; j < i; j++) {
			if (strcmp(canon[i], canon[j]) && (path_is_below(canon[i], canon[j]) ||
							   path_is_below(canon[j], canon[i]))) {
				replay_set_error("refusing nested targets %s and %s: preparing one "
						 "would wipe the other; use separate directories",
						 dirs[j], dirs[i]);
				free(canon);
				return -EINVAL;
			}
		}
	}
	free(canon);
	return 0;
}

/*
 * Held for as long as the replay uses the target: two replays in one target wipe, prepare and
 * change each other's files (one of them found its WAL gone: 657 of 1,341 ops measured, 42
 * more failures, and nothing said why). flock, not a file: it goes with the process.
 */
static int root__lock(const char *real)
{
	int fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		replay_set_error("cannot open target %s: %s", real, strerror(errno));
		return -errno;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int e = errno;

		close(fd);
		if (e == EWOULDBLOCK) {
			replay_set_error("target %s is in use by another replay: replays sharing a "
					 "target change each other's files (wait for it, or use "
					 "another directory)",
					 real);
			return -EBUSY;
		}
		replay_set_error("cannot lock target %s: %s", real, strerror(e));
		return -e;
	}
	return fd;
}

/*
 * dir and its missing parents, mode 0755, as mkdir -p makes them (--map '*.wal=/dev/shm/a/wal'
 * with no /dev/shm/a); *made: the length of the shallowest one made, 0 when none (root__unmake)
 */
static int root__make(const char *dir, size_t *made)
{
	char buf[PATH_MAX];

	*made = 0;
	if (strlen(dir) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, dir);
	for (char *p = buf + 1;; p++) {
		char c = *p;

		if (c && c != '/')
			continue;
		*p = '\0';
		if (!mkdir(buf, 0755)) {
			if (!*made)
				*made = (size_t)(p - buf);
		} else if (errno != EEXIST) {
			return -errno; /* one that is there but no directory: ENOTDIR below it */
		}
		*p = c;
		if (!c)
			return 0;
	}
}

/* removes what root__make made of dir for a target then refused: nothing is left behind */
static void root__unmake(const char *dir, size_t made)
{
	char buf[PATH_MAX], *slash;

	if (!made || strlen(dir) >= sizeof(buf))
		return;
	strcpy(buf, dir);
	while (strlen(buf) >= made && !rmdir(buf) && (slash = strrchr(buf, '/')) && slash != buf)
		*slash = '\0';
}

static int root__add_(struct replay_mapper *m, const char *dir, size_t *made)
{
	char real[PATH_MAX];
	struct stat st;
	int i, fd, lockfd, err;

	if (stat(dir, &st) < 0) {
		err = errno == ENOENT ? root__make(dir, made) : -errno;
		if (err) {
			replay_set_error("cannot create target %s: %s", dir, strerror(-err));
			return err;
		}
	} else if (!S_ISDIR(st.st_mode)) {
		replay_set_error("target %s is not a directory", dir);
		return -ENOTDIR;
	}
	if (!realpath(dir, real)) {
		replay_set_error("cannot resolve target %s: %s", dir, strerror(errno));
		return -errno;
	}
	if (!strcmp(real, "/")) {
		replay_set_error("refusing target %s: it is the root directory, the replay would "
				 "write onto the traced paths themselves",
				 dir);
		return -EPERM;
	}
	for (i = 0; i < m->n_roots; i++) {
		if (!strcmp(m->roots[i].dir, real))
			return i;
		if (path_is_below(real, m->roots[i].dir) || path_is_below(m->roots[i].dir, real)) {
			replay_set_error(
			    "refusing nested targets %s and %s: use separate directories",
			    m->roots[i].dir, real);
			return -EINVAL;
		}
	}
	if (m->n_roots == REPLAY_MAX_ROOTS) {
		replay_set_error("too many --map targets (max %d)", REPLAY_MAX_ROOTS - 1);
		return -E2BIG;
	}
	fd = open(real, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		replay_set_error("cannot open target %s: %s", real, strerror(errno));
		return -errno;
	}
	lockfd = root__lock(real);
	if (lockfd < 0) {
		close(fd);
		return lockfd;
	}
	m->roots[m->n_roots].dir = strdup(real);
	m->roots[m->n_roots].fd = fd;
	m->roots[m->n_roots].lockfd = lockfd;
	return m->n_roots++;
}

static int root__add(struct replay_mapper *m, const char *dir)
{
	size_t made = 0;
	int r = root__add_(m, dir, &made);

	if (r < 0)
		root__unmake(dir, made);
	else if (made && r == m->n_roots - 1 && !m->roots[r].made_dir) {
		m->roots[r].made_dir = strdup(dir);
		m->roots[r].made = made;
	}
	return r;
}

void replay_mapper__unmake(struct replay_mapper *m)
{
	for (int i = 0; i < m->n_roots; i++)
		if (m->roots[i].made_dir)
			root__unmake(m->roots[i].made_dir, m->roots[i].made);
}

int replay_mapper__init(struct replay_mapper *m, const char *target,
			const struct replay_map_rule *rules, size_t n_rules)
{
	int r;

	memset(m, 0, sizeof(*m));
	r = root__add(m, target);
	if (r < 0)
		return r;
	m->rules = calloc(n_rules ? n_rules : 1, sizeof(*m->rules));
	if (!m->rules)
		return -ENOMEM;
	for (size_t i = 0; i < n_rules; i++) {
		struct replay_rule *rl = &m->rules[i];
		size_t n;

		rl->from = strdup(rules[i].from);
		rl->glob = strpbrk(rl->from, "*?[") != NULL;
		n = strlen(rl->from);
		if (rl->glob && n > 2 && !strcmp(rl->from + n - 2, "/*"))
			n -= 2;
		while (!rl->glob && n > 1 && rl->from[n - 1] == '/')
			n--;
		rl->from[n] = '\0';
		rl->from_len = n;
		if (!rl->glob && rl->from[0] != '/') {
			replay_set_error("--map %s: FROM must be an absolute path or a pattern",
					 rules[i].from);
			m->n_rules = i + 1;
			return -EINVAL;
		}
		m->n_rules = i + 1;
		r = root__add(m, rules[i].to);
		if (r < 0)
			return r;
		rl->root = r;
	}
	return 0;
}

void replay_mapper__free(struct replay_mapper *m)
{
	for (int i = 0; i < m->n_roots; i++) {
		close(m->roots[i].fd);
		close(m->roots[i].lockfd);
		free(m->roots[i].dir);
		free(m->roots[i].made_dir);
	}
	for (size_t i = 0; i < m->n_rules; i++) {
		free(m->rules[i].from);
		replay_strset__free(&m->rules[i].dirs);
	}
	free(m->rules);
	memset(m, 0, sizeof(*m));
}

static int rel__set(char *rel, size_t relsz, const char *s)
{
	while (*s == '/')
		s++;
	if (!*s)
		s = ".";
	if (strlen(s) >= relsz)
		return -ENAMETOOLONG;
	strcpy(rel, s);
	/* trailing slashes would leave an empty last component */
	for (size_t n = strlen(rel); n > 1 && rel[n - 1] == '/'; n--)
		rel[n - 1] = '\0';
	return 0;
}

/*
 * Whether rule rl maps p, and the part of p after what it matched (rest: "" for the root
 * itself). A glob matches the shortest leading part of p that it can; a match of the whole
 * of p sends a file to TO/<basename> ("*.tmp"), a directory learnt to have paths below it
 * to TO itself.
 */
static int rule__match(const struct replay_rule *rl, const char *p, const char **rest)
{
	char buf[PATH_MAX];
	size_t n = strlen(p);

	if (!rl->glob) {
		if (rl->from_len == 1 && rl->from[0] == '/') {
			*rest = p;
			return 1;
		}
		if (strncmp(p, rl->from, rl->from_len) ||
		    (p[rl->from_len] != '/' && p[rl->from_len] != '\0'))
			return 0;
		*rest = p + rl->from_len;
		return 1;
	}
	if (n >= sizeof(buf))
		return 0;
	for (size_t i = 1; i <= n; i++) {
		if (i < n && p[i] != '/')
			continue;
		memcpy(buf, p, i);
		buf[i] = '\0';
		if (fnmatch(rl->from, buf, 0))
			continue;
		if (i == n && replay_strset__has(&rl->dirs, buf)) {
			*rest = p + n;
		} else if (i == n) {
			const char *b = strrchr(p, '/');

			*rest = b ? b : p;
		} else {
			*rest = p + i;
		}
		return 1;
	}
	return 0;
}

int replay_mapper__learn(struct replay_mapper *m, const char *path)
{
	const char *rest;
	int i = replay_mapper__rule(m, path);

	if (i < 0 || !m->rules[i].glob)
		return 0;
	rule__match(&m->rules[i], path, &rest);
	if (*rest != '/' || rest == path || rest[1] == '\0')
		return 0; /* the whole path matched: nothing learnt of it here */
	char dir[PATH_MAX];
	size_t n = (size_t)(rest - path);

	if (n >= sizeof(dir))
		return 0;
	memcpy(dir, path, n);
	dir[n] = '\0';
	return replay_strset__add(&m->rules[i].dirs, dir) < 0 ? -ENOMEM : 0;
}

int replay_mapper__rule(const struct replay_mapper *m, const char *path)
{
	const char *rest;

	for (size_t i = 0; i < m->n_rules; i++) {
		if (rule__match(&m->rules[i], path, &rest))
			return (int)i;
	}
	return -1;
}

int replay_mapper__map(const struct replay_mapper *m, const char *path, int *root, char *rel,
		       size_t relsz)
{
	const char *rest;

	/* an empty path names no file: the kernel fails it with ENOENT, it is never the root */
	if (!*path)
		return -ENOENT;
	for (size_t i = 0; i < m->n_rules; i++) {
		if (rule__match(&m->rules[i], path, &rest)) {
			*root = m->rules[i].root;
			return rel__set(rel, relsz, rest);
		}
	}
	*root = 0;
	return rel__set(rel, relsz, path);
}

int replay_mapper__overlaps(const struct replay_mapper *m, const char *path)
{
	if (path[0] != '/')
		return 0;
	for (int i = 0; i < m->n_roots; i++) {
		if (path_is_below(path, m->roots[i].dir))
			return 1;
	}
	return 0;
}

int replay_path__open(int rootfd, const char *rel, int flags, mode_t mode)
{
	return replay_path__open_as(rootfd, rel, flags | O_CLOEXEC, mode);
}

int replay_path__open_as(int rootfd, const char *rel, int flags, mode_t mode)
{
	struct open_how how = {0};
	long fd;

	how.flags = (unsigned)flags;
	if (flags & (O_CREAT | __O_TMPFILE))
		how.mode = mode & 07777;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
	fd = syscall(SYS_openat2, rootfd, rel, &how, sizeof(how));
	return fd < 0 ? -errno : (int)fd;
}

int replay_path__parent(int rootfd, const char *rel, const char **base)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(rel, '/');
	size_t n;

	if (!slash) {
		*base = rel;
		strcpy(dir, ".");
	} else {
		n = (size_t)(slash - rel);
		if (n >= sizeof(dir))
			return -ENAMETOOLONG;
		memcpy(dir, rel, n);
		dir[n] = '\0';
		*base = slash + 1;
	}
	/* the parent is resolved beneath the root; a last ".." would step out of it again */
	if (!strcmp(*base, ".."))
		return -EXDEV;
	return replay_path__open(rootfd, dir, O_PATH | O_DIRECTORY, 0);
}

int replay_path__is_nonfile(const char *path)
{
	return reel_path__is_nonfile(path); /* the format library's, which fio export shares */
}
