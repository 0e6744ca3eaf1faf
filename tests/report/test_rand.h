/* SPDX-License-Identifier: MIT */
/* test_rand.h - seeded random values for the report tests (reproducible on failure). */
#ifndef IOREEL_TEST_RAND_H
#define IOREEL_TEST_RAND_H

#include <math.h>
#include <stdint.h>

static uint64_t test_rand_state = 0x9e3779b97f4a7c15ull;

static inline uint64_t test_rand_u64(void)
{
	/* splitmix64 */
	uint64_t z = (test_rand_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1). */
static inline double test_rand_unit(void)
{
	return ((double)(test_rand_u64() >> 11) + 0.5) / 9007199254740992.0;
}

static inline double test_rand_normal(void)
{
	return sqrt(-2.0 * log(test_rand_unit())) * cos(2 * M_PI * test_rand_unit());
}

/* exp(N(mu, sigma)): the usual shape of I/O latencies. */
static inline double test_rand_lognormal(double mu, double sigma)
{
	return exp(mu + sigma * test_rand_normal());
}

#endif
