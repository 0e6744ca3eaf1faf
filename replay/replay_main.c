/* SPDX-License-Identifier: MIT */
/*
 * replay_main.c - one replay of one target, start to end: check the target, work out and
 * prepare the file set, drop caches if asked, replay, summarise.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "replay_int.h"

int replay_timing__parse(const char *s, enum replay_timing *out)
{
	if (!strcmp(s, "original"))
		*out = REPLAY_TIMING_ORIGINAL;
	else if (!strcmp(s, "think"))
		*out = REPLAY_TIMING_THINK;
	else if (!strcmp(s, "afap"))
		*out = REPLAY_TIMING_AFAP;
	else
		return -EINVAL;
	return 0;
}

int replay_engine__parse(const char *s, enum replay_engine_kind *out)
{
	if (!strcmp(s, "sync"))
		*out = REPLAY_ENGINE_SYNC;
	else if (!strcmp(s, "io_uring") || !strcmp(s, "uring"))
		*out = REPLAY_ENGINE_URING;
	else if (!strcmp(s, "libaio") || !strcmp(s, "aio"))
		*out = REPLAY_ENGINE_AIO;
	else
		return -EINVAL;
	return 0;
}

const char *replay_timing__name(enum replay_timing t)
{
	return t == REPLAY_TIMING_THINK ? "think" : t == REPLAY_TIMING_AFAP ? "afap" : "original";
}

const char *replay_engine__name(enum replay_engine_kind e)
{
	return e == REPLAY_ENGINE_URING ? "io_uring" : e == REPLAY_ENGINE_AIO ? "libaio" : "sync";
}

static void notice(const struct replay_opts *o, const char *fmt, const char *a, const char *b)
{
	char line[600];

	if (!o->notice)
		return;
	/* a long --map rule may not fit: say so rather than end mid-word */
	if (snprintf(line, sizeof(line), fmt, a, b) >= (int)sizeof(line))
		memcpy(line + sizeof(line) - 4, "...", 4);
	o->notice(o->cb_ctx, line);
}

/* The result can be made: checked before the file set is prepared, which a typo in -o would
 * otherwise cost. */
int replay_output__creatable(const char *path)
{
	char dir[PATH_MAX], *slash;
	struct stat st;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return -EISDIR;
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	return access(slash ? (dir[0] ? dir : "/") : ".", W_OK | X_OK) < 0 ? -errno : 0;
}

static int result_writable(const char *path)
{
	int err = replay_output__creatable(path);

	if (err)
		replay_set_error("cannot create result %s: %s", path,
				 err == -EISDIR ? "it is a directory" : strerror(-err));
	return err;
}

/* A replay's result given as the trace: its ops are the replay's (its workers' threads, the
 * ops it could issue), a copy of a copy; the trace it replayed is the one to replay. */
static int trace_is_result(const char *trace)
{
	struct reel_reader *r;
	const char *of;
	int err = reel_reader__open(trace, &r);

	if (err)
		return 0; /* the scan says what it cannot read */
	of = reel_reader__meta(r, REEL_META_REPLAY_OF);
	if (of) {
		replay_set_error("%s is the result of a replay of %s: replay that trace itself",
				 trace, of);
		err = -EINVAL;
	}
	reel_reader__close(r);
	return err;
}

static int inside_roots(const struct replay_mapper *m, const char *path, const char *what)
{
	char buf[PATH_MAX], real[PATH_MAX], *slash;

	snprintf(buf, sizeof(buf), "%s", path);
	/* the result may not exist yet: its directory decides */
	if (!realpath(buf, real)) {
		slash = strrchr(buf, '/');
		if (slash)
			*slash = '\0';
		if (!realpath(slash ? (buf[0] ? buf : "/") : ".", real))
			return 0;
	}
	for (int i = 0; i < m->n_roots; i++) {
		size_t n = strlen(m->roots[i].dir);

		if (!strncmp(real, m->roots[i].dir, n) && (real[n] == '/' || !real[n])) {
			replay_set_error(
			    "%s %s lies inside the target %s, which preparing may empty: "
			    "put it elsewhere",
			    what, path, m->roots[i].dir);
			return -EINVAL;
		}
	}
	return 0;
}

