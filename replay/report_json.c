/* SPDX-License-Identifier: MIT */
/*
 * report_json.c - the report as one JSON document. Key names are stable (add, never rename);
 * all durations are integer nanoseconds, keys ending in _ns.
 *
 * {
 *   "ioreel_report": 1,                      document version
 *   "percentile_rel_error": 0.0039,          bound of every pXX_ns (hist.h)
 *   "runs": [                                run 0 is the original, then the replays in order
 *     { "index", "role": "original"|"replay", "path", "label",
 *       "meta": { key: value, ... },           the trace's meta (replay.of, replay.targets, ...)
 *       "ops_read", "ops_measured", "ops_nonfile", "errors", "damaged_chunks" (damaged
 *       regions skipped), "damage_ops_lost" (ops they held: a count, or null when unknown),
 *       "async_unmatched", "async_unreaped" (requests submitted whose completion the trace
 *       lacks: in no latency, I/O time nor queue depth), "span_ns", "io_ns", "bytes_read",
 *       "bytes_written", "async_requests", "async_in_flight" (their mean number in flight
 *       over the span from the first submission to the last completion: the queue depth
 *       kept; 0 without any), "data_ops", "data_in_flight" (the same for the reads and
 *       writes: an async engine's replay raises it),
 *       "not_replayed_ops", "not_replayed_io_ns" (a replay: the original's ops it did not
 *       issue, beyond its count of their op type, and the original's I/O time in them; 0
 *       for the original),
 *       "thread_span_ns", "thread_io_ns" (summed over the threads with ops: from each one's
 *       first op to its last op's end, and its time in its own ops; the rest is gaps between
 *       ops, which think and original timing keep), "lock_retries", "lock_retry_gap_ns"
 *       (locks refused, EAGAIN or EACCES, followed by a gap of 1 ms or more on their thread,
 *       and those gaps summed: slept before trying again),
 *       "class_ns": { "read", "write", "sync", "metadata", "lock", "other" }, I/O time by class
 *       "gap_p50_ns",                           median per-thread start-to-start gap
 *       "lateness": null | { "ops", "p50_ns", "p99_ns", "max_ns", "early_ops",
 *                            "late_1ms_fraction", "fell_behind": bool,
 *                            "backlog_p50_ns", "backlog_p99_ns", "backlog_max_ns",
 *                            "wake_p50_ns", "wake_p99_ns", "wake_max_ns",
 *                            "order_ops", "order_p50_ns", "order_p99_ns", "order_max_ns",
 *                            "pace_not_kept": bool, "replayer_limit": bool,
 *                            "replayer_limit_cause": null | "other_processes" |
 *                                "dispatcher" | "worker_cpu" | "own_threads",
 *                            "behind_ops", "backlog_rise_ns",
 *                            "backlog_made_ns": { "<op>": ns } },
 *           lateness = backlog + wake: backlog is the time the op's thread would still have
 *           been in its previous ops past the schedule had each started at its schedule or
 *           as its thread was free, with the replay's latencies (the target was slower than
 *           the app's pace: the latencies are real); wake is the rest (the replayer woke
 *           late, or ran late since: what "fell_behind" judges, latencies doubtful);
 *           both can be true, and the verdict then has "pace_not_kept" before "fell_behind";
 *           replayer_limit: the pace was not kept, or the replay fell behind, and the
 *           replay's own measures show it was the replayer's, not the target's; replayer_limit_cause says why: its threads
 *           waited for CPUs other processes held ("other_processes": the result's meta
 *           replay.worker_runq_max, replay.dispatch_runq, replay.cpu_ns.others), its
 *           dispatcher was behind ("dispatcher": replay.items_late), a worker was bound by
 *           the CPU ("worker_cpu": replay.worker_busy_max), or its threads waited for a CPU
 *           for one another ("own_threads"); null when replayer_limit is false;
 *           order_*: the ops that waited for ops of other threads they are kept after
 *           (format 1.2 results): how many, and the percentiles of those ops' waits only;
 *           behind_ops: the ops 1 ms or more behind their schedule for their thread's
 *           previous ops; backlog_rise_ns: each time a thread fell further behind, the rise,
 *           summed (preemptions left out), and backlog_made_ns what of it the op before
 *           took beyond the original's p90 of its type, by type (a replay's, with its
 *           original): what made the backlog (the verdict's "pace_cause")
 *       "ops_by_type": { "<op>": { "count", "errors", "min_ns", "p50_ns", "p90_ns",
 *                                  "p99_ns", "p999_ns", "max_ns", "mean_ns", "total_ns",
 *                                  "vs_original": null (run 0) | {
 *                                      "ratio_p50", "ratio_p99", "ratio_mean",  replay/original
 *                                      "ks_d", "ks_d_max_error", "ks_p_value",
 *                                      "change": "faster"|"slower"|"unchanged"|"tail_only"|
 *                                                "mixed"|"too_few_ops"|"missing" } } },
 *       "files": [ { "path", "ops", "total_ns", "errors", "share_of_io",
 *                    "ops_by_type": {...} (with --by file) } ]     the hot files, in the
 *     } ],                                                         original's order
 *   "timeline": { "interval_ns", "class" (the original's dominant: what the text shows),
 *                 "runs": [ { "run", "ops_beyond" (after the last of 10000 intervals),
 *                             "intervals": [ { "from_ns", "ops", "by_class": { "<class>":
 *                                 { "count", "p50_ns", "p99_ns", "max_ns" } } } ] } ] },
 *                                                    only with --timeline; each run's own clock
 *   "verdict": [ { "tag": "faster"|"slower"|"unchanged"|"tail_only"|"mixed"|"fell_behind"|
 *                         "errors"|"dominant"|"note"|"pace_not_kept"|"cpu_bound"|"total"|
 *                         "shifted"|"held_by_gaps" (the duration is held by the original's
 *                         gaps between ops: compare the I/O time)|"not_replayed" (much of
 *                         the original's I/O time was in ops the replay did not issue: said
 *                         before its "total", which then compares the ops replayed only)|
 *                         "pace_cause" (after "pace_not_kept": the op types and file whose
 *                         time beyond the original's made the backlog, and when it was),
 *                  "run": index|null, "op": name|null, "speedup": original/replay|null,
 *                  "text": "..." } ]
 * }
 */
