/* SPDX-License-Identifier: MIT */
/*
 * rbench_budget.c - where a run's thread time went, op by op: in the syscalls, in the short
 * gaps between them (the replayer's or the loop's own work), in longer gaps (preemptions,
 * faults, waits), and before a thread's first op or after its last while the others ran.
 */
#include <stdio.h>

#include "rbench.h"

#define BUDGET_MID_GAP_NS 100000 /* bench_stats' IDLE_GAP_NS: a wait, not a hiccup */
#define BUDGET_LONG_OP_NS 20000	 /* a 4 KiB page-cached read taking this long was held */

void rbench_budget__op(struct rbench_budget *b, size_t thread, uint64_t start_ns,
		       uint64_t end_ns)
{
	struct rbench_budget_thread *t;
	uint64_t op = end_ns > start_ns ? end_ns - start_ns : 0;

	if (thread >= RBENCH_BUDGET_THREADS)
		thread = RBENCH_BUDGET_THREADS - 1;
	if (thread >= b->nthreads)
		b->nthreads = thread + 1;
	t = &b->t[thread];
	if (!t->n++) {
		t->first = start_ns;
	} else if (start_ns >= t->last_end) {
		uint64_t g = start_ns - t->last_end;

		if (g < RBENCH_BETWEEN_GAP_NS)
			t->between += g;
		else if (g < BUDGET_MID_GAP_NS)
			t->gap += g;
		else
			t->idle += g;
	}
	t->op += op;
	t->op_bins[op / 10 < RBENCH_BUDGET_BINS ? op / 10 : RBENCH_BUDGET_BINS - 1]++;
	if (op >= BUDGET_LONG_OP_NS)
		t->long_op += op;
	if (end_ns > t->last_end)
		t->last_end = end_ns;
}

/* the ops' median time, to the 10 ns bin (its middle), all threads' */
static unsigned op_median(const struct rbench_budget *b)
{
	uint64_t n = 0, seen = 0;

	for (size_t i = 0; i < b->nthreads; i++)
		n += b->t[i].n;
	for (unsigned k = 0; k < RBENCH_BUDGET_BINS; k++) {
		for (size_t i = 0; i < b->nthreads; i++)
			seen += b->t[i].op_bins[k];
		if (n && seen * 2 >= n)
			return k * 10 + 5;
	}
	return RBENCH_BUDGET_BINS * 10;
}

void rbench_budget__print(const struct rbench_budget *b)
{
	uint64_t first = UINT64_MAX, last = 0, op = 0, between = 0, gap = 0, idle = 0, tail = 0,
		 long_op = 0;
	double all;

	for (size_t i = 0; i < b->nthreads; i++) {
		const struct rbench_budget_thread *t = &b->t[i];

		if (!t->n)
			continue;
		if (t->first < first)
			first = t->first;
		if (t->last_end > last)
			last = t->last_end;
	}
	if (last <= first)
		return;
	for (size_t i = 0; i < b->nthreads; i++) {
		const struct rbench_budget_thread *t = &b->t[i];

		if (!t->n)
			continue;
		op += t->op;
		long_op += t->long_op;
		between += t->between;
		gap += t->gap;
		idle += t->idle;
		tail += (t->first - first) + (last - t->last_end);
	}
	all = (double)(last - first) * (double)b->nthreads / 100.0;
	printf(" bud_op=%.2f bud_long_op=%.2f bud_between=%.2f bud_gap=%.2f bud_idle=%.2f "
	       "bud_tail=%.2f op_p50_ns=%u",
	       (double)op / all, (double)long_op / all, (double)between / all, (double)gap / all,
	       (double)idle / all, (double)tail / all, op_median(b));
}