int replay__run(const struct replay_opts *o, struct replay_summary *sum)
{
	struct replay_mapper m;
	struct replay_fileset fs;
	struct replay_prep_result prep;
	char err_msg[600] = "";
	uint64_t t;
	int err;

	memset(sum, 0, sizeof(*sum));
	replay_set_error("%s", "");
	snprintf(sum->result, sizeof(sum->result), "%s", o->result);
	snprintf(sum->target, sizeof(sum->target), "%s", o->target);
	snprintf(sum->timing, sizeof(sum->timing), "%s", replay_timing__name(o->timing));
	snprintf(sum->engine, sizeof(sum->engine), "%s", replay_engine__name(o->engine));
	sum->speed = o->speed;
	if (!(o->speed > 0)) {
		replay_set_error("speed must be > 0");
		return -EINVAL;
	}
	err = trace_is_result(o->trace);
	if (err)
		return err;
	err = replay_mapper__init(&m, o->target, o->maps, o->n_maps);
	if (err) {
		replay_mapper__unmake(&m);
		replay_mapper__free(&m);
		return err;
	}
	/* preparing may empty the targets: the trace and the result must live elsewhere */
	err = inside_roots(&m, o->trace, "the trace");
	if (!err)
		err = inside_roots(&m, o->result, "the result");
	if (!err)
		err = result_writable(o->result);
	if (err) {
		memset(&fs, 0, sizeof(fs));
		goto out;
	}
	t = replay_now_ns();
	err = replay_fileset__scan(o->trace, &m, &fs);
	if (err == -EPERM && fs.overlap[0]) {
		replay_set_error("refusing target: traced path %s lies inside it, the replay would "
				 "write onto the traced location",
				 fs.overlap);
		goto out;
	}
	if (err) {
		replay_set_error("cannot read trace %s: %s", o->trace, reel_strerror(err));
		goto out;
	}
	/* an empty or cut-short trace must not look like a replay that went well */
	if (!fs.nops) {
		char why[400];

		replay_set_error("%s: nothing to replay",
				 reel_damage_sum__no_ops(&fs.damage, why, sizeof(why)));
		err = -ENODATA;
		goto out;
	}
	/* a rule with a typo would leave the replay answering another question (the WAL on
	 * the disk, not on the RAM disk) without a word */
	for (size_t i = 0; i < o->n_maps && i < m.n_rules; i++) {
		char rule[4096];

		if (fs.map_hits[i])
			continue;
		snprintf(rule, sizeof(rule), "%s=%s", o->maps[i].from, o->maps[i].to);
		notice(o,
		       "--map %s matches no path of the trace (or an earlier rule took them all): "
		       "nothing is replayed under %s",
		       rule, o->maps[i].to);
	}
	if (fs.cross_renames) {
		char what[64], first[2 * PATH_MAX + 8];

		snprintf(what, sizeof(what), "%llu rename%s of the trace go%s",
			 (unsigned long long)fs.cross_renames, fs.cross_renames == 1 ? "" : "s",
			 fs.cross_renames == 1 ? "es" : "");
		snprintf(first, sizeof(first), "%s -> %s", fs.cross_from, fs.cross_to);
		notice(o,
		       "%s from under one --map destination to under another on "
		       "another file system, where a rename fails EXDEV, and ops that need the "
		       "new name with it (%s); map a directory that holds both names",
		       what, first);
	}
	err = replay_prepare__run(&m, &fs, o->fresh, &prep, err_msg, sizeof(err_msg));
	if (err) {
		replay_set_error("%s", err_msg[0] ? err_msg : strerror(-err));
		goto out;
	}
	sum->prep_ns = replay_now_ns() - t;
	sum->ops_trace = fs.nops;
	sum->reused = prep.reused;
	sum->prep_files = prep.files;
	sum->prep_dirs = prep.dirs;
	sum->prep_bytes = prep.bytes;
	sum->prep_unsized_gone = fs.unsized_gone;
	if (fs.refused + prep.refused) {
		char n[32];

		snprintf(n, sizeof(n), "%llu", (unsigned long long)(fs.refused + prep.refused));
		notice(o,
		       "%s traced paths lead out of the target (.., symlinks): not prepared, "
		       "their ops are refused%s",
		       n, "");
	}
	if (fs.too_long) {
		char n[32];

		snprintf(n, sizeof(n), "%llu", (unsigned long long)fs.too_long);
		notice(o,
		       "%s traced paths are too long to be made under the target (PATH_MAX): not "
		       "prepared, their ops fail ENAMETOOLONG%s",
		       n, "");
	}
	if (prep.reused)
		notice(o, "reusing prepared file set in %s%s", m.roots[0].dir,
		       m.n_roots > 1 ? " (and the --map targets)" : "");
	if (o->cold) {
		err = replay_prepare__cold(&m, &fs);
		if (err) {
			replay_set_error("cannot drop caches: %s", strerror(-err));
			goto out;
		}
	}
	/* what the reads will find in memory, said beside what they measure */
	replay_cache__measure(&m, &fs, &sum->cache);
	/* from the first op on, the target no longer matches the manifest */
	if (fs.mutates)
		replay_prepare__mark_dirty(&m);
	err = replay_run__replay(o, &m, &fs, sum);
out:
	/* failed or refused: the directories it made go too, where nothing was put in them
	 * (refused before preparing, or by the preparation's check of free space) */
	if (err)
		replay_mapper__unmake(&m);
	replay_fileset__free(&fs);
	replay_mapper__free(&m);
	return err;
}

