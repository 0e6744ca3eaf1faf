/* SPDX-License-Identifier: MIT */
/*
 * report_verdict.c - compares each replay with the original and says it in words.
 *
 * Every threshold that turns numbers into words is defined here, and nowhere else.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "reel.h"
#include "report_int.h"

/*
 * Faster / slower: a ratio (replay / original) of p50, p90, p99 or the mean beyond
 * RATIO_CHANGE either way AND distributions that really differ (p90 and the mean: a throttled
 * disk filled the slow mode of fdatasync's two, 4.6x the mean, 24x at p90, while p50 and p99
 * stayed put, and the verdict read "1.59x faster" for the op that made the run 4x longer): KS D of at least KS_CHANGE with a p-value
 * below KS_PVALUE. A ratio beyond the threshold with a small D is a tail-only change (few ops
 * moved); a large D with small ratios is a shift too small to matter: both read "unchanged"
 * in the sense that the bulk of the ops cost what they cost. But from KS_SHIFT on, most ops
 * moved the same way, if by less than RATIO_CHANGE: "shifted", with its numbers (470,000
 * aio_preads at p50 0.82x, KS D 0.61, read "unchanged").
 */
#define RATIO_CHANGE 1.25
#define KS_CHANGE 0.10
#define KS_SHIFT 0.30
#define KS_PVALUE 0.01
/* Fewer ops than this in either run: no verdict on that op type's distribution (the table
 * still shows it)... */
#define MIN_OPS 5
/* ...but its time is said when it held this share of either run's I/O time (dd's one fsync,
 * 69% of it, went unsaid, and the verdict read as if the RAM disk made dd slower) */
#define FEW_OPS_SHARE 0.10
/* Reads at or under this p50 in the original come from the page cache, not the device. */
#define PAGE_CACHE_NS 20000
/* A replay's file set counts as cached from this share of its bytes in memory on. */
#define CACHED_SHARE 0.5
/* A class of ops "dominates" I/O time from this share on. */
#define DOMINANT_SHARE 0.5
/*
 * Fell behind: lateness p99 above LATE_GAP_SHARE of the original's median per-thread gap
 * between ops (so ops bunch up that the app spread out) and above LATE_FLOOR_NS (below that
 * it is sleep granularity: a VM's timer wakes ~70 us late, and only spinning beats it).
 * Lateness means nothing in afap timing: not judged there.
 */
#define LATE_GAP_SHARE 0.10
#define LATE_FLOOR_NS 1000000
/* A note (not a warning) when more than this share of ops started over 1 ms late. */
#define LATE_1MS_SHARE 0.01
/*
 * The original was a closed loop when this share of its ops began right after their
 * thread's previous op ended (REPORT_CHAINED_NS): each op waited for the one before, so on
 * slower storage its schedule cannot be kept by design, and --timing think replays that.
 */
#define CLOSED_LOOP_SHARE 0.90
/*
 * What made a replay's backlog (report_collect.c, blame_rise): an op type is named from this
 * share of the backlog's build-up on, at most PACE_CAUSE_KINDS of them, with the
 * file holding PACE_CAUSE_FILE of their share; and the ops behind (REPORT_BEHIND_NS or more)
 * were "a stretch" of the run when STRETCH_OPS of them were due within STRETCH_SPAN of the
 * schedule (fio's layout on tmpfs: its writes late behind a slow fallocate, its reads on
 * time).
 */
#define PACE_CAUSE_SHARE 0.10
#define PACE_CAUSE_KINDS 3
#define PACE_CAUSE_FILE 0.50
#define STRETCH_OPS 0.90
#define STRETCH_SPAN 0.50
/* Errors: a replay failing this many more ops (share of its ops, or at least 1) is noted. */
#define ERROR_EXTRA_SHARE 0.001
/* An op type with this share of its ops failing beyond the original's is not compared. */
#define KIND_ERROR_SHARE 0.05
/*
 * As fast as possible, a replay whose own CPU time (workers, dispatcher, result writer: the
 * result's meta) filled this share of all the machine's CPUs over its span was bound by the
 * CPU, not by the storage: its ops/s say what the machine can issue, not what the target can
 * serve.
 */
#define CPU_BOUND_SHARE 0.90
#define OTHERS_BUSY_SHARE 0.50 /* other processes' CPU share that makes wake-ups theirs */
#define OTHERS_MIN_SPAN_NS 1e9 /* and the shortest replay it is judged over */
/*
 * A think or original timing replay keeps the original's gaps between each thread's ops, and
 * with them every wait the trace cannot see (a busy handler's sleep after a refused lock, a
 * backend waiting for a lock of the database's own, an idle parent process, a shell's wait):
 * on a RAM disk a lock-contended SQLite's I/O time fell to 0.03x and its run took 1.00x as
 * long, where the application itself ran 3.5-15x faster. Said when the I/O time fell to
 * GAPS_IO_RATIO or less, the duration by less than to GAPS_DURATION_RATIO, and gaps were
 * GAPS_SHARE or more of the original threads' time.
 */
#define GAPS_IO_RATIO 0.5
#define GAPS_DURATION_RATIO 0.8
#define GAPS_SHARE 0.5
/*
 * Ops of the original a replay did not issue (io_uring requests on registered files, which
 * the recording cannot name; ops on unknown fds; an interrupted replay): their I/O time is
 * in the original's bottom line and not in the replay's. fio's io_uring job with
 * registerfiles=1 had all 123,905 of its requests left out, and the bottom line read "I/O
 * time 7.82 s against the original's 30.8 s (0.25x)". From UNREPLAYED_CMP_SHARE of the
 * original's I/O time on, the bottom line compares the ops replayed only; from
 * UNREPLAYED_WARN_SHARE on, a warning comes first: the replay is not the workload.
 */
#define UNREPLAYED_CMP_SHARE 0.01
#define UNREPLAYED_WARN_SHARE 0.10
/* Per replay, at most this many faster/slower lines; the rest is in the table. */
#define MAX_CHANGE_LINES 4
/* An async engine's replay said to have queued reads and writes the original did not: their
 * mean number in flight this many times the original's, and this many more. */
#define ENGINE_DEPTH_RATIO 1.5
#define ENGINE_DEPTH_MIN 0.5

const double report_quantiles[5] = {0.5, 0.9, 0.99, 0.999, 1.0};

static double ratio(uint64_t replay, uint64_t orig)
{
	return (double)(replay ? replay : 1) / (double)(orig ? orig : 1);
}

/* The statistics an op type is judged by, in the order a tie names them. */
#define CMP_STATS 4
static const char *const cmp_stat_name[CMP_STATS] = {"p50", "p99", "p90", "mean"};
static const double cmp_stat_q[CMP_STATS] = {0.5, 0.99, 0.9, -1};

static double cmp_stat(const struct report_cmp *c, int i)
{
	return i == 0 ? c->ratio_p50 : i == 1 ? c->ratio_p99 : i == 2 ? c->ratio_p90 : c->ratio_mean;
}

/* a statistic of h: a quantile, or (q < 0) the mean */
static uint64_t hist_stat(const struct hist *h, double q)
{
	return q < 0 ? (uint64_t)hist__mean(h) : hist__quantile(h, q);
}

/*
 * The statistic that moved most in direction dir (-1 faster, 1 slower, 0 either), of p50,
 * p99, p90 and the mean alike: a PostgreSQL replay's fdatasync rose 7.2x at p90 and 2.35x in
 * the mean (fsync time 7.89 s to 18.5 s), and a headline that preferred p50 or p99 read
 * "1.27x slower" for it. Near a tie the order above decides (p50 before the mean when
 * both moved 573x): a later one leads when it moved HEADLINE_MARGIN more.
 */
#define HEADLINE_MARGIN 1.10

static int cmp_headline(const struct report_cmp *c, int dir)
{
	int best = 0;
	double most = -1;

	for (int i = 0; i < CMP_STATS; i++) {
		double r = cmp_stat(c, i), m = r > 0 ? fabs(log(r)) : 0;

		if ((dir < 0 && r >= 1) || (dir > 0 && r <= 1))
			continue;
		if (most < 0 || m > most + log(HEADLINE_MARGIN)) {
			most = m;
			best = i;
		}
	}
	return best;
}

