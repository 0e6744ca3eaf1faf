/* SPDX-License-Identifier: MIT */
/*
 * report_map_test.c - the report's 4-word-key map (report_map.c): every key put is found
 * with its value until deleted, never after; and entries put and deleted in turn around
 * a steady count (an async replay's requests in flight, two keys each) do not rehash the
 * whole map at every put, at any such count.
 */
#include <stdio.h>
#include <stdlib.h>

#include "report_int.h"

static int fails;

#define CHECK(c, ...)                                                                              \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			printf("FAIL: " __VA_ARGS__);                                              \
			printf("\n");                                                              \
			fails++;                                                                   \
		}                                                                                  \
	} while (0)

static void key(uint64_t k[REPORT_KEY_N], uint64_t id)
{
	k[0] = 7;
	k[1] = 100;
	k[2] = id;
	k[3] = id & 1;
}

/* live entries kept between `steady` and steady + 1 over `rounds` puts: how many puts
 * rehashed the map (a rehash moves the entries to new slots) */
static size_t churn(size_t steady, size_t rounds)
{
	struct report_map m = {0};
	uint64_t k[REPORT_KEY_N], v[2];
	size_t rehashed = 0;

	for (uint64_t id = 0; id < steady + rounds; id++) {
		const struct report_map_slot *before = m.slots;

		key(k, id);
		v[0] = id * 3;
		v[1] = ~id;
		CHECK(!report_map__put(&m, k, v), "put %llu", (unsigned long long)id);
		if (m.slots != before)
			rehashed++;
		if (id >= steady) {
			struct report_map_slot *s;

			key(k, id - steady);
			s = report_map__get(&m, k);
			CHECK(s && s->v[0] == (id - steady) * 3 && s->v[1] == ~(id - steady),
			      "steady %zu: key %llu lost or its value wrong", steady,
			      (unsigned long long)(id - steady));
			if (s)
				report_map__del(&m, s);
			CHECK(!report_map__get(&m, k), "steady %zu: key %llu found after delete",
			      steady, (unsigned long long)(id - steady));
		}
	}
	/* what is left: the last `steady` keys, each with its value */
	for (uint64_t id = rounds; id < steady + rounds; id++) {
		struct report_map_slot *s;

		key(k, id);
		s = report_map__get(&m, k);
		CHECK(s && s->v[0] == id * 3, "steady %zu: key %llu missing at the end", steady,
		      (unsigned long long)id);
	}
	CHECK(m.live == steady, "steady %zu: %zu live at the end", steady, m.live);
	report_map__free(&m);
	return rehashed;
}

int main(void)
{
	size_t worst = 0, worst_at = 0;
	const size_t rounds = 20000;

	for (size_t steady = 1; steady <= 600; steady++) {
		size_t r = churn(steady, rounds);

		if (r > worst) {
			worst = r;
			worst_at = steady;
		}
	}
	/* at most one rehash per quarter of the map's size in puts: with a 64-slot map at
	 * least, 1 in 16 */
	CHECK(worst * 16 <= rounds + 600, "%zu rehashes in %zu puts (steady count %zu)", worst,
	      rounds, worst_at);
	printf("at most %zu rehashes in %zu puts, at a steady count of %zu\n", worst, rounds,
	       worst_at);
	if (!fails)
		printf("PASS\n");
	return fails ? 1 : 0;
}
