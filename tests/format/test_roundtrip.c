// SPDX-License-Identifier: MIT
/*
 * Round trip: every op type with randomised fields (extremes included), many chunks,
 * paths and meta in head and footer; read back from a file, from a buffer and from a
 * FIFO (a non-seekable stream), and compared field by field.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reel_test.h"

#define NOPS 20000

struct expect {
	struct reel_op *ops;
	size_t nops;
	char **paths; /* by id - 1 */
	size_t npaths;
	struct reel_totals totals;
};

static char *rand_path(size_t i)
{
	char *s;
	switch (i % 5) {
	case 0:
		if (i <= 5)
			return strdup(i == 0 ? "" : "/");
		break;
	case 1: {
		size_t n = 1000 + t_rand() % 3000;
		s = malloc(n + 1);
		for (size_t k = 0; k < n; k++)
			s[k] = 'a' + t_rand() % 26;
		s[n] = 0;
		return s;
	}
	case 2:
		CHECK(asprintf(&s, "/var/lib/db/base/%zu/\xc3\xa9t\xc3\xa9-%" PRIu64, i, t_rand()) >
			  0,
		      "asprintf");
		return s;
	default:
		break;
	}
	CHECK(asprintf(&s, "rel/file.%zu", i) > 0, "asprintf");
	return s;
}

static void write_trace(const char *path, struct expect *x)
{
	struct reel_writer *w;
	struct reel_writer_opts opts = {.ops_per_chunk = 97};
	CHECK(reel_writer__open(path, &opts, &w) == 0, "writer open");
	CHECK(reel_writer__meta(w, REEL_META_TOOL, "test_roundtrip") == 0, "meta");
	CHECK(reel_writer__meta(w, REEL_META_HOST, "first") == 0, "meta");
	CHECK(reel_writer__meta(w, REEL_META_HOST, "h\xc3\xb6st") == 0, "meta overwrite");
	CHECK(reel_writer__meta(w, REEL_META_LOST_EVENTS, "0") == 0, "meta");
	CHECK(reel_writer__meta(w, "empty", "") == 0, "empty value");
	CHECK(reel_writer__meta(w, "", "x") == -EINVAL, "empty key refused");

	x->ops = calloc(NOPS, sizeof(*x->ops));
	x->paths = calloc(NOPS, sizeof(char *));
	memset(&x->totals, 0, sizeof(x->totals));
	for (size_t i = 0; i < NOPS; i++) {
		if (t_rand() % 10 == 0 || i == 0) {
			char *p = rand_path(x->npaths);
			uint32_t id;
			CHECK(reel_writer__path(w, p, &id) == 0, "path");
			CHECK(id == x->npaths + 1, "fresh id %u", id);
			uint32_t again;
			CHECK(reel_writer__path(w, p, &again) == 0 && again == id, "stable id");
			x->paths[x->npaths++] = p;
		}
		struct reel_op *op = &x->ops[i];
		unsigned type = 1 + i % (REEL_OP__COUNT - 1);
		t_rand_op(op, type, x->npaths);
		CHECK(reel_writer__add(w, op) == 0, "add %zu", i);
		if (i == 0) {
			/* after the first op: footer meta */
			CHECK(reel_writer__meta(w, REEL_META_LOST_EVENTS, "17") == 0, "late meta");
		}
		if (t_rand() % 1000 == 0)
			CHECK(reel_writer__flush(w) == 0, "flush");
		struct reel_totals *t = &x->totals;
		if (!t->ops || op->start_ns < t->first_start_ns)
			t->first_start_ns = op->start_ns;
		if (op->end_ns > t->last_end_ns)
			t->last_end_ns = op->end_ns;
		t->ops++;
		t->ops_by_type[type]++;
		/* copies read their bytes, and write them when the destination is a file
		 * (copy_file_range; sendfile whose mode, the destination's kind, is reg) */
		int copy = type == REEL_OP_COPY_FILE_RANGE || type == REEL_OP_SENDFILE;
		int copy_w = type == REEL_OP_COPY_FILE_RANGE ||
			     (type == REEL_OP_SENDFILE && op->mode == REEL_FD_REG);
		if (op->ret > 0 && (reel_op__is_read(type) || copy))
			t->bytes_read += op->ret;
		if (op->ret > 0 && (reel_op__is_write(type) || copy_w))
			t->bytes_written += op->ret;
	}
	struct reel_op bad = x->ops[0];
	bad.type = REEL_OP__COUNT;
	CHECK(reel_writer__add(w, &bad) == -EINVAL, "unknown type refused");
	bad.type = REEL_OP_READ;
	bad.path = x->npaths + 1;
	CHECK(reel_writer__add(w, &bad) == -EINVAL, "undefined path refused");
	CHECK(reel_writer__meta(w, "late.key", "late value") == 0, "footer meta");
	CHECK(reel_writer__totals(w)->ops == NOPS, "writer totals");
	x->totals.chunks = reel_writer__totals(w)->chunks;
	CHECK(x->totals.chunks >= NOPS / 97, "chunks %" PRIu64, x->totals.chunks);
	CHECK(reel_writer__close(w) == 0, "close");
	x->nops = NOPS;
}