void report__cmp(const struct hist *ho, const struct hist *hr, struct report_cmp *c)
{

	memset(c, 0, sizeof(*c));
	if (!ho->n && !hr->n)
		return;
	c->valid = 1;
	if (!ho->n || !hr->n) {
		c->change = REPORT_MISSING;
		return;
	}
	c->ratio_p50 = ratio(hist__quantile(hr, 0.5), hist__quantile(ho, 0.5));
	c->ratio_p90 = ratio(hist__quantile(hr, 0.9), hist__quantile(ho, 0.9));
	c->ratio_p99 = ratio(hist__quantile(hr, 0.99), hist__quantile(ho, 0.99));
	c->ratio_mean = hist__mean(ho) > 0 ? hist__mean(hr) / hist__mean(ho) : 0;
	c->ks_d = hist__ks(ho, hr, &c->ks_err);
	c->ks_p = hist__ks_pvalue(c->ks_d, ho->n, hr->n);

	if (ho->n < MIN_OPS || hr->n < MIN_OPS) {
		c->change = REPORT_FEW_OPS;
		return;
	}
	int faster = 0, slower = 0;
	for (int i = 0; i < CMP_STATS; i++) {
		double r = cmp_stat(c, i);

		faster |= r > 0 && r <= 1 / RATIO_CHANGE;
		slower |= r >= RATIO_CHANGE;
	}
	if (c->ks_d < KS_CHANGE || c->ks_p > KS_PVALUE) {
		c->change = faster || slower ? REPORT_TAIL_ONLY : REPORT_SAME;
		return;
	}
	/* Beyond the ratio in opposite directions: say both. Else whichever moved decides
	 * (the verdict line leads with the statistic that moved most). */
	if (faster && slower)
		c->change = REPORT_MIXED;
	else if (faster)
		c->change = REPORT_FASTER;
	else if (slower)
		c->change = REPORT_SLOWER;
	else
		c->change = c->ks_d >= KS_SHIFT ? REPORT_SHIFT : REPORT_SAME;
}

static struct report_verdict *say(struct report *rep, enum report_verdict_tag tag, int run,
				  int kind, double ratio, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

static struct report_verdict *say(struct report *rep, enum report_verdict_tag tag, int run,
				  int kind, double ratio, const char *fmt, ...)
{
	struct report_verdict *v = realloc(rep->verdicts, (rep->nverdicts + 1) * sizeof(*v));
	if (!v)
		return NULL;
	rep->verdicts = v;
	v += rep->nverdicts++;
	v->tag = tag;
	v->run = run;
	v->kind = kind;
	v->ratio = ratio;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v->text, sizeof(v->text), fmt, ap);
	va_end(ap);
	return v;
}

static const struct report_run *orig(const struct report *rep)
{
	return &rep->runs[0];
}

uint64_t report__unreplayed(const struct report *rep, const struct report_run *run, int k)
{
	uint64_t o = orig(rep)->kinds[k].lat.n, r = run->kinds[k].lat.n;

	return run->is_replay && o > r ? o - r : 0;
}

/* Counts the original's ops replay ri lacks, and the original's time in them: a whole op
 * type's time when none was replayed, else its mean per op for each one missing. */
static void count_unreplayed(struct report *rep, size_t ri)
{
	struct report_run *run = &rep->runs[ri];
	const struct report_run *o = orig(rep);

	run->unreplayed_ops = run->unreplayed_ns = 0;
	for (int k = 0; k < REPORT_KINDS; k++) {
		const struct hist *h = &o->kinds[k].lat;
		uint64_t missing = report__unreplayed(rep, run, k);

		if (!missing)
			continue;
		run->unreplayed_ops += missing;
		run->unreplayed_ns += missing == h->n
					  ? h->total
					  : (uint64_t)((double)h->total * (double)missing / (double)h->n);
	}
}

static double unreplayed_share(const struct report *rep, const struct report_run *run)
{
	const struct report_run *o = orig(rep);

	return o->io_ns ? (double)run->unreplayed_ns / (double)o->io_ns : 0;
}

/* The original's I/O time a replay's is set against: without the ops it did not replay,
 * once they are a share worth telling apart (UNREPLAYED_CMP_SHARE). */
static uint64_t orig_io_compared(const struct report *rep, const struct report_run *run)
{
	const struct report_run *o = orig(rep);

	if (unreplayed_share(rep, run) < UNREPLAYED_CMP_SHARE || run->unreplayed_ns >= o->io_ns)
		return o->io_ns;
	return o->io_ns - run->unreplayed_ns;
}

static int cmp_kind_total(const void *a, const void *b, void *arg)
{
	const struct report *rep = arg;
	int x = *(const int *)a, y = *(const int *)b;
	uint64_t tx = 0, ty = 0;
	/* The original's I/O time first, then the replays' for kinds only they have. */
	for (size_t r = 0; r < rep->nruns && !tx && !ty; r++) {
		tx = rep->runs[r].kinds[x].lat.total + rep->runs[r].kinds[x].lat.n;
		ty = rep->runs[r].kinds[y].lat.total + rep->runs[r].kinds[y].lat.n;
	}
	return tx < ty ? 1 : tx > ty ? -1 : x - y;
}

static int cmp_file_total(const void *a, const void *b, void *arg)
{
	const struct report_run *run = arg;
	const struct report_file *x = run->files[*(const size_t *)a];
	const struct report_file *y = run->files[*(const size_t *)b];
	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return strcmp(x->path, y->path);
}

static void order_rows(struct report *rep)
{
	rep->norder = 0;
	for (int k = 0; k < REPORT_KINDS; k++) {
		for (size_t r = 0; r < rep->nruns; r++) {
			if (rep->runs[r].kinds[k].lat.n) {
				rep->order[rep->norder++] = k;
				break;
			}
		}
	}
	qsort_r(rep->order, rep->norder, sizeof(int), cmp_kind_total, rep);
}

static int cmp_fkind_total(const void *a, const void *b)
{
	const struct report_fkind *x = a, *y = b;
	if (x->lat.total != y->lat.total)
		return x->lat.total < y->lat.total ? 1 : -1;
	return (int)x->kind - (int)y->kind;
}

static int order_files(struct report *rep)
{
	const struct report_run *o = orig(rep);

	/* --by file rows: each file's op types by their time there. */
	for (size_t i = 0; i < o->nfiles; i++)
		if (o->files[i]->nkinds > 1)
			qsort(o->files[i]->kinds, o->files[i]->nkinds, sizeof(struct report_fkind),
			      cmp_fkind_total);
	size_t *idx = malloc((o->nfiles ? o->nfiles : 1) * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < o->nfiles; i++)
		idx[i] = i;
	qsort_r(idx, o->nfiles, sizeof(*idx), cmp_file_total, (void *)o);
	rep->hot = idx;
	rep->nhot = o->nfiles < rep->top ? o->nfiles : rep->top;
	return 0;
}

static int is_afap(const struct report_run *run)
{
	return run->timing && !strncmp(run->timing, "afap", 4);
}

static double meta_num(const struct report_run *run, const char *key)
{
	const char *v = report_run__meta(run, key);

	return v ? strtod(v, NULL) : 0;
}

static void judge_cpu(struct report *rep, size_t ri)
{
	const struct report_run *run = &rep->runs[ri];
	double cpus = meta_num(run, "replay.cpus"), span = (double)(run->last_ns - run->first_ns);
	double feed =
	    meta_num(run, "replay.cpu_ns.dispatch") + meta_num(run, "replay.cpu_ns.writer");
	/* staged (replay.segments): the trace was read and the results written in the pauses
	 * between segments, which the span leaves out; only the workers ran in it */
	int staged = report_run__meta(run, "replay.segments") != NULL;
	double busy = meta_num(run, "replay.cpu_ns.workers") + (staged ? 0 : feed);

	if (!is_afap(run) || cpus < 1 || span <= 0 || busy < CPU_BOUND_SHARE * cpus * span)
		return;
	if (staged)
		say(rep, REPORT_V_CPU_BOUND, (int)ri, -1, 0,
		    "replay on %s kept all %.0f CPUs busy with its ops (%.0f%% of its span): as fast "
		    "as possible it was bound by the CPU, not by the storage; a machine with CPUs "
		    "to spare measures the storage",
		    run->label, cpus, 100 * busy / (cpus * span));
	else
		say(rep, REPORT_V_CPU_BOUND, (int)ri, -1, 0,
		    "replay on %s kept all %.0f CPUs busy (%.0f%% of its span): as fast as possible "
		    "it was bound by the CPU, not by the storage; reading the trace and writing "
		    "results took %.0f%% of that CPU; a machine with CPUs to spare measures the "
		    "storage",
		    run->label, cpus, 100 * busy / (cpus * span), 100 * feed / busy);
}

/*
 * A trace of syscalls replayed with --engine io_uring or libaio: its reads and writes went out
 * as requests, many of a thread in flight, each measured from its submission to its reaping,
 * so that their latencies hold the engine's cost as well as the storage's (a buffered request
 * the kernel cannot serve at once waits for a kernel worker thread). A Xapian indexer's
 * page-cached preads on tmpfs took 1.9 us at p50 through the syscall, 107 us as io_uring
 * requests, and the verdict read only "slower". When that put more of them in flight than
 * the original had, the note says how many: dd's sequential 1 MiB O_DIRECT writes (0.9 in
 * flight) replayed through io_uring with 2.7 (up to 8) read "write p50 rises from 674 us to
 * 3.55 ms (5.26x slower)", where much of it was the queue the replay made.
 */
