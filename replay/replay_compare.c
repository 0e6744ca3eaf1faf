/* SPDX-License-Identifier: MIT */
/*
 * replay_compare.c - the comparison hook declared in replay.h: "ioreel replay" calls it
 * once every target has been replayed, and it prints the report (report.h) onto out with
 * the default options (text, by op type, 5 hot files).
 */
#include <stddef.h>
#include <stdio.h>

#include "report.h"

int replay__compare(const char *trace, const char *const *results, size_t n_results, FILE *out);

int replay__compare(const char *trace, const char *const *results, size_t n_results, FILE *out)
{
	struct report_opts opts = {.top = 5};
	return report__compare(trace, results, n_results, &opts, out);
}
