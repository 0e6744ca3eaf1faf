/* SPDX-License-Identifier: MIT */
/* replay_hash.h - u64 map and string set used inside replay/. */
#ifndef IOREEL_REPLAY_HASH_H
#define IOREEL_REPLAY_HASH_H

#include <stddef.h>
#include <stdint.h>

struct replay_u64map {
	uint64_t *k, *v;
	unsigned char *used;
	size_t n, cap;
};

int replay_u64map__put(struct replay_u64map *m, uint64_t k, uint64_t v);
uint64_t *replay_u64map__get(const struct replay_u64map *m, uint64_t k); /* NULL: absent */
int replay_u64map__del(struct replay_u64map *m, uint64_t k);
void replay_u64map__free(struct replay_u64map *m);
/*
 * A recorder's per-fd meta list ("PID:FD:N ...", N in base, space-separated:
 * capture.fd_flags, capture.fd_sizes) into m, keyed pid << 32 | fd; N 0 and entries that do
 * not parse are skipped (the replay then does without them, as for an older trace). 0 or
 * -ENOMEM.
 */
int replay_u64map__load_fd_list(struct replay_u64map *m, const char *list, int base);
/* A well-mixed 64-bit key from up to three values (collisions: 2^-64 per pair). */
uint64_t replay_hash__key(uint64_t a, uint64_t b, uint64_t c);
/* FNV-1a of n bytes: names (paths, directories) as keys */
uint64_t replay_hash__bytes(const char *s, size_t n);

struct replay_strset {
	char **str;
	size_t *next;
	size_t n, cap;
	struct replay_u64map idx;
};

int replay_strset__add(struct replay_strset *s, const char *str); /* 1 added, 0 had it */
int replay_strset__has(const struct replay_strset *s, const char *str);
void replay_strset__free(struct replay_strset *s);

#endif
