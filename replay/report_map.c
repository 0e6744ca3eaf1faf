/* SPDX-License-Identifier: MIT */
/* report_map.c - open-addressing hash map with 4-word keys for the report's bookkeeping. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static size_t slot_of(const struct report_map *m, const uint64_t k[REPORT_KEY_N])
{
	return (size_t)(mix(k[0] ^ mix(k[1] ^ mix(k[2] ^ mix(k[3])))) & (m->cap - 1));
}

static int same(const uint64_t a[REPORT_KEY_N], const uint64_t b[REPORT_KEY_N])
{
	return !memcmp(a, b, REPORT_KEY_N * sizeof(*a));
}

struct report_map_slot *report_map__get(const struct report_map *m, const uint64_t k[REPORT_KEY_N])
{
	if (!m->cap)
		return NULL;
	for (size_t i = slot_of(m, k), n = 0; n < m->cap; i = (i + 1) & (m->cap - 1), n++) {
		struct report_map_slot *s = &m->slots[i];
		if (!s->used)
			return NULL;
		if (s->used == 1 && same(s->k, k))
			return s;
	}
	return NULL;
}

static int grow(struct report_map *m)
{
	/* Rehash when more than half the slots are taken (deleted ones count: they lengthen
	 * probes), to a size the live entries fill a quarter of at most, so that as many puts
	 * again come before the next rehash. Doubling only once they filled half, a map whose
	 * live entries hovered just under half (an async replay's requests in flight, put and
	 * deleted in turn) was rehashed whole at nearly every put: 45-80% of the CPU of
	 * "ioreel report" of fio's libaio iodepth=32 randread (65 k records). */
	size_t cap = m->cap ? m->cap : 64;
	while (m->live * 4 >= cap)
		cap *= 2;
	struct report_map_slot *old = m->slots;
	size_t oldcap = m->cap;
	m->slots = calloc(cap, sizeof(*m->slots));
	if (!m->slots) {
		m->slots = old;
		return -ENOMEM;
	}
	m->cap = cap;
	m->used = m->live = 0;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].used == 1)
			report_map__put(m, old[i].k, old[i].v);
	free(old);
	return 0;
}

int report_map__put(struct report_map *m, const uint64_t k[REPORT_KEY_N], const uint64_t v[2])
{
	struct report_map_slot *s = report_map__get(m, k);
	if (s) {
		memcpy(s->v, v, sizeof(s->v));
		return 0;
	}
	if ((m->used + 1) * 2 > m->cap) {
		int err = grow(m);
		if (err)
			return err;
	}
	size_t i = slot_of(m, k);
	while (m->slots[i].used == 1)
		i = (i + 1) & (m->cap - 1);
	s = &m->slots[i];
	if (!s->used)
		m->used++;
	s->used = 1;
	memcpy(s->k, k, sizeof(s->k));
	memcpy(s->v, v, sizeof(s->v));
	m->live++;
	return 0;
}

void report_map__del(struct report_map *m, struct report_map_slot *slot)
{
	slot->used = 2;
	m->live--;
}

void report_map__free(struct report_map *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}
