/* SPDX-License-Identifier: MIT */
/*
 * fio_lateness.c - lateness of fio replaying iologs, from a syscall trace of fio.
 *
 * usage: fio_lateness IOLOG... < EVENTS
 *   IOLOG: fio iolog v3 files ("TIME_US FILE read|write OFFSET LEN" lines), one per job.
 *   EVENTS: "TID SECONDS.FRACTION POS" per pread64/pwrite64 entry, in time order (POS decimal
 *   or 0x hex), as perf script or strace -ttt print them after a little reshaping.
 *
 * fio has no absolute clock shared with the iolog: each job replays its delays relative to
 * its own start. So each fio thread is matched to the iolog whose offsets it issued (same
 * sequence), and its schedule is anchored where it suits fio best: op i is due at
 * A + TIME_US[i], with A chosen so that the op least behind that schedule is exactly on time
 * (lateness >= 0, the minimum is 0). A constant delay (job start-up) is therefore not held
 * against fio; drift and jitter are.
 * prints: n=.. p50_ns=.. p99_ns=.. max_ns=.. dur_ns=.. orig_dur_ns=.. matched=K/N
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbench.h"

struct seq {
	uint64_t *t; /* iolog: us; events: ns */
	uint64_t *off;
	size_t n, cap;
	uint32_t tid;
	int used;
};

static int push(struct seq *s, uint64_t t, uint64_t off)
{
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 1024;
		uint64_t *nt = realloc(s->t, nc * sizeof(*nt));
		uint64_t *no;

		if (!nt)
			return -1;
		s->t = nt;
		no = realloc(s->off, nc * sizeof(*no));
		if (!no)
			return -1;
		s->off = no;
		s->cap = nc;
	}
	s->t[s->n] = t;
	s->off[s->n++] = off;
	return 0;
}

static int read_iolog(const char *path, struct seq *s)
{
	char line[4096], fname[1024], act[64];
	unsigned long long t, off, len;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llu %1023s %63s %llu %llu", &t, fname, act, &off, &len) != 5)
			continue;
		if (strcmp(act, "read") && strcmp(act, "write"))
			continue;
		if (push(s, t, off)) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

/* "123.456789" -> ns, exactly (a double would lose the last digits of a boot-time clock). */
static int parse_time(const char *s, uint64_t *ns)
{
	char *end;
	uint64_t sec = strtoull(s, &end, 10), frac = 0;
	int digits = 0;

	if (end == s)
		return -1;
	if (*end == '.') {
		for (end++; *end >= '0' && *end <= '9'; end++) {
			if (digits < 9) {
				frac = frac * 10 + (uint64_t)(*end - '0');
				digits++;
			}
		}
	}
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = sec * 1000000000ull + frac;
	return 0;
}

static int same_start(const struct seq *a, const struct seq *b)
{
	size_t k = a->n < b->n ? a->n : b->n;

	if (k > 16)
		k = 16;
	for (size_t i = 0; i < k; i++)
		if (a->off[i] != b->off[i])
			return 0;
	return k > 0;
}

int main(int argc, char **argv)
{
	size_t nlog = (size_t)argc - 1, nev = 0, evcap = 0, k = 0, total = 0, matched = 0;
	uint64_t first = UINT64_MAX, last = 0, ofirst = UINT64_MAX, olast = 0;
	struct seq *logs, *ev = NULL;
	char line[512], tbuf[64], pbuf[64];
	unsigned long long tid;
	uint64_t ns, pos;
	int64_t *late;

	if (argc < 2) {
		fprintf(stderr, "usage: fio_lateness IOLOG... < EVENTS\n");
		return 2;
	}
	logs = calloc(nlog, sizeof(*logs));
	if (!logs)
		return 1;
	for (size_t i = 0; i < nlog; i++) {
		if (read_iolog(argv[i + 1], &logs[i])) {
			fprintf(stderr, "fio_lateness: failed to read %s\n", argv[i + 1]);
			return 1;
		}
		total += logs[i].n;
		for (size_t j = 0; j < logs[i].n; j++) {
			if (logs[i].t[j] < ofirst)
				ofirst = logs[i].t[j];
			if (logs[i].t[j] > olast)
				olast = logs[i].t[j];
		}
	}
	while (fgets(line, sizeof(line), stdin)) {
		size_t i;

		if (sscanf(line, "%llu %63s %63s", &tid, tbuf, pbuf) != 3 || parse_time(tbuf, &ns))
			continue;
		pos = strtoull(pbuf, NULL, 0);
		for (i = 0; i < nev; i++)
			if (ev[i].tid == tid)
				break;
		if (i == nev) {
			if (nev == evcap) {
				evcap = evcap ? evcap * 2 : 16;
				ev = realloc(ev, evcap * sizeof(*ev));
				if (!ev)
					return 1;
			}
			memset(&ev[nev], 0, sizeof(*ev));
			ev[nev++].tid = (uint32_t)tid;
		}
		if (push(&ev[i], ns, pos))
			return 1;
	}
	late = calloc(total ? total : 1, sizeof(*late));
	if (!late)
		return 1;
	for (size_t e = 0; e < nev; e++) {
		struct seq *l = NULL;
		int64_t min = 0;
		size_t n;

		for (size_t i = 0; i < nlog && !l; i++)
			if (!logs[i].used && same_start(&ev[e], &logs[i]))
				l = &logs[i];
		if (!l)
			continue; /* a fio thread that issued no iolog ops (setup, helpers) */
		l->used = 1;
		n = l->n < ev[e].n ? l->n : ev[e].n;
		/* off[i]: how far op i ran behind the iolog's clock started at the thread's start */
		for (size_t i = 0; i < n; i++) {
			late[k + i] = (int64_t)(ev[e].t[i] - ev[e].t[0]) -
				      (int64_t)((l->t[i] - l->t[0]) * UINT64_C(1000));
			if (late[k + i] < min)
				min = late[k + i];
		}
		for (size_t i = 0; i < n; i++)
			late[k + i] -= min;
		k += n;
		matched += n;
		if (ev[e].t[0] < first)
			first = ev[e].t[0];
		if (ev[e].t[n - 1] > last)
			last = ev[e].t[n - 1];
	}
	rbench__print_pctls("", late, k);
	printf(" dur_ns=%" PRIu64 " orig_dur_ns=%" PRIu64 " matched=%zu/%zu\n",
	       k ? last - first : UINT64_C(0), total ? (olast - ofirst) * UINT64_C(1000) : 0, matched, total);
	for (size_t i = 0; i < nlog; i++) {
		free(logs[i].t);
		free(logs[i].off);
	}
	for (size_t i = 0; i < nev; i++) {
		free(ev[i].t);
		free(ev[i].off);
	}
	free(logs);
	free(ev);
	free(late);
	return 0;
}