static void judge_engine(struct report *rep, size_t ri)
{
	const struct report_run *run = &rep->runs[ri], *o = orig(rep);
	double d = report_run__data_depth(run), od = report_run__data_depth(o);
	char queue[96] = "";
	uint64_t n = 0;

	if (!run->engine || !strcmp(run->engine, "sync"))
		return;
	for (unsigned k = 0; k < REEL_OP__COUNT; k++)
		if (reel_op__is_read(k) || reel_op__is_write(k))
			n += o->kinds[k].lat.n;
	if (n < MIN_OPS)
		return;
	/* more in flight than the application ever had: the queue is the replay's own */
	if (report_run__engine_async(run) && run->data_n && d >= ENGINE_DEPTH_RATIO * od &&
	    d >= od + ENGINE_DEPTH_MIN)
		snprintf(queue, sizeof(queue), ": %.1f on average, the original %.1f", d, od);
	say(rep, REPORT_V_NOTE, (int)ri, -1, 0,
	    "on %s the application's reads and writes, syscalls in the original, went out as %s "
	    "requests, several of a thread in flight%s: each is timed from its submission to its "
	    "reaping, so the engine's own cost%s is in their latencies (a buffered request the "
	    "kernel cannot serve at once waits for a kernel worker), not only the storage's; "
	    "--engine sync compares the storage alone",
	    run->label, run->engine, queue, queue[0] ? ", and the queue it made," : "");
}

/* the original's threads mostly issued each op as the previous one ended (I/O bound) */
static int closed_loop(const struct report_run *o)
{
	return o->followers >= MIN_OPS &&
	       (double)o->chained >= CLOSED_LOOP_SHARE * (double)o->followers;
}

static double orig_chained_pct(const struct report *rep)
{
	const struct report_run *o = orig(rep);

	return o->followers ? 100.0 * (double)o->chained / (double)o->followers : 0;
}

/*
 * A result older than format 1.2 (no wait_ns): the ops that waited for ops of other threads
 * they are kept after (its meta replay.order_waits) are in the wake-up lateness, which cannot
 * tell them apart, and where the op waited for was slow on the target that wait is the
 * storage's, not the replayer's (Go moves goroutines between threads: in an etcd replay a
 * close counted 351 ms late had waited for a 75 ms ftruncate on another thread).
 */
static void order_waits_note(struct report *rep, const struct report_run *run, size_t ri)
{
	const char *n = report_run__meta(run, "replay.order_waits");
	const char *ns = report_run__meta(run, "replay.order_wait_ns");
	const char *max = report_run__meta(run, "replay.order_wait_max_ns");
	char a[32], b[32];

	if (!n || !ns || !max || !strtoull(n, NULL, 10))
		return;
	say(rep, REPORT_V_NOTE, (int)ri, -1, 0,
	    "on %s, %s ops waited for ops of other threads they are kept after (%s in all, the "
	    "longest %s): those waits are in the wake-up lateness, and where the op waited for "
	    "was slow on the target they are the storage's, not the replayer's",
	    run->label, n, report_fmt__dur(strtoull(ns, NULL, 10), a, sizeof(a)),
	    report_fmt__dur(strtoull(max, NULL, 10), b, sizeof(b)));
}
/*
 * Other processes' CPU time over the replay (the result's meta replay.cpu_ns.others): on a
 * machine shared with other work the replayer's threads wait for a CPU and wake up late,
 * which the lateness cannot tell from the replayer's own slowness. Said when they kept the
 * machine's CPUs at least OTHERS_BUSY_SHARE busy over the replay's span (dovecot replayed
 * on tmpfs while other jobs held a load average of 11 on 2 CPUs: wake-up lateness p99 2 s,
 * "the replayer woke up late", and nothing said why).
 */
static void others_note(struct report *rep, const struct report_run *run, size_t ri)
{
	double cpus = meta_num(run, "replay.cpus"), span = (double)(run->last_ns - run->first_ns);
	const char *v = report_run__meta(run, "replay.cpu_ns.others");
	double others = v ? strtod(v, NULL) : 0;

	/* /proc/stat counts in ticks (10 ms): over less than a second the share is not known
	 * well enough to say (a 46 ms replay read "142% busy") */
	if (!v || cpus < 1 || span < OTHERS_MIN_SPAN_NS || others < OTHERS_BUSY_SHARE * cpus * span)
		return;
	double share = others / (cpus * span);
	say(rep, REPORT_V_NOTE, (int)ri, -1, 0,
	    "while %s was replayed, other processes (or the hypervisor's other guests) kept the "
	    "machine's %.0f CPUs %.0f%% busy: its threads waited for a CPU, so much of its "
	    "wake-up lateness is theirs; replay on a quiet machine to judge the schedule",
	    run->label, cpus, 100 * (share < 1 ? share : 1));
}

/* "fallocate 81% of it (1 op: 7.47 ms against the original's 252 µs)": the op types whose
 * time beyond the original's made the backlog, most first; the share of it they made */
static double pace_kinds(const struct report *rep, const struct report_run *run, char *buf,
			 size_t len)
{
	const struct report_run *o = orig(rep);
	double named = 0;
	size_t at = 0;
	int done[REPORT_KINDS] = {0};
	char name[32], a[32], b[32];

	buf[0] = 0;
	for (int n = 0; n < PACE_CAUSE_KINDS && at < len; n++) {
		int best = -1;

		for (int k = 0; k < REPORT_KINDS; k++)
			if (!done[k] && run->kinds[k].backlog_ns &&
			    (best < 0 || run->kinds[k].backlog_ns > run->kinds[best].backlog_ns))
				best = k;
		if (best < 0)
			break;
		done[best] = 1;
		double share = (double)run->kinds[best].backlog_ns / (double)run->backlog_rise_ns;
		const struct hist *h = &run->kinds[best].lat;

		if (share < PACE_CAUSE_SHARE)
			break;
		named += share;
		report_kind__name(best, name, sizeof(name));
		report_fmt__dur((uint64_t)hist__mean(h), a, sizeof(a));
		report_fmt__dur((uint64_t)hist__mean(&o->kinds[best].lat), b, sizeof(b));
		if (h->n == 1)
			at += (size_t)snprintf(buf + at, len - at,
					       "%s%s %.0f%% of it (1 op: %s against the original's %s)",
					       at ? ", " : "", name, 100 * share, a, b);
		else
			at += (size_t)snprintf(buf + at, len - at,
					       "%s%s %.0f%% (%llu ops: %s on average against the "
					       "original's %s)",
					       at ? ", " : "", name, 100 * share,
					       (unsigned long long)h->n, a, b);
	}
	return named;
}

/* the file whose ops made most of the backlog the named op types made, or NULL */
static const struct report_file *pace_file(const struct report_run *run)
{
	const struct report_file *best = NULL;
	uint64_t made = 0;

	for (int k = 0; k < REPORT_KINDS; k++)
		made += run->kinds[k].backlog_ns;
	for (size_t i = 0; i < run->nfiles; i++)
		if (!best || run->files[i]->backlog_ns > best->backlog_ns)
			best = run->files[i];
	return best && (double)best->backlog_ns >= PACE_CAUSE_FILE * (double)made ? best : NULL;
}

/* The fewest of the schedule's bins holding STRETCH_OPS of the ops behind: [*from, *to). */
static void behind_stretch(const struct report_run *run, int *from, int *to)
{
	uint64_t want = (uint64_t)ceil(STRETCH_OPS * (double)run->behind_ops);

	*from = 0;
	*to = REPORT_BEHIND_BINS;
	for (int i = 0; i < REPORT_BEHIND_BINS; i++) {
		uint64_t n = 0;

		for (int j = i; j < REPORT_BEHIND_BINS && j - i < *to - *from; j++) {
			n += run->behind_bins[j];
			if (n >= want) {
				*from = i;
				*to = j + 1;
				break;
			}
		}
	}
}

/* "; only a stretch of the run was behind: ..." when the ops behind were due close together */
static void pace_when(const struct report *rep, const struct report_run *run, char *buf,
		      size_t len)
{
	const struct report_run *o = orig(rep);
	double share = (double)run->behind_ops / (double)run->lateness.n;
	int from, to;
	char a[32], b[32], c[32], d[32];

	buf[0] = 0;
	if (!run->behind_ops || !run->behind_bin_ns)
		return;
	behind_stretch(run, &from, &to);
	if (to - from > STRETCH_SPAN * REPORT_BEHIND_BINS) {
		snprintf(buf, len,
			 "; %.1f%% of the ops were %s or more behind their schedule, spread over the "
			 "run",
			 100 * share, report_fmt__dur(REPORT_BEHIND_NS, a, sizeof(a)));
		return;
	}
	snprintf(buf, len,
		 "; only a stretch of the run was behind: %.1f%% of the ops were %s or more "
		 "behind their schedule, %.0f%% of them due between %s and %s of the original's "
		 "%s",
		 100 * share, report_fmt__dur(REPORT_BEHIND_NS, a, sizeof(a)), 100 * STRETCH_OPS,
		 report_fmt__dur((uint64_t)from * run->behind_bin_ns, b, sizeof(b)),
		 report_fmt__dur((uint64_t)to * run->behind_bin_ns, c, sizeof(c)),
		 report_fmt__dur(o->last_ns - o->first_ns, d, sizeof(d)));
}

