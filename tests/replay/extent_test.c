/* SPDX-License-Identifier: MIT */
/*
 * extent_test.c - the writes a read of another thread waits for (replay/replay_extent.c):
 * the first that reached its end; the oldest kept once that one has fallen out of the ring;
 * the furthest when none reached it; and what truncates, creates and renames leave (and the
 * cut that writes making the file longer again wait for); the writes a cut waits for, an
 * async one until it is reaped; and the reads; and that those already issued are dropped,
 * async ones kept.
 */
#include <stdio.h>

#include "replay_run.h"

static int fails;

/* the write (seq) a read ending at end waits for: 0 none */
static uint64_t writer(const struct rpath *p, uint64_t end)
{
	const struct rdep *d = p->ext && end > p->base ? extent__writer(p, end) : NULL;

	return d ? d->seq : 0;
}

/* how many workers' writes a cut to len waits for */
static uint64_t beyond(const struct rpath *p, uint64_t len)
{
	uint32_t i = 0;
	uint64_t n = 0;

	while (extent__beyond(p, len, &i))
		n++;
	return n;
}

/* how many workers' reads a cut to len waits for */
static uint64_t read_beyond(const struct rpath *p, uint64_t len)
{
	uint32_t i = 0;
	uint64_t n = 0;

	while (extent__read_beyond(p, len, &i))
		n++;
	return n;
}

/* the seq of the last write a cut to len waits for: 0 none */
static uint64_t last_beyond(const struct rpath *p, uint64_t len)
{
	const struct rdep *d, *last = NULL;
	uint32_t i = 0;

	while ((d = extent__beyond(p, len, &i)))
		last = d;
	return last ? last->seq : 0;
}

/* done: every worker's ops up to seq 700 (as their done_seq would say) */
static int done_700(void *ctx, const struct rdep *by)
{
	(void)ctx;
	return by->seq <= 700;
}

static void expect(const char *what, uint64_t got, uint64_t want)
{
	if (got != want) {
		printf("FAIL: %s: %llu, want %llu\n", what, (unsigned long long)got,
		       (unsigned long long)want);
		fails++;
	}
}

/* appends of 4 KiB from base, seq 1..n by worker 7 */
static void appends(struct rpath *p, unsigned n)
{
	for (unsigned i = 1; i <= n; i++)
		extent__grow(p, p->base + i * 4096ULL, 7, i);
}