static void check_meta(struct reel_reader *r, bool footer)
{
	CHECK(strcmp(reel_reader__meta(r, REEL_META_TOOL), "test_roundtrip") == 0, "tool");
	CHECK(strcmp(reel_reader__meta(r, REEL_META_HOST), "h\xc3\xb6st") == 0, "host");
	CHECK(strcmp(reel_reader__meta(r, "empty"), "") == 0, "empty");
	CHECK(!reel_reader__meta(r, "missing"), "missing key");
	const char *lost = reel_reader__meta(r, REEL_META_LOST_EVENTS);
	CHECK(strcmp(lost, footer ? "17" : "0") == 0, "lost_events %s", lost);
	const char *late = reel_reader__meta(r, "late.key");
	CHECK(footer ? late && strcmp(late, "late value") == 0 : !late, "late.key");
	CHECK(reel_reader__meta_count(r) == (footer ? 5u : 4u), "count %zu",
	      reel_reader__meta_count(r));
	bool seen_tool = false;
	for (size_t i = 0; i < reel_reader__meta_count(r); i++) {
		const char *k, *v;
		reel_reader__meta_at(r, i, &k, &v);
		CHECK(k && v, "meta_at %zu", i);
		seen_tool |= strcmp(k, REEL_META_TOOL) == 0;
	}
	CHECK(seen_tool, "meta_at lists tool");
}

static void read_back(struct reel_reader *r, const struct expect *x, bool seekable)
{
	check_meta(r, seekable);
	const struct reel_totals *t = reel_reader__totals(r);
	CHECK(seekable ? t != NULL : t == NULL, "totals at open");
	struct reel_op op;
	size_t i = 0;
	int rc;
	while ((rc = reel_reader__next(r, &op)) == 1) {
		CHECK(i < x->nops, "too many ops");
		if (!t_op_equal(&op, &x->ops[i])) {
			t_op_print(stderr, &op);
			t_op_print(stderr, &x->ops[i]);
			CHECK(0, "op %zu differs", i);
		}
		for (int k = 0; k < 2; k++) {
			uint32_t id = k ? op.path2 : op.path;
			if (!id)
				continue;
			const char *p = reel_reader__path(r, id);
			CHECK(p && strcmp(p, x->paths[id - 1]) == 0, "path %u of op %zu", id, i);
		}
		i++;
	}
	CHECK(rc == 0, "end: %d (%s)", rc, reel_strerror(rc));
	CHECK(reel_reader__next(r, &op) == 0, "end stays the end");
	CHECK(i == x->nops, "read %zu of %zu ops", i, x->nops);
	CHECK(!reel_reader__path(r, 0) && !reel_reader__path(r, x->npaths + 1), "no such path");
	for (size_t id = 1; id <= x->npaths; id++)
		CHECK(strcmp(reel_reader__path(r, id), x->paths[id - 1]) == 0, "path %zu", id);
	check_meta(r, true);
	t = reel_reader__totals(r);
	CHECK(t, "totals after the end");
	/* close() may end one more chunk than the writer had counted before it */
	CHECK(t->chunks == x->totals.chunks || t->chunks == x->totals.chunks + 1, "chunks");
	struct reel_totals want = x->totals;
	want.chunks = t->chunks;
	CHECK(memcmp(t, &want, sizeof(*t)) == 0, "totals");
}