/*
 * PACE NOT KEPT, and what made it: the op types (and file) whose time beyond the original's
 * put their threads behind, or the time between ops; and whether the ops behind were a
 * stretch of the run (a setup phase) or all of it.
 */
static void judge_pace_cause(struct report *rep, size_t ri)
{
	const struct report_run *run = &rep->runs[ri];
	const struct report_file *f = pace_file(run);
	char kinds[512], when[256], file[300] = "";
	double named;

	if (!run->backlog_rise_ns)
		return;
	named = pace_kinds(rep, run, kinds, sizeof(kinds));
	pace_when(rep, run, when, sizeof(when));
	if (f && named > 0)
		snprintf(file, sizeof(file), ", mostly on %s", f->path);
	double between = 0;
	for (int k = 0; k < REPORT_KINDS; k++)
		between += (double)run->kinds[k].backlog_ns;
	between = 1 - between / (double)run->backlog_rise_ns;
	if (between >= 0.5)
		say(rep, REPORT_V_PACE_CAUSE, (int)ri, -1, 0,
		    "on %s most of the backlog (%.0f%% of its build-up) built up "
		    "between ops or in ops no slower than the original's: the replayer's step from "
		    "one op to the next, or waits for ops of other threads, took longer than the "
		    "original's gaps%s%s%s%s",
		    run->label, 100 * between,
		    named > 0 ? "; ops slower than the original's (beyond its p90 of their type) "
				"made the rest: "
			      : "",
		    kinds, file, when);
	else if (named > 0)
		say(rep, REPORT_V_PACE_CAUSE, (int)ri, -1, 0,
		    "on %s the backlog was made by ops slower than the original's (beyond its p90 "
		    "of their type), by the share of its build-up each made: %s%s%s",
		    run->label, kinds, file, when);
	else
		say(rep, REPORT_V_PACE_CAUSE, (int)ri, -1, 0,
		    "on %s the backlog was made by ops of many types, none of them %.0f%% of it%s",
		    run->label, 100 * PACE_CAUSE_SHARE, when);
}

static void judge_lateness(struct report *rep, size_t ri)
{
	struct report_run *run = &rep->runs[ri];
	char a[32], b[32], c[64], d[32];

	if (is_afap(run)) {
		/* one thread of syscalls has one op in flight, as in the original: nothing queues,
		 * only the think time between ops is gone */
		if (orig(rep)->threads <= 1 && !orig(rep)->async_n)
			say(rep, REPORT_V_NOTE, (int)ri, -1, 0,
			    "replay on %s ran as fast as possible: its ops went back to back, "
			    "without the original's time between them, so lateness is not judged",
			    run->label);
		else
			say(rep, REPORT_V_NOTE, (int)ri, -1, 0,
			    "replay on %s ran as fast as possible: its ops queued as they never did "
			    "in the original, so latencies include that load and lateness is not "
			    "judged",
			    run->label);
		return;
	}
	if (!run->lateness.n)
		return;
	uint64_t p99 = hist__quantile(&run->lateness, 0.99);
	uint64_t wake = hist__quantile(&run->wake, 0.99);
	uint64_t backlog = hist__quantile(&run->backlog, 0.99);
	uint64_t gap = hist__quantile(&orig(rep)->gap, 0.5);
	double limit = LATE_GAP_SHARE * (double)gap;
	if (limit < LATE_FLOOR_NS)
		limit = LATE_FLOOR_NS;
	double late_share = (double)run->late_1ms / (double)run->lateness.n;
	if (limit > LATE_FLOOR_NS)
		snprintf(c, sizeof(c), "%.0f%% of the original's median op gap",
			 LATE_GAP_SHARE * 100);
	else
		snprintf(c, sizeof(c), "the 1 ms floor");
	/*
	 * Both are judged, the backlog first: it says the storage could not serve the app's
	 * pace, the finding a storage engineer replays for, and it stands even when the
	 * replayer woke up late too, as it is counted on the schedule's timeline with the
	 * replay's latencies, apart from the wake-ups. Only a late wake-up makes the latencies
	 * doubtful: a thread still busy with its previous op is the target's own slowness,
	 * which is what the replay measures. A replay that fell behind used to get no pace
	 * verdict at all, and a Redis AOF replay on a slow disk (backlog p99 66 ms, wake-up
	 * lateness p99 11 ms) read only as a doubtful replay.
	 */
	run->backlogged = (double)backlog > limit;
	run->fell_behind = (double)wake > limit;
	/* what the replay measured of itself can show that its own pace was the limit, behind
	 * either way: a worker bound by the CPU whose ops were all fast never has a backlog
	 * (its steps between ops count only within one), its lateness is all wake-up */
	char why[512];
	run->replayer_limit = run->backlogged || run->fell_behind
				  ? (int)report_run__replayer_limit(
					run, run->backlogged ? backlog : wake, why, sizeof(why))
				  : 0;
	if (run->backlogged && run->replayer_limit == REPORT_LIMIT_MACHINE) {
		/* the target's work in the kernel waited for those CPUs too: its latencies as well
		 * as the schedule are the machine's in part */
		say(rep, REPORT_V_PACE, (int)ri, -1, 0,
		    "on %s the replay could not keep the original pace, and the replayer was held "
		    "back by the machine, not the target: %s (backlog p99 %s > %s, %s); replay on "
		    "a quiet machine to judge the target",
		    run->label, why, report_fmt__dur(backlog, a, sizeof(a)),
		    report_fmt__dur((uint64_t)limit, b, sizeof(b)), c);
	} else if (run->backlogged && run->replayer_limit) {
		say(rep, REPORT_V_PACE, (int)ri, -1, 0,
		    "on %s the replay could not keep the original pace, and the replayer was the "
		    "limit, not the target: %s (backlog p99 %s > %s, %s); the latencies are real, "
		    "the schedule was not kept",
		    run->label, why, report_fmt__dur(backlog, a, sizeof(a)),
		    report_fmt__dur((uint64_t)limit, b, sizeof(b)), c);
	} else if (run->backlogged) {
		say(rep, REPORT_V_PACE, (int)ri, -1, 0,
		    "on %s the application could not keep its original pace: ops waited for their "
		    "thread's previous op (backlog p99 %s > %s, %s)%s; the latencies are real, the "
		    "schedule was not kept",
		    run->label, report_fmt__dur(backlog, a, sizeof(a)),
		    report_fmt__dur((uint64_t)limit, b, sizeof(b)), c,
		    run->fell_behind ? "; that backlog is the storage's, counted apart from the "
				       "late wake-ups below"
				     : "");
		judge_pace_cause(rep, ri);
		if (closed_loop(orig(rep)) && run->timing && !strcmp(run->timing, "original"))
			say(rep, REPORT_V_NOTE, (int)ri, -1, 0,
			    "the original issued its ops back to back (%.0f%% began as its thread's "
			    "previous op ended), so its pace was its own storage's: replay it on %s "
			    "with --timing think to keep that closed loop instead of the schedule",
			    orig_chained_pct(rep), run->label);
	}
	/* On top of a backlog, late wake-ups bunch up more ops than the storage alone did: the
	 * load each op met is doubtful, its own latency is still measured. */
	if (run->fell_behind && run->backlogged)
		say(rep, REPORT_V_BEHIND, (int)ri, -1, 0,
		    "replay on %s also fell behind its schedule (wake-up lateness p99 %s > %s, %s; "
		    "median op gap %s): on top of the backlog the replayer woke up late, so ops "
		    "bunched up more than the storage made them; each op's latency is still "
		    "measured on its own, the load it met is doubtful",
		    run->label, report_fmt__dur(wake, a, sizeof(a)),
		    report_fmt__dur((uint64_t)limit, b, sizeof(b)), c,
		    report_fmt__dur(gap, d, sizeof(d)));
	else if (run->fell_behind)
		say(rep, REPORT_V_BEHIND, (int)ri, -1, 0,
		    "replay on %s fell behind its schedule (wake-up lateness p99 %s > %s, %s; "
		    "median op gap %s): its latencies are doubtful%s%s%s",
		    run->label, report_fmt__dur(wake, a, sizeof(a)),
		    report_fmt__dur((uint64_t)limit, b, sizeof(b)), c,
		    report_fmt__dur(gap, d, sizeof(d)),
		    run->replayer_limit == REPORT_LIMIT_MACHINE
			? "; the replayer was held back by the machine, not the target: "
		    : run->replayer_limit ? "; the replayer was the limit, not the target: "
					  : "",
		    run->replayer_limit ? why : "",
		    run->replayer_limit == REPORT_LIMIT_MACHINE
			? "; replay on a quiet machine to judge the target"
			: "");
	if (run->fell_behind) {
		if (!run->has_wait)
			order_waits_note(rep, run, ri);
		/* (the machine named as the limit above says as much) */
		if (run->replayer_limit != REPORT_LIMIT_MACHINE)
			others_note(rep, run, ri);
	}
	/* since format 1.2 those waits are counted apart, per op: neither the replayer's nor
	 * the pace's, they are said when they delay as many ops as a late wake-up would be
	 * flagged for (the p99 over all ops); the numbers said are the waiting ops' own */
	int order_said = hist__quantile(&run->order, 0.99) > limit;
	if (order_said)
		say(rep, REPORT_V_NOTE, (int)ri, -1, 0,
		    "on %s, %llu ops waited for ops of other threads they are kept after (the open "
		    "of their fd, a write they read), %s at p50 and %s at most, which puts the p99 "
		    "of all ops' waits over %s (%s): counted apart from the wake-up lateness, that "
		    "wait is the storage's where the op waited for was slow on it",
		    run->label, (unsigned long long)run->order_ops,
		    report_fmt__dur(hist__quantile(&run->order_waited, 0.5), a, sizeof(a)),
		    report_fmt__dur(run->order.max, d, sizeof(d)),
		    report_fmt__dur((uint64_t)limit, b, sizeof(b)), c);
	if (!run->fell_behind && !run->backlogged && !order_said && late_share > LATE_1MS_SHARE) {
		say(rep, REPORT_V_NOTE, (int)ri, -1, 0,
		    "replay on %s: %.1f%% of ops started more than 1 ms late (lateness p99 %s)",
		    run->label, late_share * 100, report_fmt__dur(p99, a, sizeof(a)));
	}
}