int main(void)
{
	struct rpath a = {0}, b = {0};

	appends(&a, 4);
	expect("read of the first block", writer(&a, 4096), 1);
	expect("read ending inside the third block", writer(&a, 3 * 4096 - 1), 3);
	expect("read beyond every write: the furthest", writer(&a, 1 << 20), 4);
	expect("worker of a write", extent__writer(&a, 4096)->w, 7);

	extent__reset(&a);
	appends(&a, 100);
	expect("first block, fallen out: the oldest kept", writer(&a, 4096), 100 - 16 + 1);
	expect("a block still kept", writer(&a, 90 * 4096), 90);

	/* a truncate into the kept writes: the first that reached beyond it now ends there */
	extent__truncate(&a, 90 * 4096 + 100, 8, 200);
	expect("reach after a cut", a.reach, 90 * 4096 + 100);
	expect("the cut, for the writes that make the file longer again", a.cut.seq, 200);
	expect("read up to the cut", writer(&a, 90 * 4096 + 100), 91);
	extent__grow(&a, 95 * 4096, 7, 201);
	expect("a write after the cut", writer(&a, 91 * 4096), 201);
	/* one that lengthens the file is a write */
	extent__truncate(&a, 100 * 4096, 8, 202);
	expect("read of what an ftruncate added", writer(&a, 99 * 4096), 202);
	expect("a lengthening truncate is no cut", a.cut.seq, 200);

	/* a prepared file: reads within it wait for nothing, a cut below it lowers it */
	b.base = b.reach = 8192;
	extent__grow(&b, 12288, 3, 300);
	expect("read within the prepared size", writer(&b, 8192), 0);
	expect("read beyond it", writer(&b, 12288), 300);
	extent__truncate(&b, 4096, 3, 301);
	expect("base after a cut below it", b.base, 4096);
	expect("nothing left to wait for", writer(&b, 4096 + 1), 0);

	/* a rename moves the extent; the old name is a new, empty file */
	extent__reset(&a);
	appends(&a, 2);
	extent__truncate(&a, 4096, 9, 400);
	extent__grow(&a, 8192, 7, 401);
	extent__move(&a, &b, 0);
	expect("read by the new name", writer(&b, 8192), 401);
	expect("the cut moves with it", b.cut.seq, 400);
	expect("old name: no cut", a.cut.seq, 0);
	expect("old name emptied", a.reach, 0);
	expect("old name keeps nothing", a.ext == NULL, 1);
	appends(&a, 1);
	extent__move(&a, &b, 1);
	expect("exchange: the new name's", writer(&b, 4096), 1);
	expect("exchange: the old name's", writer(&a, 8192), 401);
	expect("exchange: the old name's cut", a.cut.seq, 400);

	/* what a cut waits for: the writes of each worker since the last cut beyond it */
	extent__reset(&a);
	extent__reset(&b);
	extent__wrote(&a, 1 << 20, 1, 500);
	extent__wrote(&a, 8192, 2, 501);
	extent__wrote(&a, 4096, 1, 502);
	expect("writers beyond 4 KiB", beyond(&a, 4096), 2);
	expect("a worker's last write, its furthest end", last_beyond(&a, 8192), 502);
	expect("writers beyond 1 MiB", beyond(&a, 1 << 20), 0);
	a.reach = 1 << 20;
	extent__truncate(&a, 10000, 3, 503);
	expect("after a cut: the writes below it stay", beyond(&a, 0), 1);
	expect("the one below it", last_beyond(&a, 0), 501);
	extent__move(&a, &b, 0);
	expect("the writers move with a rename", last_beyond(&b, 0), 501);
	expect("old name: no writers", beyond(&a, 0), 0);
	extent__reset(&b);
	expect("a new file: no writers", beyond(&b, 0), 0);

	/* an async write stands apart from its worker's later writes until it is reaped: those
	 * may be done while its request is still in flight */
	extent__wrote_async(&a, 1 << 20, 1, 600);
	extent__wrote(&a, 4096, 1, 601);
	expect("an async write and a later write of its worker", beyond(&a, 0), 2);
	expect("a cut beyond the later one: the async one", last_beyond(&a, 4096), 600);
	extent__reaped(&a, &(struct rdep){.w = 1, .seq = 600}, 2, 602);
	extent__wrote(&a, 1 << 20, 2, 602);
	expect("reaped: its own entry goes", beyond(&a, 0), 2);
	expect("reaped: the completion stands for it", last_beyond(&a, 4096), 602);

	/* writes already issued are dropped (a cut would wait for nothing), but an async one
	 * only when reaped; the worker's next write starts an entry of its own */
	extent__reset(&a);
	extent__wrote(&a, 1 << 20, 1, 699);
	extent__wrote(&a, 8192, 2, 700);
	extent__wrote_async(&a, 1 << 20, 1, 698);
	expect("drop done: left", extent__drop_done(&a, done_700, NULL), 1);
	expect("drop done: the async one stays", beyond(&a, 4096), 1);
	expect("drop done: it", last_beyond(&a, 8192), 698);
	extent__wrote(&a, 4096, 1, 701);
	expect("after a drop: the next write's own reach", beyond(&a, 4096), 1);
	expect("after a drop: its entry", last_beyond(&a, 0), 701);
	extent__reaped(&a, &(struct rdep){.w = 1, .seq = 698}, 1, 702);
	extent__wrote(&a, 1 << 20, 1, 702);
	expect("reaped: not done", extent__drop_done(&a, done_700, NULL), 1);
	expect("reaped: worker 1's entry is its completion", last_beyond(&a, 4096), 702);
	expect("nwriters", extent__nwriters(&a), 1);
	a.reach = 1 << 20;
	extent__truncate(&a, 0, 3, 703);
	expect("cut: none left", extent__drop_done(&a, done_700, NULL), 0);

	/* the reads a cut waits for: those of bytes at or beyond its length, kept as writes are */
	extent__reset(&a);
	extent__reset(&b);
	a.base = a.reach = 2 << 20;
	extent__read(&a, (1 << 20) + 4096, 1, 700);
	extent__read(&a, 4096, 2, 701);
	expect("readers beyond 4 KiB", read_beyond(&a, 4096), 1);
	expect("readers beyond 0", read_beyond(&a, 0), 2);
	expect("no writers for reads", beyond(&a, 0), 0);
	extent__truncate(&a, 8192, 3, 702);
	expect("a cut drops the reads it waited for", read_beyond(&a, 0), 1);
	extent__read_async(&a, 4096, 2, 703);
	expect("an async read stands apart", read_beyond(&a, 0), 2);
	extent__reaped(&a, &(struct rdep){.w = 2, .seq = 703}, 4, 704);
	expect("reaped: its own entry goes", read_beyond(&a, 0), 1);
	extent__move(&a, &b, 0);
	expect("the readers move with a rename", read_beyond(&b, 0), 1);
	expect("old name: no readers", read_beyond(&a, 0), 0);

	extent__reset(&a);
	extent__reset(&b);
	if (!fails)
		printf("PASS\n");
	return fails ? 1 : 0;
}
