/* SPDX-License-Identifier: MIT */
/*
 * replay_compare.c - the hook between "ioreel replay" and the report.
 *
 * "ioreel replay" calls replay__compare() once every target has been replayed, with the
 * original trace and the result traces in target order. Until the report module provides
 * the comparison, it does nothing; the report helper replaces the body with a call into
 * its report_*.c (e.g. print the per-op-type comparison table onto out).
 */
#include "replay.h"

int replay__compare(const char *trace, const char *const *results, size_t n_results, FILE *out)
{
	(void)trace;
	(void)results;
	(void)n_results;
	(void)out;
	return 0;
}