static void judge_errors(struct report *rep, size_t ri)
{
	const struct report_run *run = &rep->runs[ri], *o = orig(rep);
	double extra = 0;

	/* Per op type, failures beyond the original's count of them. Not scaled by the ops
	 * issued: a replay that leaves out ops (non-files, /proc) keeps the failing ones more
	 * often than the others, and no type should fail more often than it did. */
	for (int k = 0; k < REPORT_KINDS; k++)
		if (run->kinds[k].errors > o->kinds[k].errors)
			extra += (double)(run->kinds[k].errors - o->kinds[k].errors);
	double limit = ERROR_EXTRA_SHARE * (double)run->ops_used;
	if (extra >= 1 && extra > limit)
		say(rep, REPORT_V_ERRORS, (int)ri, -1, 0,
		    "replay on %s: %.0f more failed ops than in the original "
		    "(%llu of %llu failed; original: %llu of %llu): failed ops cost what failing "
		    "costs, not what the work costs",
		    run->label, extra, (unsigned long long)run->errors,
		    (unsigned long long)run->ops_used, (unsigned long long)o->errors,
		    (unsigned long long)o->ops_used);
}

/*
 * An op type whose replay failed where the original's succeeded, for a share of its ops: its
 * latencies are largely a failure's (an EXDEV rename across --map destinations costs 2 us
 * where the original's rename took 229 us: "98x faster", 20 of 20 failed, and no word of it
 * when the failures were too few among all ops for judge_errors). Said instead of a change;
 * 1: said.
 */
static int failed_apart(struct report *rep, size_t ri, int k)
{
	const struct report_run *run = &rep->runs[ri], *o = orig(rep);
	const struct report_kind *rk = &run->kinds[k], *ok = &o->kinds[k];
	char name[32];

	if (rk->errors <= ok->errors || !rk->lat.n ||
	    (double)(rk->errors - ok->errors) < KIND_ERROR_SHARE * (double)rk->lat.n)
		return 0;
	say(rep, REPORT_V_ERRORS, (int)ri, k, 0,
	    "%s on %s: %llu of %llu failed (original: %llu of %llu): failed ops cost what "
	    "failing costs, so its latencies are not compared; the replay's summary names them",
	    report_kind__name(k, name, sizeof(name)), run->label,
	    (unsigned long long)rk->errors, (unsigned long long)rk->lat.n,
	    (unsigned long long)ok->errors, (unsigned long long)ok->lat.n);
	return 1;
}

static void say_change(struct report *rep, size_t ri, int k)
{
	const struct report_run *run = &rep->runs[ri], *o = orig(rep);
	const struct report_cmp *c = &run->cmp[k];
	const struct hist *ho = &o->kinds[k].lat, *hr = &run->kinds[k].lat;
	char name[32], a[32], b[32], x[32], y[32], rs[32], rr_s[32];

	report_kind__name(k, name, sizeof(name));
	/* Headline: whichever of p50, p99, p90 and the mean moved most */
	int h = cmp_headline(c, c->change == REPORT_FASTER	  ? -1
				: c->change == REPORT_SLOWER ? 1
							     : 0);
	const char *hname = cmp_stat_name[h];
	double rr = cmp_stat(c, h);
	uint64_t vo = hist_stat(ho, cmp_stat_q[h]), vr = hist_stat(hr, cmp_stat_q[h]);

	if (c->change == REPORT_MIXED) {
		/* the one that fell most, and the one that rose most */
		int f = cmp_headline(c, -1), s = cmp_headline(c, 1);
		char c1[32], c2[32];

		say(rep, REPORT_V_MIXED, (int)ri, k, 1 / cmp_stat(c, s),
		    "%s on %s pulls apart: %s rises from %s to %s (%s) while %s falls from %s to %s "
		    "(%s), KS D %.2f",
		    name, run->label, cmp_stat_name[s],
		    report_fmt__dur(hist_stat(ho, cmp_stat_q[s]), a, sizeof(a)),
		    report_fmt__dur(hist_stat(hr, cmp_stat_q[s]), b, sizeof(b)),
		    report_fmt__ratio(cmp_stat(c, s), c1, sizeof(c1)), cmp_stat_name[f],
		    report_fmt__dur(hist_stat(ho, cmp_stat_q[f]), x, sizeof(x)),
		    report_fmt__dur(hist_stat(hr, cmp_stat_q[f]), y, sizeof(y)),
		    report_fmt__ratio(cmp_stat(c, f), c2, sizeof(c2)), c->ks_d);
		return;
	}
	if (c->change == REPORT_TAIL_ONLY && c->ks_d >= KS_CHANGE) {
		/* the distributions differ as much as a change does, but with too few ops for
		 * the test to tell it from chance: not "the bulk is unchanged" (Prometheus's 5
		 * fallocates, p50 0.41x, KS D 0.40) */
		say(rep, REPORT_V_TAIL, (int)ri, k, 1 / rr,
		    "%s on %s: %s moves from %s to %s (%s), too few ops to tell a change from "
		    "chance (%llu and %llu; KS D %.2f, p %.2g)",
		    name, run->label, hname, report_fmt__dur(vo, a, sizeof(a)),
		    report_fmt__dur(vr, b, sizeof(b)), report_fmt__ratio(rr, rs, sizeof(rs)),
		    (unsigned long long)ho->n, (unsigned long long)hr->n, c->ks_d, c->ks_p);
		return;
	}
	if (c->change == REPORT_TAIL_ONLY) {
		say(rep, REPORT_V_TAIL, (int)ri, k, 1 / rr,
		    "%s on %s: %s moves from %s to %s (%s) but the bulk is unchanged "
		    "(KS D %.2f, p50 %s)",
		    name, run->label, hname, report_fmt__dur(vo, a, sizeof(a)),
		    report_fmt__dur(vr, b, sizeof(b)), report_fmt__ratio(rr, rs, sizeof(rs)),
		    c->ks_d, report_fmt__ratio(c->ratio_p50, x, sizeof(x)));
		return;
	}
	if (c->change == REPORT_SHIFT) {
		report_fmt__ratio(c->ratio_p50, rs, sizeof(rs));
		report_fmt__ratio(c->ratio_p99, rr_s, sizeof(rr_s));
		say(rep, REPORT_V_SHIFT, (int)ri, k, 1 / c->ratio_p50,
		    "%s on %s shifts %s: p50 %s → %s (%s), p99 %s → %s (%s), KS D %.2f: most ops "
		    "moved, by less than the %.2f× called faster or slower",
		    name, run->label, c->ratio_p50 < 1 ? "down" : "up",
		    report_fmt__dur(hist__quantile(ho, 0.5), a, sizeof(a)),
		    report_fmt__dur(hist__quantile(hr, 0.5), b, sizeof(b)), rs,
		    report_fmt__dur(hist__quantile(ho, 0.99), x, sizeof(x)),
		    report_fmt__dur(hist__quantile(hr, 0.99), y, sizeof(y)), rr_s, c->ks_d,
		    RATIO_CHANGE);
		return;
	}
	int faster = c->change == REPORT_FASTER;
	char ratio_s[32], others[96] = "";
	size_t len = 0;
	/* the other three beside it, in the table's order, by as much faster or slower as the
	 * headline's words say: "(7.21× slower; p50 1.08×, p99 1.27×, mean 2.35×" */
	static const int shown[CMP_STATS] = {0, 2, 1, 3}; /* p50, p90, p99, mean */
	for (int i = 0; i < CMP_STATS; i++) {
		double r = cmp_stat(c, shown[i]);

		if (shown[i] == h)
			continue;
		len +=
		    snprintf(others + len, sizeof(others) - len, "%s %s, ", cmp_stat_name[shown[i]],
			     report_fmt__ratio(faster && r > 0 ? 1 / r : r, x, sizeof(x)));
	}
	report_fmt__ratio(faster ? 1 / rr : rr, ratio_s, sizeof(ratio_s));
	say(rep, faster ? REPORT_V_FASTER : REPORT_V_SLOWER, (int)ri, k, 1 / rr,
	    "%s %s %s from %s to %s on %s (%s %s; %sKS D %.2f)", name, hname,
	    faster ? "falls" : "rises", report_fmt__dur(vo, a, sizeof(a)),
	    report_fmt__dur(vr, b, sizeof(b)), run->label, ratio_s, faster ? "faster" : "slower",
	    others, c->ks_d);
}

