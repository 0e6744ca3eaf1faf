/* SPDX-License-Identifier: MIT */
/*
 * replay_hash.c - the two small tables replay/ needs: u64 -> u64 (fds, async requests,
 * dependency keys) and a set of strings (directories). Open addressing, linear probing,
 * backward-shift deletion; sized for millions of entries without per-entry allocation.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reel.h"
#include "replay_hash.h"

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

uint64_t replay_hash__key(uint64_t a, uint64_t b, uint64_t c)
{
	return mix64(a * 0x9e3779b97f4a7c15ULL ^ mix64(b + 0x632be59bd9b4e019ULL) ^ (c << 1 | 1));
}

static int map__grow(struct replay_u64map *m)
{
	struct replay_u64map n = {0};

	n.cap = m->cap ? m->cap * 2 : 64;
	n.k = calloc(n.cap, sizeof(*n.k));
	n.v = calloc(n.cap, sizeof(*n.v));
	n.used = calloc(n.cap, 1);
	if (!n.k || !n.v || !n.used) {
		free(n.k);
		free(n.v);
		free(n.used);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (m->used[i])
			replay_u64map__put(&n, m->k[i], m->v[i]);
	}
	free(m->k);
	free(m->v);
	free(m->used);
	*m = n;
	return 0;
}

int replay_u64map__put(struct replay_u64map *m, uint64_t k, uint64_t v)
{
	size_t i;

	if ((m->n + 1) * 4 > m->cap * 3 && map__grow(m))
		return -ENOMEM;
	for (i = mix64(k) & (m->cap - 1); m->used[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->k[i] == k) {
			m->v[i] = v;
			return 0;
		}
	}
	m->used[i] = 1;
	m->k[i] = k;
	m->v[i] = v;
	m->n++;
	return 0;
}

uint64_t *replay_u64map__get(const struct replay_u64map *m, uint64_t k)
{
	if (!m->n)
		return NULL;
	for (size_t i = mix64(k) & (m->cap - 1); m->used[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->k[i] == k)
			return &m->v[i];
	}
	return NULL;
}

int replay_u64map__del(struct replay_u64map *m, uint64_t k)
{
	size_t i, j, h;

	if (!m->cap)
		return 0;
	for (i = mix64(k) & (m->cap - 1); m->used[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->k[i] == k)
			break;
	}
	if (!m->used[i])
		return 0;
	m->used[i] = 0;
	m->n--;
	/* shift back followers whose home slot lies at or before the hole */
	for (j = (i + 1) & (m->cap - 1); m->used[j]; j = (j + 1) & (m->cap - 1)) {
		h = mix64(m->k[j]) & (m->cap - 1);
		if (((j - h) & (m->cap - 1)) >= ((j - i) & (m->cap - 1))) {
			m->k[i] = m->k[j];
			m->v[i] = m->v[j];
			m->used[i] = 1;
			m->used[j] = 0;
			i = j;
		}
	}
	return 1;
}

void replay_u64map__free(struct replay_u64map *m)
{
	free(m->k);
	free(m->v);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

uint64_t replay_hash__bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static uint64_t str__hash(const char *s)
{
	return replay_hash__bytes(s, strlen(s));
}

/* Strings live in the set; the map holds hash -> index chains in a parallel array. */
int replay_strset__add(struct replay_strset *s, const char *str)
{
	uint64_t h = str__hash(str), *v;
	size_t idx;

	for (v = replay_u64map__get(&s->idx, h); v; v = NULL) {
		for (idx = *v; idx != (size_t)-1; idx = s->next[idx]) {
			if (!strcmp(s->str[idx], str))
				return 0;
		}
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		char **str2 = realloc(s->str, cap * sizeof(*str2));
		size_t *next2;

		if (!str2)
			return -ENOMEM;
		s->str = str2;
		next2 = realloc(s->next, cap * sizeof(*next2));
		if (!next2)
			return -ENOMEM;
		s->next = next2;
		s->cap = cap;
	}
	s->str[s->n] = strdup(str);
	if (!s->str[s->n])
		return -ENOMEM;
	v = replay_u64map__get(&s->idx, h);
	s->next[s->n] = v ? *v : (size_t)-1;
	if (replay_u64map__put(&s->idx, h, s->n))
		return -ENOMEM;
	s->n++;
	return 1;
}

int replay_strset__has(const struct replay_strset *s, const char *str)
{
	uint64_t *v = replay_u64map__get(&s->idx, str__hash(str));

	for (size_t idx = v ? *v : (size_t)-1; idx != (size_t)-1; idx = s->next[idx]) {
		if (!strcmp(s->str[idx], str))
			return 1;
	}
	return 0;
}

void replay_strset__free(struct replay_strset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->str[i]);
	free(s->str);
	free(s->next);
	replay_u64map__free(&s->idx);
	memset(s, 0, sizeof(*s));
}

int replay_u64map__load_fd_list(struct replay_u64map *m, const char *list, int base)
{
	uint32_t pid, fd;
	uint64_t n;

	while (reel_meta__fd_entry(&list, &pid, &fd, &n, base))
		if (n && replay_u64map__put(m, (uint64_t)pid << 32 | fd, n))
			return -ENOMEM;
	return 0;
}