#include <errno.h>
#include <math.h>

#include "reel.h"
#include "report_int.h"

static const char *change_name(enum report_change c)
{
	static const char *const names[] = {
	    [REPORT_SAME] = "unchanged",      [REPORT_FASTER] = "faster",
	    [REPORT_SLOWER] = "slower",	      [REPORT_TAIL_ONLY] = "tail_only",
	    [REPORT_FEW_OPS] = "too_few_ops", [REPORT_MISSING] = "missing",
	    [REPORT_MIXED] = "mixed",	      [REPORT_SHIFT] = "shifted"};
	return names[c];
}

static const char *tag_name(enum report_verdict_tag t)
{
	static const char *const names[] = {
	    [REPORT_V_FASTER] = "faster",	[REPORT_V_SLOWER] = "slower",
	    [REPORT_V_SAME] = "unchanged",	[REPORT_V_TAIL] = "tail_only",
	    [REPORT_V_BEHIND] = "fell_behind",	[REPORT_V_ERRORS] = "errors",
	    [REPORT_V_DOMINANT] = "dominant",	[REPORT_V_NOTE] = "note",
	    [REPORT_V_MIXED] = "mixed",		[REPORT_V_PACE] = "pace_not_kept",
	    [REPORT_V_CPU_BOUND] = "cpu_bound", [REPORT_V_TOTAL] = "total",
	    [REPORT_V_SHIFT] = "shifted",	[REPORT_V_GAPS] = "held_by_gaps",
	    [REPORT_V_UNREPLAYED] = "not_replayed", [REPORT_V_PACE_CAUSE] = "pace_cause",
	};
	return names[t];
}

/* JSON has no NaN or infinity. */
static void num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.6g", v);
	else
		fputs("null", out);
}

static void stats(FILE *out, const struct hist *h, uint64_t errors, const struct report_cmp *c,
		  int is_replay)
{
	fprintf(out,
		"{\"count\": %llu, \"errors\": %llu, \"min_ns\": %llu, \"p50_ns\": %llu, "
		"\"p90_ns\": %llu, \"p99_ns\": %llu, \"p999_ns\": %llu, \"max_ns\": %llu, "
		"\"mean_ns\": %.0f, \"total_ns\": %llu, \"vs_original\": ",
		(unsigned long long)h->n, (unsigned long long)errors,
		(unsigned long long)(h->n ? h->min : 0), (unsigned long long)hist__quantile(h, 0.5),
		(unsigned long long)hist__quantile(h, 0.9),
		(unsigned long long)hist__quantile(h, 0.99),
		(unsigned long long)hist__quantile(h, 0.999), (unsigned long long)h->max,
		hist__mean(h), (unsigned long long)h->total);
	if (!is_replay || !c || !c->valid) {
		fputs("null}", out);
		return;
	}
	if (c->change == REPORT_MISSING) {
		fputs("{\"change\": \"missing\"}}", out);
		return;
	}
	fputs("{\"ratio_p50\": ", out);
	num(out, c->ratio_p50);
	fputs(", \"ratio_p99\": ", out);
	num(out, c->ratio_p99);
	fputs(", \"ratio_mean\": ", out);
	num(out, c->ratio_mean);
	fputs(", \"ks_d\": ", out);
	num(out, c->ks_d);
	fputs(", \"ks_d_max_error\": ", out);
	num(out, c->ks_err);
	fputs(", \"ks_p_value\": ", out);
	num(out, c->ks_p);
	fprintf(out, ", \"change\": \"%s\"}}", change_name(c->change));
}