/*
 * One line for the op types that did not change: "reads, writes unchanged on X (...)"; a
 * class with an op type that did change is named "other syncs" (fsync slower, sync_file_range
 * not), and the class of other ops then "the rest of the other ops" (fadvise64 slower, lseek
 * not), not "other other ops".
 */
static void say_unchanged(struct report *rep, size_t ri)
{
	const struct report_run *run = &rep->runs[ri], *o = orig(rep);
	char classes[160] = "", list[384] = "", name[32], rs[32];
	size_t clen = 0, len = 0, nk = 0;
	int seen[REPORT_CLASSES] = {0}, changed[REPORT_CLASSES] = {0}, cached = 1, reads = 0;

	for (size_t i = 0; i < rep->norder; i++) {
		int k = rep->order[i];
		const struct report_cmp *c = &run->cmp[k];
		enum report_class cl = report_kind__class(k);
		if (c->valid && (c->change == REPORT_FASTER || c->change == REPORT_SLOWER ||
				 c->change == REPORT_TAIL_ONLY || c->change == REPORT_MIXED ||
				 c->change == REPORT_SHIFT))
			changed[cl] = 1;
		if (!c->valid || c->change != REPORT_SAME)
			continue;
		if (cl == REPORT_CLASS_READ) {
			reads = 1;
			if (hist__quantile(&o->kinds[k].lat, 0.5) > PAGE_CACHE_NS)
				cached = 0;
		}
		seen[cl] = 1;
		if (nk++ < 4)
			len += snprintf(list + len, sizeof(list) - len, "%s%s p50 %s",
					len ? ", " : "", report_kind__name(k, name, sizeof(name)),
					report_fmt__ratio(c->ratio_p50, rs, sizeof(rs)));
	}
	if (!nk)
		return;
	if (nk > 4)
		snprintf(list + len, sizeof(list) - len, ", and %zu more", nk - 4);
	for (int cl = 0; cl < REPORT_CLASSES; cl++) {
		const char *rest = cl == REPORT_CLASS_OTHER ? "the rest of the " : "other ";

		if (seen[cl])
			clen += snprintf(classes + clen, sizeof(classes) - clen, "%s%s%s",
					 clen ? ", " : "", changed[cl] ? rest : "",
					 report_class__name(cl));
	}
	say(rep, REPORT_V_SAME, (int)ri, -1, 1, "%s unchanged on %s (%s)%s", classes, run->label,
	    list,
	    reads && cached && !changed[REPORT_CLASS_READ]
		? "; reads already served from page cache"
		: "");
}

/*
 * Reads that got faster on a disk whose file set the page cache held when the replay began
 * (replay_cache.c: preparing the files wrote them, a replay before read them): the speed-up
 * is memory's. Said with the read type that shows it most, once per replay; a replay whose
 * set was mostly out of memory (--cold) is not suspected.
 */
static void judge_cache(struct report *rep, size_t ri)
{
	const struct report_run *run = &rep->runs[ri], *o = orig(rep);
	double disk = meta_num(run, "replay.cache.disk_bytes");
	double resident = meta_num(run, "replay.cache.resident_bytes");
	char name[32], a[32], b[32], mib[32];
	int best = -1;
	double best_gain = 1;

	if (disk <= 0 || resident < CACHED_SHARE * disk)
		return;
	for (size_t i = 0; i < rep->norder; i++) {
		int k = rep->order[i];
		const struct report_cmp *c = &run->cmp[k];
		uint64_t op50, rp50;

		if (report_kind__class(k) != REPORT_CLASS_READ || !c->valid ||
		    c->change != REPORT_FASTER)
			continue;
		op50 = hist__quantile(&o->kinds[k].lat, 0.5);
		rp50 = hist__quantile(&run->kinds[k].lat, 0.5);
		/* from a device's time in the original to a memory copy's in the replay */
		if (op50 <= PAGE_CACHE_NS || rp50 > PAGE_CACHE_NS || !rp50)
			continue;
		if ((double)op50 / (double)rp50 > best_gain) {
			best_gain = (double)op50 / (double)rp50;
			best = k;
		}
	}
	if (best < 0)
		return;
	snprintf(mib, sizeof(mib), "%.1f MiB", disk / 1048576.0);
	say(rep, REPORT_V_NOTE, (int)ri, best, 0,
	    "on %s, %.0f%% of the file set (%s on disk-backed storage) was in the page cache "
	    "when the replay began (%s): %s p50 %s, against the original's %s, is memory's "
	    "speed, not the device's; replay with --cold to read from the device",
	    run->label, 100.0 * resident / disk, mib,
	    meta_num(run, "replay.cold") > 0 ? "even after --cold"
					     : "its preparation or an earlier replay put it there",
	    report_kind__name(best, name, sizeof(name)),
	    report_fmt__dur(hist__quantile(&run->kinds[best].lat, 0.5), b, sizeof(b)),
	    report_fmt__dur(hist__quantile(&o->kinds[best].lat, 0.5), a, sizeof(a)));
}

/*
 * The replay's bottom line: its I/O time (every measured op's latency, summed) and how long
 * it ran, against the original's. What the op types' lines add up to; with --timing think
 * or afap the duration is what the storage made of the run, with original timing it is the
 * schedule's unless the target could not keep it.
 */
static void judge_total(struct report *rep, size_t ri)
{
	const struct report_run *run = &rep->runs[ri], *o = orig(rep);
	uint64_t oio = orig_io_compared(rep, run);
	char a[32], b[32], c[32], d[32], r1[32], r2[32], left[160] = "";

	if (!oio || !run->io_ns)
		return;
	if (oio != o->io_ns)
		snprintf(left, sizeof(left),
			 " for the ops it replayed, leaving out the %llu it did not (%.1f%% of the "
			 "original's %s)",
			 (unsigned long long)run->unreplayed_ops, 100 * unreplayed_share(rep, run),
			 report_fmt__dur(o->io_ns, c, sizeof(c)));
	say(rep, REPORT_V_TOTAL, (int)ri, -1, (double)oio / (double)run->io_ns,
	    "on %s: I/O time %s against the original's %s (%s)%s; the run took %s against %s (%s)",
	    run->label, report_fmt__dur(run->io_ns, a, sizeof(a)),
	    report_fmt__dur(oio, b, sizeof(b)),
	    report_fmt__ratio((double)run->io_ns / (double)oio, r1, sizeof(r1)), left,
	    report_fmt__dur(run->last_ns - run->first_ns, c, sizeof(c)),
	    report_fmt__dur(o->last_ns - o->first_ns, d, sizeof(d)),
	    report_fmt__ratio(o->last_ns > o->first_ns
				  ? (double)(run->last_ns - run->first_ns) /
					(double)(o->last_ns - o->first_ns)
				  : 0,
			      r2, sizeof(r2)));
}

/*
 * Said before the bottom line when the ops a replay did not issue held UNREPLAYED_WARN_SHARE
 * or more of the original's I/O time: what was replayed is not the application's workload,
 * whatever its ratios say.
 */
static void judge_unreplayed(struct report *rep, size_t ri)
{
	const struct report_run *run = &rep->runs[ri], *o = orig(rep);
	char kinds[256];

	if (unreplayed_share(rep, run) < UNREPLAYED_WARN_SHARE)
		return;
	say(rep, REPORT_V_UNREPLAYED, (int)ri, -1, 0,
	    "NOT REPLAYED on %s: %llu of the original's %llu ops, %.1f%% of its I/O time (%s; the "
	    "replay's summary says why): this replay is not the application's workload, so "
	    "neither its I/O time nor its duration says how the application would fare there; "
	    "its bottom line below compares only the ops it replayed",
	    run->label, (unsigned long long)run->unreplayed_ops, (unsigned long long)o->ops_used,
	    100 * unreplayed_share(rep, run),
	    report__unreplayed_kinds(rep, ri, kinds, sizeof(kinds)));
}