/*
 * Tiny chunks (a recorder flushing every second with few ops): 1 to 8 ops per chunk, of
 * small varied values, where every column is a short stream and block overheads weigh most.
 */
static void tiny_chunks(const char *dir)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/tiny.reel", dir);
	static struct reel_op ops[2000];
	struct reel_writer *w;
	CHECK(reel_writer__open(path, NULL, &w) == 0, "open");
	size_t in_chunk = 0, chunk = 1;
	for (size_t i = 0; i < 2000; i++) {
		t_rand_op(&ops[i], 1 + t_rand() % (REEL_OP__COUNT - 1), 0);
		/* values of random byte widths: planes of every width, each a short stream */
		uint64_t *wide[] = {&ops[i].offset,   &ops[i].len,    &ops[i].aux,     &ops[i].ctx,
				    &ops[i].start_ns, &ops[i].end_ns, &ops[i].sched_ns,
				    &ops[i].wait_ns};
		for (size_t k = 0; k < sizeof(wide) / sizeof(wide[0]); k++)
			*wide[k] = t_rand() >> (8 * (t_rand() % 9) % 64);
		ops[i].ret = (int64_t)(t_rand() >> (8 * (t_rand() % 8)));
		uint32_t *narrow[] = {&ops[i].tid, &ops[i].flags, &ops[i].mode, &ops[i].pid};
		for (size_t k = 0; k < sizeof(narrow) / sizeof(narrow[0]); k++)
			*narrow[k] = (uint32_t)t_rand() >> (8 * (t_rand() % 4));
		ops[i].pid %= 4;
		ops[i].fd = (int32_t)((uint32_t)t_rand() >> (8 * (t_rand() % 4)));
		ops[i].fd2 = (int32_t)((uint32_t)t_rand() >> (8 * (t_rand() % 4)));
		CHECK(reel_writer__add(w, &ops[i]) == 0, "add");
		if (++in_chunk == chunk) {
			CHECK(reel_writer__flush(w) == 0, "flush");
			in_chunk = 0;
			chunk = chunk % 8 + 1;
		}
	}
	CHECK(reel_writer__close(w) == 0, "close");
	struct reel_reader *r;
	CHECK(reel_reader__open(path, &r) == 0, "open tiny");
	struct reel_op op;
	size_t n = 0;
	int rc;
	while ((rc = reel_reader__next(r, &op)) == 1) {
		CHECK(n < 2000 && t_op_equal(&op, &ops[n]), "tiny op %zu", n);
		n++;
	}
	CHECK(rc == 0 && n == 2000, "tiny: %d after %zu ops", rc, n);
	reel_reader__close(r);
}

int main(void)
{
	const char *dir = t_scratch_dir();
	char path[512], fifo[512];
	snprintf(path, sizeof(path), "%s/t.reel", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	struct expect x = {0};
	write_trace(path, &x);

	struct reel_reader *r;
	CHECK(reel_reader__open(path, &r) == 0, "open");
	read_back(r, &x, true);
	reel_reader__close(r);

	size_t len;
	uint8_t *buf = t_slurp(path, &len);
	CHECK(reel_reader__open_buffer(buf, len, &r) == 0, "open_buffer");
	read_back(r, &x, true);
	reel_reader__close(r);

	/* a FIFO: no footer at open, footer meta and totals once the end is reached */
	CHECK(mkfifo(fifo, 0600) == 0, "mkfifo");
	pid_t child = fork();
	CHECK(child >= 0, "fork");
	if (child == 0) {
		int fd = open(fifo, O_WRONLY);
		size_t done = 0;
		while (fd >= 0 && done < len) {
			/* small odd writes so that the reader's window refills often */
			size_t n = len - done < 1777 ? len - done : 1777;
			ssize_t k = write(fd, buf + done, n);
			if (k <= 0)
				_exit(1);
			done += k;
		}
		_exit(fd < 0);
	}
	CHECK(reel_reader__open(fifo, &r) == 0, "open fifo");
	read_back(r, &x, false);
	reel_reader__close(r);
	int status;
	CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "fifo writer");

	tiny_chunks(dir);

	free(buf);
	for (size_t i = 0; i < x.npaths; i++)
		free(x.paths[i]);
	free(x.paths);
	free(x.ops);
	t_scratch_cleanup();
	return T_PASS;
}