static const struct report_fkind *fkind(const struct report_file *f, unsigned kind)
{
	for (size_t i = 0; f && i < f->nkinds; i++)
		if (f->kinds[i].kind == kind)
			return &f->kinds[i];
	return NULL;
}

static void files(const struct report *rep, size_t ri, FILE *out)
{
	const struct report_run *o = &rep->runs[0], *run = &rep->runs[ri];
	char name[32];

	fputs("      \"files\": [", out);
	for (size_t h = 0; h < rep->nhot; h++) {
		const struct report_file *of = o->files[rep->hot[h]];
		const struct report_file *f = ri ? report_run__file(run, of->path) : of;
		fputs(h ? ",\n        " : "\n        ", out);
		fputs("{\"path\": ", out);
		report_fmt__json_str(out, of->path);
		if (!f) {
			fputs(", \"ops\": 0, \"total_ns\": 0, \"errors\": 0, \"share_of_io\": 0}",
			      out);
			continue;
		}
		fprintf(out,
			", \"ops\": %llu, \"total_ns\": %llu, \"errors\": %llu, \"share_of_io\": ",
			(unsigned long long)f->ops, (unsigned long long)f->total_ns,
			(unsigned long long)f->errors);
		num(out, run->io_ns ? (double)f->total_ns / (double)run->io_ns : 0);
		if (rep->opts->by == REPORT_BY_FILE) {
			fputs(", \"ops_by_type\": {", out);
			for (size_t i = 0; i < f->nkinds; i++) {
				struct report_cmp c = {0};
				const struct report_fkind *ofk = fkind(of, f->kinds[i].kind);
				if (ri && ofk)
					report__cmp(&ofk->lat, &f->kinds[i].lat, &c);
				fprintf(out, "%s\"%s\": ", i ? ", " : "",
					report_kind__name(f->kinds[i].kind, name, sizeof(name)));
				stats(out, &f->kinds[i].lat, 0, ofk ? &c : NULL, ri > 0);
			}
			fputs("}", out);
		}
		fputs("}", out);
	}
	fputs(rep->nhot ? "\n      ]" : "]", out);
}

/* How many ops a run's damage cost, as JSON: null when nobody can tell. */
static const char *damage_ops_lost(const struct report_run *r, char *buf, size_t len)
{
	uint64_t n = r->damage.lost & REEL_LOST_OPS ? r->damage.ops_lost : 0;

	if (n == REEL_OPS_UNKNOWN)
		return "null";
	snprintf(buf, len, "%llu", (unsigned long long)n);
	return buf;
}

/* what made a replay's backlog, closing the lateness object: the rises, by op type */
static void backlog_made(const struct report_run *r, FILE *out)
{
	char name[32];
	int first = 1;

	fprintf(out, ", \"behind_ops\": %llu, \"backlog_rise_ns\": %llu, \"backlog_made_ns\": {",
		(unsigned long long)r->behind_ops, (unsigned long long)r->backlog_rise_ns);
	for (int k = 0; k < REPORT_KINDS; k++) {
		if (!r->kinds[k].backlog_ns)
			continue;
		fprintf(out, "%s\"%s\": %llu", first ? "" : ", ",
			report_kind__name(k, name, sizeof(name)),
			(unsigned long long)r->kinds[k].backlog_ns);
		first = 0;
	}
	fputs("}}", out);
}