/* The bottom line's duration held by the original's gaps between ops (GAPS_SHARE). */
static void judge_gaps(struct report *rep, size_t ri)
{
	const struct report_run *run = &rep->runs[ri], *o = orig(rep);
	uint64_t ospan = o->last_ns - o->first_ns, rspan = run->last_ns - run->first_ns;
	char r1[32], r2[32], a[32], retries[256] = "";
	int think = run->timing && !strcmp(run->timing, "think");
	uint64_t oio = orig_io_compared(rep, run);

	if (!run->timing || (!think && strcmp(run->timing, "original")) || !oio ||
	    !run->io_ns || !ospan || !o->thread_span_ns)
		return;
	/* against the original's ops that were replayed: the time of those that were not
	 * fell away without a word of the storage */
	double io = (double)run->io_ns / (double)oio, dur = (double)rspan / (double)ospan;
	double gaps = 1 - (double)o->thread_io_ns / (double)o->thread_span_ns;
	if (io > GAPS_IO_RATIO || dur < GAPS_DURATION_RATIO || gaps < GAPS_SHARE)
		return;
	if (o->lock_retries)
		snprintf(
		    retries, sizeof(retries),
		    ". %llu of the original's locks were refused (fcntl_lock, flock: EAGAIN, "
		    "EACCES) and followed by a gap on their thread, %s in all: the application "
		    "slept before it tried again, a wait that faster storage may have spared it",
		    (unsigned long long)o->lock_retries,
		    report_fmt__dur(o->lock_retry_ns, a, sizeof(a)));
	say(rep, REPORT_V_GAPS, (int)ri, -1, 0,
	    "on %s the I/O time%s fell to %s the original's but the run took %s as long: %.0f%% "
	    "of the original threads' time was gaps between their ops, which %s (sleeps, lock "
	    "waits, waits on other processes the trace cannot see), so the duration says little "
	    "about the storage here; compare the I/O time%s instead%s",
	    run->label, oio != o->io_ns ? " of the ops replayed" : "",
	    report_fmt__ratio(io, r1, sizeof(r1)), report_fmt__ratio(dur, r2, sizeof(r2)),
	    100 * gaps,
	    think ? "think timing keeps as they were"
		  : "original timing keeps by starting each op at its recorded time",
	    oio != o->io_ns ? " of the ops replayed" : "", retries);
}

/*
 * An op type with too few ops for its distributions to be compared, that held a large share
 * of either run's I/O time: its time, per op, is said all the same.
 */
static int say_few(struct report *rep, size_t ri, int k)
{
	const struct report_run *run = &rep->runs[ri], *o = orig(rep);
	const struct hist *ho = &o->kinds[k].lat, *hr = &run->kinds[k].lat;
	char name[32], a[32], b[32], rs[32];
	double share = o->io_ns ? (double)ho->total / (double)o->io_ns : 0;
	double rshare = run->io_ns ? (double)hr->total / (double)run->io_ns : 0;

	if (run->cmp[k].change != REPORT_FEW_OPS || !ho->n || !hr->n ||
	    (share < FEW_OPS_SHARE && rshare < FEW_OPS_SHARE))
		return 0;
	double rr = run->cmp[k].ratio_mean; /* replay / original, per op */
	int faster = rr <= 1 / RATIO_CHANGE, slower = rr >= RATIO_CHANGE;
	say(rep, faster ? REPORT_V_FASTER : slower ? REPORT_V_SLOWER : REPORT_V_SAME, (int)ri, k,
	    rr > 0 ? 1 / rr : 0,
	    "%s on %s: %s an op against the original's %s (%s%s), %llu and %llu ops: too few for "
	    "a distribution, but %.0f%% of the original's I/O time and %.0f%% of the replay's",
	    report_kind__name(k, name, sizeof(name)), run->label,
	    report_fmt__dur((uint64_t)hist__mean(hr), a, sizeof(a)),
	    report_fmt__dur((uint64_t)hist__mean(ho), b, sizeof(b)),
	    report_fmt__ratio(faster ? 1 / rr : rr, rs, sizeof(rs)),
	    faster ? " faster" : slower ? " slower" : ", about the same",
	    (unsigned long long)ho->n, (unsigned long long)hr->n, 100 * share, 100 * rshare);
	return 1;
}

static void judge_replay(struct report *rep, size_t ri)
{
	struct report_run *run = &rep->runs[ri];
	const struct report_run *o = orig(rep);
	size_t lines = 0;
	char name[32];

	for (int k = 0; k < REPORT_KINDS; k++)
		report__cmp(&o->kinds[k].lat, &run->kinds[k].lat, &run->cmp[k]);
	judge_unreplayed(rep, ri);
	judge_total(rep, ri);
	judge_gaps(rep, ri);
	judge_lateness(rep, ri);
	judge_cpu(rep, ri);
	judge_engine(rep, ri);
	judge_errors(rep, ri);
	judge_cache(rep, ri);
	for (size_t i = 0; i < rep->norder; i++) {
		int k = rep->order[i];
		enum report_change ch = run->cmp[k].change;
		if (!run->cmp[k].valid)
			continue;
		if (failed_apart(rep, ri, k))
			continue;
		if ((ch == REPORT_FASTER || ch == REPORT_SLOWER || ch == REPORT_TAIL_ONLY ||
		     ch == REPORT_MIXED || ch == REPORT_SHIFT) &&
		    lines++ < MAX_CHANGE_LINES)
			say_change(rep, ri, k);
		if (ch == REPORT_FEW_OPS && lines < MAX_CHANGE_LINES && say_few(rep, ri, k))
			lines++;
		if (ch == REPORT_MISSING && o->kinds[k].lat.n >= MIN_OPS)
			say(rep, REPORT_V_NOTE, (int)ri, k, 0,
			    "replay on %s has no %s ops (original: %llu): not replayed", run->label,
			    report_kind__name(k, name, sizeof(name)),
			    (unsigned long long)o->kinds[k].lat.n);
	}
	if (lines > MAX_CHANGE_LINES)
		say(rep, REPORT_V_NOTE, (int)ri, -1, 0,
		    "%zu more op types changed on %s: see the table", lines - MAX_CHANGE_LINES,
		    run->label);
	say_unchanged(rep, ri);
}

/*
 * The original's async requests with no completion in the trace: unmeasured, they are in no
 * row, no I/O time and no queue depth. Said first: QEMU with aio=native (libaio, reaped from
 * the ring in user space, no io_getevents) had its 20,000 reads missing from a report that
 * read "175 ops measured, 790 us of I/O" without a word about them.
 */
static void judge_unreaped(struct report *rep)
{
	const struct report_run *o = orig(rep);
	uint64_t aio = 0, total = o->unreaped + o->async_n;
	char kinds[256];

	if (!o->unreaped)
		return;
	for (unsigned k = REPORT_KIND_AIO; k < REPORT_KIND_URING; k++)
		aio += o->kinds[k].unreaped;
	say(rep, REPORT_V_NOTE, 0, -1, 0,
	    "%llu of the original's %llu async requests have no completion in the trace (%s): "
	    "%s; their latency is not measured, and they are left out of the I/O time, the "
	    "tables and the queue depth",
	    (unsigned long long)o->unreaped, (unsigned long long)total,
	    report_run__unreaped_kinds(o, kinds, sizeof(kinds)),
	    aio ? "still in flight when the capture ended, or reaped without io_getevents (from "
		  "the AIO ring in user space, as QEMU's aio=native does)"
		: "still in flight when the capture ended");
}

/* What the original spends its I/O time on, and where. */
static void judge_original(struct report *rep)
{
	const struct report_run *o = orig(rep);
	char a[32], parts[256] = "";
	size_t len = 0;

	if (!o->io_ns) {
		say(rep, REPORT_V_NOTE, 0, -1, 0,
		    "the original trace has no storage ops to compare");
		return;
	}
	int top = 0;
	for (int c = 1; c < REPORT_CLASSES; c++)
		if (o->class_ns[c] > o->class_ns[top])
			top = c;
	double share = (double)o->class_ns[top] / (double)o->io_ns;
	/* The file holding most of that class's time. */
	const struct report_file *hot = NULL;
	for (size_t i = 0; i < o->nfiles; i++)
		if (!hot || o->files[i]->class_ns[top] > hot->class_ns[top])
			hot = o->files[i];
	if (hot && !hot->class_ns[top])
		hot = NULL;
	if (share >= DOMINANT_SHARE) {
		double in_hot = hot ? (double)hot->class_ns[top] / (double)o->class_ns[top] : 0;

		/* a file with a few percent of them says nothing: most were ops of no known file
		 * (io_uring requests on registered files, fds opened before the capture) */
		if (in_hot >= 0.10)
			snprintf(parts, sizeof(parts), ", %.0f%% of them in %s", 100.0 * in_hot,
				 hot->path);
		else
			snprintf(parts, sizeof(parts), ", most of them on no file the trace names");
		say(rep, REPORT_V_DOMINANT, 0, -1, share,
		    "%s dominate the original's I/O time: %.0f%% of %s%s", report_class__name(top),
		    share * 100, report_fmt__dur(o->io_ns, a, sizeof(a)), parts);
		return;
	}
	for (int c = 0; c < REPORT_CLASSES; c++)
		if (o->class_ns[c] * 20 >= o->io_ns) /* 5% and up */
			len += snprintf(parts + len, sizeof(parts) - len, "%s%s %.0f%%",
					len ? ", " : "", report_class__name(c),
					100.0 * (double)o->class_ns[c] / (double)o->io_ns);
	say(rep, REPORT_V_NOTE, 0, -1, 0, "the original's I/O time (%s) is spread: %s",
	    report_fmt__dur(o->io_ns, a, sizeof(a)), parts);
}

