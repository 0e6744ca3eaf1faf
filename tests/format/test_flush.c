// SPDX-License-Identifier: MIT
/*
 * Crash safety: what reel_writer__flush() wrote is readable while the writer is still
 * open, and after the writing process is SIGKILLed: every flushed op, then
 * -REEL_E_TRUNCATED. Also: the writer's options are honoured.
 */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reel_test.h"

static struct reel_op ops[5000];

/* Reads path: returns the ops read; *last is what next() returned at the end. */
static size_t read_count(const char *path, int *last, size_t *chunks)
{
	struct reel_reader *r;
	CHECK(reel_reader__open(path, &r) == 0, "open %s", path);
	struct reel_op op;
	size_t n = 0;
	int rc;
	while ((rc = reel_reader__next(r, &op)) == 1) {
		CHECK(n < 5000 && t_op_equal(&op, &ops[n]), "op %zu", n);
		n++;
	}
	*last = rc;
	if (chunks)
		*chunks = reel_reader__totals(r) ? reel_reader__totals(r)->chunks : 0;
	CHECK(strcmp(reel_reader__meta(r, REEL_META_TOOL), "test_flush") == 0, "head meta");
	reel_reader__close(r);
	return n;
}

int main(void)
{
	const char *dir = t_scratch_dir();
	char path[512];
	snprintf(path, sizeof(path), "%s/f.reel", dir);
	for (size_t i = 0; i < 5000; i++) {
		t_rand_op(&ops[i], REEL_OP_PREAD64 + i % 3, 0);
		ops[i].start_ns = i;
	}

	/* flushed ops are on disk while the writer is open */
	struct reel_writer *w;
	struct reel_writer_opts opts = {.ops_per_chunk = 1000, .zstd_level = 19};
	CHECK(reel_writer__open(path, &opts, &w) == 0, "writer");
	CHECK(reel_writer__meta(w, REEL_META_TOOL, "test_flush") == 0, "meta");
	int last;
	CHECK(reel_writer__flush(w) == 0, "empty flush");
	CHECK(read_count(path, &last, NULL) == 0 && last == -REEL_E_TRUNCATED, "head only");
	for (size_t i = 0; i < 1500; i++)
		CHECK(reel_writer__add(w, &ops[i]) == 0, "add");
	/* 1000 went out as a full chunk; 500 are buffered */
	CHECK(read_count(path, &last, NULL) == 1000 && last == -REEL_E_TRUNCATED, "one chunk");
	CHECK(reel_writer__flush(w) == 0 && reel_writer__flush(w) == 0, "flush twice");
	CHECK(read_count(path, &last, NULL) == 1500 && last == -REEL_E_TRUNCATED, "flushed");
	CHECK(reel_writer__totals(w)->chunks == 2, "chunks %llu",
	      (unsigned long long)reel_writer__totals(w)->chunks);
	CHECK(reel_writer__close(w) == 0, "close");
	size_t chunks;
	CHECK(read_count(path, &last, &chunks) == 1500 && last == 0 && chunks == 2, "closed");

	/* a writer killed with SIGKILL after flushing */
	int pfd[2];
	CHECK(pipe(pfd) == 0, "pipe");
	pid_t child = fork();
	CHECK(child >= 0, "fork");
	if (child == 0) {
		struct reel_writer *cw;
		if (reel_writer__open(path, NULL, &cw) ||
		    reel_writer__meta(cw, REEL_META_TOOL, "test_flush"))
			_exit(1);
		for (size_t i = 0; i < 5000; i++) {
			if (reel_writer__add(cw, &ops[i]))
				_exit(1);
			if (i == 2999 && reel_writer__flush(cw))
				_exit(1);
		}
		if (write(pfd[1], "k", 1) != 1)
			_exit(1);
		pause(); /* 2000 ops still buffered when the signal comes */
		_exit(1);
	}
	char c;
	CHECK(read(pfd[0], &c, 1) == 1, "child ready");
	kill(child, SIGKILL);
	int status;
	CHECK(waitpid(child, &status, 0) == child && WIFSIGNALED(status), "child killed");
	CHECK(read_count(path, &last, NULL) == 3000 && last == -REEL_E_TRUNCATED, "after SIGKILL");

	/* bad arguments */
	CHECK(reel_writer__open("/nonexistent/dir/x.reel", NULL, &w) == -ENOENT, "ENOENT");
	struct reel_reader *r;
	CHECK(reel_reader__open("/nonexistent/x.reel", &r) == -ENOENT, "reader ENOENT");
	CHECK(strcmp(reel_strerror(-ENOENT), strerror(ENOENT)) == 0, "errno names");
	CHECK(strcmp(reel_strerror(-REEL_E_TRUNCATED), reel_strerror(REEL_E_TRUNCATED)) == 0,
	      "sign");
	t_scratch_cleanup();
	return T_PASS;
}