static void run_json(const struct report *rep, size_t ri, FILE *out)
{
	const struct report_run *r = &rep->runs[ri];
	char name[32], lost[24];

	fprintf(out, "    {\"index\": %zu, \"role\": \"%s\", \"path\": ", ri,
		ri ? "replay" : "original");
	report_fmt__json_str(out, r->path);
	fputs(", \"label\": ", out);
	report_fmt__json_str(out, r->label);
	fputs(",\n      \"meta\": {", out);
	for (size_t i = 0; i < r->nmeta; i++) {
		fputs(i ? ", " : "", out);
		report_fmt__json_str(out, r->meta[2 * i]);
		fputs(": ", out);
		report_fmt__json_str(out, r->meta[2 * i + 1]);
	}
	fprintf(out,
		"},\n      \"ops_read\": %llu, \"ops_measured\": %llu, \"ops_nonfile\": %llu, "
		"\"errors\": %llu, \"damaged_chunks\": %llu, \"damage_ops_lost\": %s, "
		"\"async_unmatched\": %llu, \"async_unreaped\": %llu,\n"
		"      \"span_ns\": %llu, \"io_ns\": %llu, \"bytes_read\": %llu, "
		"\"bytes_written\": %llu, \"gap_p50_ns\": %llu, \"async_requests\": %llu, "
		"\"async_in_flight\": %.2f, \"data_ops\": %llu, \"data_in_flight\": %.2f,\n"
		"      \"not_replayed_ops\": %llu, \"not_replayed_io_ns\": %llu,\n"
		"      \"thread_span_ns\": %llu, \"thread_io_ns\": %llu, \"lock_retries\": %llu, "
		"\"lock_retry_gap_ns\": %llu,\n"
		"      \"class_ns\": {",
		(unsigned long long)r->ops_read, (unsigned long long)r->ops_used,
		(unsigned long long)r->ops_nonfile, (unsigned long long)r->errors,
		(unsigned long long)r->damaged, damage_ops_lost(r, lost, sizeof(lost)),
		(unsigned long long)r->unmatched, (unsigned long long)r->unreaped,
		(unsigned long long)(r->last_ns - r->first_ns), (unsigned long long)r->io_ns,
		(unsigned long long)r->bytes_read, (unsigned long long)r->bytes_written,
		(unsigned long long)hist__quantile(&r->gap, 0.5), (unsigned long long)r->async_n,
		report_run__async_depth(r), (unsigned long long)r->data_n,
		report_run__data_depth(r), (unsigned long long)r->unreplayed_ops,
		(unsigned long long)r->unreplayed_ns, (unsigned long long)r->thread_span_ns,
		(unsigned long long)r->thread_io_ns, (unsigned long long)r->lock_retries,
		(unsigned long long)r->lock_retry_ns);
	for (int c = 0; c < REPORT_CLASSES; c++)
		fprintf(out, "%s\"%s\": %llu", c ? ", " : "", report_class__key(c),
			(unsigned long long)r->class_ns[c]);
	fputs("},\n      \"lateness\": ", out);
	if (r->lateness.n) {
		fprintf(out,
			"{\"ops\": %llu, \"p50_ns\": %llu, \"p99_ns\": %llu, \"max_ns\": %llu, "
			"\"early_ops\": %llu, \"late_1ms_fraction\": ",
			(unsigned long long)r->lateness.n,
			(unsigned long long)hist__quantile(&r->lateness, 0.5),
			(unsigned long long)hist__quantile(&r->lateness, 0.99),
			(unsigned long long)r->lateness.max, (unsigned long long)r->early);
		num(out, (double)r->late_1ms / (double)r->lateness.n);
		fprintf(
		    out,
		    ", \"fell_behind\": %s, \"backlog_p50_ns\": %llu, \"backlog_p99_ns\": %llu, "
		    "\"backlog_max_ns\": %llu, \"wake_p50_ns\": %llu, \"wake_p99_ns\": %llu, "
		    "\"wake_max_ns\": %llu, \"order_ops\": %llu, \"order_p50_ns\": %llu, "
		    "\"order_p99_ns\": %llu, \"order_max_ns\": %llu, \"pace_not_kept\": %s, "
		    "\"replayer_limit\": %s, \"replayer_limit_cause\": ",
		    r->fell_behind ? "true" : "false",
		    (unsigned long long)hist__quantile(&r->backlog, 0.5),
		    (unsigned long long)hist__quantile(&r->backlog, 0.99),
		    (unsigned long long)r->backlog.max,
		    (unsigned long long)hist__quantile(&r->wake, 0.5),
		    (unsigned long long)hist__quantile(&r->wake, 0.99),
		    (unsigned long long)r->wake.max, (unsigned long long)r->order_ops,
		    (unsigned long long)hist__quantile(&r->order_waited, 0.5),
		    (unsigned long long)hist__quantile(&r->order_waited, 0.99),
		    (unsigned long long)r->order.max, r->backlogged ? "true" : "false",
		    r->replayer_limit ? "true" : "false");
		if (report_limit__name(r->replayer_limit))
			report_fmt__json_str(out, report_limit__name(r->replayer_limit));
		else
			fputs("null", out);
		backlog_made(r, out);
	} else {
		fputs("null", out);
	}
	fputs(",\n      \"ops_by_type\": {", out);
	int first = 1;
	for (size_t i = 0; i < rep->norder; i++) {
		int k = rep->order[i];
		if (!r->kinds[k].lat.n && !(ri && r->cmp[k].valid))
			continue;
		fprintf(out, "%s\n        \"%s\": ", first ? "" : ",",
			report_kind__name(k, name, sizeof(name)));
		stats(out, &r->kinds[k].lat, r->kinds[k].errors, &r->cmp[k], ri > 0);
		first = 0;
	}
	fputs(first ? "},\n" : "\n      },\n", out);
	files(rep, ri, out);
	fputs("}", out);
}

