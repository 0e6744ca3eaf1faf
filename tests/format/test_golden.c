// SPDX-License-Identifier: MIT
/*
 * Golden traces: the committed files of tests/format/golden must read exactly as their
 * committed dumps say (so a format change that breaks old files is caught), and each
 * damaged one must fail with its own error.
 */
#include "golden_dump.h"
#include "reel_test.h"

struct golden {
	const char *name;
	int open_err;	/* expected from open, or 0 */
	int first_err;	/* expected first error from next(), or 0 for none */
	size_t min_ops; /* ops that must still be read */
};

static const struct golden goldens[] = {
    {"small.reel", 0, 0, 52},
    {"truncated.reel", 0, -REEL_E_TRUNCATED, 32},
    {"bad-magic.reel", -REEL_E_MAGIC, 0, 0},
    {"bad-version.reel", -REEL_E_VERSION, 0, 0},
    {"bad-checksum.reel", 0, -REEL_E_CHECKSUM, 36},
    {"reserved-header.reel", -REEL_E_RESERVED, 0, 0},
    {"reserved-chunk.reel", 0, -REEL_E_RESERVED, 36},
    /* minor 1 with a chunk of an unknown type: readable by 1.0, damage since 1.1 (the
     * reader's own minor knows every chunk type), what comes before it still read */
    {"newer-minor.reel", 0, -REEL_E_CORRUPT, 52},
    /* minor 2 with an unknown chunk: readable by 1.1, damage since 1.2 */
    {"newer-minor-1.2.reel", 0, -REEL_E_CORRUPT, 52},
    /* minor 3 with an unknown chunk: readable by 1.2, damage since 1.3 */
    {"newer-minor-1.3.reel", 0, -REEL_E_CORRUPT, 52},
    /* minor 4 with an unknown chunk: readable by 1.3, damage since 1.4 */
    {"newer-minor-1.4.reel", 0, -REEL_E_CORRUPT, 52},
    {"newer-minor-1.5.reel", 0, 0, 52}, /* newer than this reader: the chunk skipped */
    {"small-1.1.reel", 0, 0, 68},	/* every op type of version 1.1; 18 columns, wait 0 */
    {"small-1.2.reel", 0, 0, 69},	/* munmap; as a replay result: sched, and wait in column 18 */
    {"small-1.3.reel", 0, 0, 71},	/* flock and fcntl_lock */
    {"small-1.4.reel", 0, 0, 74},	/* fork, execve and exit */
};

int main(int argc, char **argv)
{
	CHECK(argc == 2, "usage: test_golden GOLDEN_DIR");
	for (size_t g = 0; g < sizeof(goldens) / sizeof(goldens[0]); g++) {
		const struct golden *e = &goldens[g];
		char path[512], txt[512];
		snprintf(path, sizeof(path), "%s/%s", argv[1], e->name);
		snprintf(txt, sizeof(txt), "%s", path);
		strcpy(strrchr(txt, '.'), ".txt");

		char *out = NULL;
		size_t outlen = 0;
		FILE *f = open_memstream(&out, &outlen);
		int errs[16];
		size_t nerrs;
		int oerr = golden_dump(path, f, errs, &nerrs);
		fclose(f);

		CHECK(oerr == e->open_err, "%s: open gave %s", e->name, reel_strerror(oerr));
		if (!oerr) {
			CHECK(e->first_err ? nerrs >= 1 && errs[0] == e->first_err : nerrs == 0,
			      "%s: %zu errors, first %s", e->name, nerrs,
			      nerrs ? reel_strerror(errs[0]) : "-");
			size_t nops = 0;
			for (char *p = out; (p = strstr(p, "\nop ")); p++)
				nops++;
			CHECK(nops >= e->min_ops, "%s: %zu ops read", e->name, nops);
		}
		size_t wantlen;
		uint8_t *want = t_slurp(txt, &wantlen);
		if (wantlen != outlen || memcmp(want, out, outlen) != 0) {
			fprintf(stderr, "%s: dump differs from %s:\n%s", e->name, txt, out);
			return T_FAIL;
		}
		free(want);
		free(out);
	}
	return T_PASS;
}
