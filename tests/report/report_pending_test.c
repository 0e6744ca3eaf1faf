/* SPDX-License-Identifier: MIT */
/*
 * report_pending_test.c - the report's queues of async requests waiting for their completion
 * (report_pending.c): requests of one id are taken oldest first; by submission time, the
 * oldest submitted then, past older ones of the id never completed (a recording's lost
 * completions) and before newer ones; ids apart; entries reused once taken; what is left
 * is visited once each.
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

static void id_key(uint64_t k[REPORT_KEY_N], uint64_t aux)
{
	k[0] = 2 ^ (100ull << 8);
	k[1] = 9;
	k[2] = aux;
	k[3] = 0;
}

/* request number n (its fd), submitted at start */
static void add(struct report_pending *p, uint64_t aux, uint64_t start, int32_t n)
{
	uint64_t k[REPORT_KEY_N];
	struct report_req r = {.start = start, .fd = n};

	id_key(k, aux);
	CHECK(!report_pending__add(p, k, &r), "add %d", n);
}

/* the number of the request taken (-1: none) */
static int32_t take(struct report_pending *p, uint64_t aux, const uint64_t *start)
{
	uint64_t k[REPORT_KEY_N];
	struct report_req r;

	id_key(k, aux);
	return report_pending__take(p, k, start, &r) ? r.fd : -1;
}

static void count(void *arg, const struct report_req *req)
{
	(void)req;
	++*(size_t *)arg;
}

int main(void)
{
	struct report_pending p = {0};
	uint64_t t100 = 100, t200 = 200, t300 = 300;
	size_t left = 0, pool;

	/* one io_submit of 4 iocbs with aio_data 0, then one of 2: reaped in order */
	for (int i = 0; i < 4; i++)
		add(&p, 0, 100, i);
	add(&p, 0, 200, 4);
	add(&p, 0, 200, 5);
	CHECK(take(&p, 0, NULL) == 0 && take(&p, 0, NULL) == 1, "oldest first");
	CHECK(take(&p, 0, &t200) == 4, "by submission time: the oldest submitted then");
	CHECK(take(&p, 0, NULL) == 2 && take(&p, 0, NULL) == 3 && take(&p, 0, NULL) == 5,
	      "oldest first, past one taken by time");
	CHECK(take(&p, 0, NULL) == -1 && take(&p, 0, &t100) == -1, "an empty id gives none");

	/* a recording: request 10 of id 7 never completed; 11, 12 submitted at 200 and 13 at
	 * 300; another id between */
	add(&p, 7, 100, 10);
	add(&p, 7, 200, 11);
	add(&p, 8, 200, 20);
	add(&p, 7, 200, 12);
	add(&p, 7, 300, 13);
	CHECK(take(&p, 7, &t300) == 13, "the newest, by its time");
	CHECK(take(&p, 7, &t200) == 11 && take(&p, 7, &t200) == 12, "one call's, oldest first");
	CHECK(take(&p, 7, &t200) == -1, "none left of that time");
	CHECK(take(&p, 8, &t200) == 20, "the other id's");

	/* taken entries are used again: the pool does not grow with requests reaped */
	pool = p.npool;
	for (int i = 0; i < 1000; i++) {
		add(&p, 1000 + (uint64_t)i, 400, i);
		CHECK(take(&p, 1000 + (uint64_t)i, NULL) == i, "round %d", i);
	}
	CHECK(p.npool == pool, "pool grew from %zu to %zu", pool, p.npool);

	/* left: request 10 (never completed), and 3 more */
	add(&p, 0, 500, 30);
	add(&p, 0, 500, 31);
	add(&p, 5, 500, 32);
	report_pending__each(&p, count, &left);
	CHECK(left == 4, "%zu requests left, want 4", left);
	report_pending__free(&p);
	if (!fails)
		printf("PASS\n");
	return fails ? 1 : 0;
}