static void tl_class(FILE *out, const struct hist *h, const char *key, int first)
{
	fprintf(out, "%s\"%s\": {\"count\": %llu, \"p50_ns\": %llu, \"p99_ns\": %llu, \"max_ns\": %llu}",
		first ? "" : ", ", key, (unsigned long long)h->n,
		(unsigned long long)hist__quantile(h, 0.5),
		(unsigned long long)hist__quantile(h, 0.99), (unsigned long long)h->max);
}

/* --timeline: every run's intervals, every class with ops in them */
static void timeline(const struct report *rep, FILE *out)
{
	size_t n = report_tl__len(rep);

	if (!rep->runs[0].tl_ns)
		return;
	fprintf(out, "  \"timeline\": {\"interval_ns\": %llu, \"class\": \"%s\", \"runs\": [",
		(unsigned long long)rep->runs[0].tl_ns, report_class__key(report_tl__class(rep)));
	for (size_t r = 0; r < rep->nruns; r++) {
		const struct report_run *run = &rep->runs[r];

		fprintf(out, "%s\n    {\"run\": %zu, \"ops_beyond\": %llu, \"intervals\": [",
			r ? "," : "", r, (unsigned long long)run->tl_beyond);
		for (size_t i = 0; i < n; i++) {
			const struct report_tl *t = i < run->ntl ? &run->tl[i] : NULL;
			int first = 1;

			fprintf(out, "%s\n      {\"from_ns\": %llu, \"ops\": %llu, \"by_class\": {",
				i ? "," : "", (unsigned long long)(i * run->tl_ns),
				t ? (unsigned long long)t->ops : 0ULL);
			for (unsigned c = 0; t && c < REPORT_CLASSES; c++) {
				if (!t->lat[c].n)
					continue;
				tl_class(out, &t->lat[c], report_class__key(c), first);
				first = 0;
			}
			fputs("}}", out);
		}
		fputs(n ? "\n    ]}" : "]}", out);
	}
	fputs("\n  ]},\n", out);
}

int report__write_json(const struct report *rep, FILE *out)
{
	char name[32];

	fprintf(out,
		"{\n  \"ioreel_report\": 1,\n  \"percentile_rel_error\": %.6g,\n  \"runs\": [\n",
		HIST_REL_ERROR);
	for (size_t i = 0; i < rep->nruns; i++) {
		run_json(rep, i, out);
		fputs(i + 1 < rep->nruns ? ",\n" : "\n", out);
	}
	fputs("  ],\n", out);
	timeline(rep, out);
	fputs("  \"verdict\": [", out);
	for (size_t i = 0; i < rep->nverdicts; i++) {
		const struct report_verdict *v = &rep->verdicts[i];
		fprintf(out, "%s\n    {\"tag\": \"%s\", \"run\": ", i ? "," : "", tag_name(v->tag));
		if (v->run >= 0)
			fprintf(out, "%d", v->run);
		else
			fputs("null", out);
		fputs(", \"op\": ", out);
		if (v->kind >= 0)
			report_fmt__json_str(out, report_kind__name(v->kind, name, sizeof(name)));
		else
			fputs("null", out);
		fputs(", \"speedup\": ", out);
		if (v->ratio > 0 && (v->tag == REPORT_V_FASTER || v->tag == REPORT_V_SLOWER ||
				     v->tag == REPORT_V_TAIL || v->tag == REPORT_V_MIXED))
			num(out, v->ratio);
		else
			fputs("null", out);
		fputs(", \"text\": ", out);
		report_fmt__json_str(out, v->text);
		fputs("}", out);
	}
	fputs(rep->nverdicts ? "\n  ]\n}\n" : "]\n}\n", out);
	return ferror(out) ? -EIO : 0;
}