double report_run__async_depth(const struct report_run *run)
{
	uint64_t span = run->async_last - run->async_first;

	return run->async_n && span ? (double)run->async_ns / (double)span : 0;
}

double report_run__data_depth(const struct report_run *run)
{
	uint64_t span = run->data_last - run->data_first;

	return run->data_n && span ? (double)run->data_ns / (double)span : 0;
}

int report_run__engine_async(const struct report_run *run)
{
	return run->is_replay && run->engine &&
	       (!strcmp(run->engine, "io_uring") || !strcmp(run->engine, "libaio"));
}

const char *report_run__meta(const struct report_run *run, const char *key)
{
	for (size_t i = 0; i < run->nmeta; i++)
		if (!strcmp(run->meta[2 * i], key))
			return run->meta[2 * i + 1];
	return NULL;
}

/* an op type is "short" below this many syscall entries and exits: the entry and exit are a
 * quarter or more of its replayed time */
#define SHORT_OP_SYSCALLS 4

/*
 * A replay times each op in user space around the syscall, so its times include the entry
 * and exit (on a VM with pti, ~1 us); a recording's come from the sys_enter and sys_exit
 * tracepoints and do not. A 0.3 us lseek replays as 1.4 us with nothing changed: said once,
 * naming the op types it matters for, with the measured cost (replay.syscall_ns).
 */
static void judge_syscall_cost(struct report *rep, size_t ri)
{
	const struct report_run *run = &rep->runs[ri], *o = orig(rep);
	const char *tool = report_run__meta(o, REEL_META_TOOL);
	double sys = meta_num(run, "replay.syscall_ns");
	char list[160] = "", name[32], a[32];
	size_t len = 0, n = 0;

	if (!tool || strncmp(tool, "ioreel record", 13) || sys <= 0)
		return;
	for (size_t i = 0; i < rep->norder; i++) {
		int k = rep->order[i];
		uint64_t op50, rp50;

		if (!run->kinds[k].lat.n || !o->kinds[k].lat.n)
			continue;
		op50 = hist__quantile(&o->kinds[k].lat, 0.5);
		rp50 = hist__quantile(&run->kinds[k].lat, 0.5);
		/* only the ones that look slower: an op that got faster needs no excuse */
		if ((double)op50 >= SHORT_OP_SYSCALLS * sys || rp50 <= op50)
			continue;
		if (n++ < 4)
			len += snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "",
					report_kind__name(k, name, sizeof(name)));
	}
	if (!n)
		return;
	say(rep, REPORT_V_NOTE, (int)ri, -1, 0,
	    "on %s each op's time includes the syscall's entry and exit, %s there (a getppid "
	    "timed the same way); the original's, taken at the syscall tracepoints, do not: "
	    "%s%s (original p50 under %.0fx that) look slower by up to that much for that alone",
	    run->label, report_fmt__dur((uint64_t)sys, a, sizeof(a)), list,
	    n > 4 ? " and others" : "", (double)SHORT_OP_SYSCALLS);
}

/* What makes a run's numbers less than whole: said before any comparison. */
static void judge_fidelity(struct report *rep, size_t ri)
{
	const struct report_run *run = &rep->runs[ri];
	char what[256];
	const char *v;

	if (!ri && (v = report_run__meta(run, REEL_META_LOST_EVENTS)) && strtoull(v, NULL, 10))
		say(rep, REPORT_V_NOTE, 0, -1, 0,
		    "the capture lost %s events (ring buffer full): the original's distributions "
		    "miss those ops",
		    v);
	/* a slice whose source was damaged in its window lacks ops it cannot name */
	if (!ri && (v = report_run__meta(run, "slice.window_ops_lost")) && strcmp(v, "0"))
		say(rep, REPORT_V_NOTE, 0, -1, 0,
		    "the original is a slice of a damaged trace, and %s ops that started in its "
		    "window were lost with the damage: its distributions miss those ops",
		    strcmp(v, "unknown") ? v : "an unknown number of");
	if (!ri && run->net_copies && run->io_ns) {
		char a[32];

		/* nginx serving files with sendfile: 99% of its I/O time, most of it the TCP
		 * stack's, and "119x faster" on a replay that moved the bytes into /dev/null */
		say(rep, REPORT_V_NOTE, 0, -1, 0,
		    "%llu sendfile%s went to sockets or pipes (%s, %.0f%% of the original's I/O "
		    "time): the original's times include the network's; a replay moves their bytes "
		    "into /dev/null, so its times are the reading side only",
		    (unsigned long long)run->net_copies, run->net_copies == 1 ? "" : "s",
		    report_fmt__dur(run->net_copy_ns, a, sizeof(a)),
		    100.0 * (double)run->net_copy_ns / (double)run->io_ns);
	}
	if (run->damaged)
		say(rep, REPORT_V_NOTE, (int)ri, -1, 0, "%s: %s is damaged at byte %llu: %s",
		    ri ? run->label : "original", run->path,
		    (unsigned long long)run->damage.first_offset,
		    reel_damage_sum__describe(&run->damage, what, sizeof(what)));
	if (ri && (v = report_run__meta(run, "replay.enospc")) && strtoull(v, NULL, 10))
		say(rep, REPORT_V_ERRORS, (int)ri, -1, 0,
		    "%s ran out of space: %s ops failed ENOSPC where the original's succeeded, so "
		    "what they did not write is missing there and later reads of it came back "
		    "short: the ops after them are not comparable",
		    run->label, v);
	/* another recording set beside the original (before and after a change): fine, but
	 * nothing of it was replayed, and it may be another application altogether */
	if (ri && !run->is_replay)
		say(rep, REPORT_V_NOTE, (int)ri, -1, 0,
		    "%s is a recording, not a replay of the original: it is compared as another "
		    "capture (before and after a change, say), with its own workload and timing, "
		    "not the original's ops on other storage",
		    run->path);
	if (ri && (v = report_run__meta(run, "replay.interrupted_after_ops"))) {
		const char *failed = report_run__meta(run, "replay.failed");

		say(rep, REPORT_V_NOTE, (int)ri, -1, 0,
		    "replay on %s %s after %s of the original's %llu ops%s%s%s: it is compared "
		    "with the whole original, and what it did not reach (later phases, their "
		    "files) is missing from it",
		    run->label, failed ? "failed" : "was interrupted", v,
		    (unsigned long long)orig(rep)->ops_read, failed ? " (" : "", failed ?: "",
		    failed ? ")" : "");
	}
	if (ri && (v = report_run__meta(run, "replay.unsized_removed")) && strtoull(v, NULL, 10))
		say(rep, REPORT_V_NOTE, (int)ri, -1, 0,
		    "on %s, %s files the application removed, renamed away or replaced were "
		    "prepared empty (nothing in the trace said how long they were): their "
		    "removals freed no blocks and cost less than in the original",
		    run->label, v);
	if (ri && (v = report_run__meta(run, "replay.unlinks_mapped")) && strtoull(v, NULL, 10))
		say(rep, REPORT_V_NOTE, (int)ri, -1, 0,
		    "on %s, %s unlinks (or renames over) removed the last name of a file the "
		    "replay still had mapped (no munmap of it in the trace): they freed none of its "
		    "blocks, so where the application had unmapped the file first (a "
		    "compaction's old files) they cost less than in the original",
		    run->label, v);
	if (ri && (v = report_run__meta(run, "replay.direct_dropped")) && strtoull(v, NULL, 10))
		say(rep, REPORT_V_NOTE, (int)ri, -1, 0,
		    "replay on %s dropped O_DIRECT on %s opens (the target rejects it): their "
		    "reads "
		    "and writes went through the page cache",
		    run->label, v);
}

int report__analyze(struct report *rep)
{
	int err;

	order_rows(rep);
	if ((err = order_files(rep)))
		return err;
	for (size_t r = 1; r < rep->nruns; r++)
		count_unreplayed(rep, r);
	judge_unreaped(rep);
	judge_original(rep);
	judge_fidelity(rep, 0);
	for (size_t r = 1; r < rep->nruns; r++) {
		judge_fidelity(rep, r);
		judge_syscall_cost(rep, r);
		judge_replay(rep, r);
	}
	if (rep->nruns == 1)
		say(rep, REPORT_V_NOTE, -1, -1, 0, "no replay results given: nothing to compare");
	return 0;
}