static void fmt_ns(char *buf, size_t sz, double ns)
{
	if (ns < 1e3)
		snprintf(buf, sz, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, sz, "%.1fus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, sz, "%.2fms", ns / 1e6);
	else
		snprintf(buf, sz, "%.2fs", ns / 1e9);
}

static const char *const fail_names[REPLAY_FAIL__COUNT] = {
    [REPLAY_FAIL_NEW_ERROR] = "failed where the original succeeded",
    [REPLAY_FAIL_NEW_SUCCESS] = "succeeded where the original failed",
    [REPLAY_FAIL_SHORT] = "short read/write/copy",
    [REPLAY_FAIL_OTHER_ERRNO] = "failed with another errno",
    [REPLAY_FAIL_UNKNOWN_FD] = "not replayed: unknown fd, or its open failed in the replay",
    [REPLAY_FAIL_UNSUPPORTED] = "not replayed: unsupported",
    [REPLAY_FAIL_REFUSED] = "not replayed: path escapes the target",
    [REPLAY_FAIL_LENGTH] = "lseek(SEEK_END), or a read that reached the end, found its file "
			   "another length",
};

/* the ops of the kinds one of the summary's lines counts (replay_fail__differs, ...) */
static uint64_t fail__sum(const struct replay_summary *s, int (*counted)(int kind))
{
	uint64_t n = 0;

	for (int k = 0; k < REPLAY_FAIL__COUNT; k++)
		if (counted(k))
			n += s->fail[k];
	return n;
}

/* Where the trace is damaged and what that cost the replay: ops, or only the footer. */
static void print_damage(const struct replay_summary *s, FILE *out)
{
	char what[256];

	fprintf(out, "  TRACE DAMAGED at byte %llu (%llu region%s): %s%s\n",
		(unsigned long long)s->damage.first_offset, (unsigned long long)s->damaged,
		s->damaged == 1 ? "" : "s",
		reel_damage_sum__describe(&s->damage, what, sizeof(what)),
		s->damage.lost & REEL_LOST_OPS ? ", not replayed" : "");
}

/* The file set in memory at the start: a disk's reads of it came from there, not the disk. */
static void print_cache(const struct replay_cache_state *c, FILE *out)
{
	if (!c->disk_bytes)
		return;
	fprintf(out, "  page cache at start: %.0f%% of the file set's %.1f MiB on disk-backed "
		"targets%s\n",
		100.0 * (double)c->resident_bytes / (double)c->disk_bytes,
		(double)c->disk_bytes / 1048576.0,
		c->resident_bytes * 2 > c->disk_bytes
			? " (reads of it come from memory, not the disk; --cold drops it)"
			: "");
}

/*
 * What the replay could not do as the original did, or did not need to, each said in the
 * summary when it happened: "  N <text>". A new count is a line here.
 */
/* an entry: the field's offset, refused at compile time unless the field is a uint64_t */
#define SUMMARY_NOTE(field, text)                                                                  \
	{_Generic(((struct replay_summary *)0)->field,                                             \
		  uint64_t: offsetof(struct replay_summary, field)),                               \
	 text}

static const struct summary_note {
	size_t count; /* offset of a uint64_t in struct replay_summary */
	const char *text;
} summary_notes[] = {
	SUMMARY_NOTE(prep_unsized_gone,
		     "files the application removed, renamed away or replaced before anything in "
		     "the trace said how long they were: prepared empty, so their removal frees "
		     "no blocks and costs less than the original's"),
	SUMMARY_NOTE(noop_closes,
		     "closes of fds opened before the capture (or inherited) and never used: "
		     "nothing to close"),
	SUMMARY_NOTE(lock_waits_abandoned,
		     "lock requests waited past their time (1 s + 4x the original's) for a lock "
		     "the replay held where the original did not, and were given up (EINTR)"),
	SUMMARY_NOTE(unlinks_mapped,
		     "unlinks or renames over the last name of a file the replay still had mapped "
		     "(no munmap of it in the trace: a format 1.1 trace, or one that only cut the "
		     "mapping): they freed none of its blocks, which go when the replay ends, so "
		     "they cost less than the original's if it had unmapped the file first"),
	SUMMARY_NOTE(xattr_ops,
		     "extended attribute changes of the application (setxattr, removexattr: ACLs, "
		     "as cp -a and cp -p set modes) were not recorded, not replayed: modes set so "
		     "differ"),
};

void replay_summary__print(const struct replay_summary *s, FILE *out)
{
	char a[32], b[32], c[32], d[32], e[32];

	fprintf(out, "replay of %s -> %s (timing %s, speed %g, engine %s)\n", s->target, s->result,
		s->timing, s->speed, s->engine);
	fmt_ns(a, sizeof(a), (double)s->prep_ns);
	fprintf(out, "  file set: %llu files, %llu dirs, %.1f MiB %s (%s)\n",
		(unsigned long long)s->prep_files, (unsigned long long)s->prep_dirs,
		(double)s->prep_bytes / 1048576.0, s->reused ? "reused" : "prepared", a);
	print_cache(&s->cache, out);
	if (s->interrupted)
		fprintf(out, "  ops: %llu of the trace's %llu read before the stop, ",
			(unsigned long long)s->ops_read, (unsigned long long)s->ops_trace);
	else
		fprintf(out, "  ops: %llu in trace, ", (unsigned long long)s->ops_read);
	fprintf(out, "%llu replayed by %llu thread%s, %llu non-file skipped\n",
		(unsigned long long)s->ops_issued, (unsigned long long)s->threads,
		s->threads == 1 ? "" : "s", (unsigned long long)s->ops_nonfile);
	if (s->interrupted)
		fprintf(out, "  INTERRUPTED: the replay was stopped early; the ops after that were "
			     "not replayed\n");
	if (s->damaged)
		print_damage(s, out);
	if (s->enospc)
		fprintf(out,
			"  TARGET FULL: %llu ops failed ENOSPC (or EDQUOT) where the original's "
			"succeeded: what they did not write is missing, and later reads of it come "
			"back short\n",
			(unsigned long long)s->enospc);
	if (s->lost_events)
		fprintf(out,
			"  TRACE INCOMPLETE: the capture lost %llu events (its ring buffer was "
			"full): their ops are not in the trace, so not replayed\n",
			(unsigned long long)s->lost_events);
	for (size_t i = 0; i < sizeof(summary_notes) / sizeof(summary_notes[0]); i++) {
		uint64_t n = *(const uint64_t *)((const char *)s + summary_notes[i].count);

		if (n)
			fprintf(out, "  %llu %s\n", (unsigned long long)n, summary_notes[i].text);
	}
	fmt_ns(a, sizeof(a), (double)s->duration_ns);
	fmt_ns(b, sizeof(b), (double)s->orig_duration_ns);
	fprintf(out, "  duration: %s (original %s, %.2fx)\n", a, b,
		s->orig_duration_ns ? (double)s->duration_ns / (double)s->orig_duration_ns : 0.0);
	if (s->segments > 1) {
		fmt_ns(a, sizeof(a), (double)s->paused_ns);
		fprintf(out,
			"  as fast as possible in %llu segments, each read ahead and its results "
			"written after it: %s of pauses between them, left out of the duration and "
			"of the result's timeline\n",
			(unsigned long long)s->segments, a);
		if (s->seg_cuts)
			fprintf(out,
				"  %llu segment%s cut short once a thread had run out and little was "
				"left, or another was far behind (%llu): the other threads carried %llu "
				"ops over to the next one\n",
				(unsigned long long)s->seg_cuts, s->seg_cuts == 1 ? "" : "s",
				(unsigned long long)s->seg_straggler_cuts,
				(unsigned long long)s->carried);
	}
	fmt_ns(a, sizeof(a), (double)s->lateness.p50);
	fmt_ns(b, sizeof(b), (double)s->lateness.p99);
	fmt_ns(c, sizeof(c), (double)s->lateness.max);
	fprintf(out, "  lateness (start - scheduled): p50 %s  p99 %s  max %s\n", a, b, c);
	if (s->ops_issued) {
		double n = (double)s->ops_issued;

		fmt_ns(a, sizeof(a), (double)s->cpu_workers_ns / n);
		fmt_ns(b, sizeof(b), (double)s->cpu_dispatch_ns / n);
		fmt_ns(c, sizeof(c), (double)s->cpu_writer_ns / n);
		fprintf(out,
			"  replayer CPU per op: %s in the workers (the ops' own syscalls included), "
			"%s reading and dispatching the trace, %s writing results\n",
			a, b, c);
	}
	if (s->direct_dropped)
		fprintf(out,
			"  O_DIRECT rejected by the target and dropped on %llu opens "
			"(--direct drop): those files went through the page cache\n",
			(unsigned long long)s->direct_dropped);
	if (s->direct_failed)
		fprintf(out,
			"  O_DIRECT rejected by the target on %llu opens (--direct keep): "
			"those opens failed\n",
			(unsigned long long)s->direct_failed);
	for (int k = 0; k < REPLAY_FAIL__COUNT; k++) {
		if (k == REPLAY_FAIL_UNKNOWN_FD) {
			fprintf(out, "  ops not replayed: %llu\n",
				(unsigned long long)fail__sum(s, replay_fail__not_replayed));
		} else if (k == REPLAY_FAIL_LENGTH && s->fail[k]) {
			fprintf(out, "  length checks that saw another length: %llu (a write of "
				     "another thread after the check is not ordered after it)\n",
				(unsigned long long)s->fail[k]);
		} else if (k == 0) {
			fprintf(out, "  outcomes differing from the original: %llu\n",
				(unsigned long long)fail__sum(s, replay_fail__differs));
		}
		if (!s->fail[k])
			continue;
		fprintf(out, "    %llu %s, e.g.\n", (unsigned long long)s->fail[k], fail_names[k]);
		for (int i = 0; i < REPLAY_EXAMPLES && s->fail_example[k][i][0]; i++)
			fprintf(out, "      %s\n", s->fail_example[k][i]);
	}
	fprintf(out, "  %-16s %10s %10s %10s %10s %10s %10s\n", "latency", "count", "p50", "p90",
		"p99", "max", "mean");
	for (unsigned t = 0; t < REEL_OP__COUNT; t++) {
		const struct replay_pct *p = &s->lat[t];

		if (!p->count)
			continue;
		fmt_ns(a, sizeof(a), (double)p->p50);
		fmt_ns(b, sizeof(b), (double)p->p90);
		fmt_ns(c, sizeof(c), (double)p->p99);
		fmt_ns(d, sizeof(d), (double)p->max);
		fmt_ns(e, sizeof(e), p->mean);
		fprintf(out, "  %-16s %10llu %10s %10s %10s %10s %10s\n", reel_op__name(t),
			(unsigned long long)p->count, a, b, c, d, e);
	}
}
