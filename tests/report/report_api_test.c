/* SPDX-License-Identifier: MIT */
/*
 * report_api_test.c - report__compare() as the replayer calls it: into a FILE, text and
 * JSON, NULL opts; an unreadable input fails with -errno and names the input; the HTML
 * output path failing is reported as such.
 * usage: report_api_test DIR   (DIR holds report_mktrace's traces)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static int fail;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			printf("FAIL: " __VA_ARGS__);                                              \
			printf("\n");                                                              \
			fail = 1;                                                                  \
		}                                                                                  \
	} while (0)

static char *run(const char *trace, const char *const *res, size_t n, const struct report_opts *o,
		 int *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	*err = report__compare(trace, res, n, o, f);
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	char orig[4096], fast[4096], html[4096], missing[4096];
	int err;

	if (argc < 2)
		return 2;
	snprintf(orig, sizeof(orig), "%s/orig.reel", argv[1]);
	snprintf(fast, sizeof(fast), "%s/fast.reel", argv[1]);
	snprintf(missing, sizeof(missing), "%s/missing.reel", argv[1]);
	const char *res[] = {fast};

	char *out = run(orig, res, 1, NULL, &err);
	CHECK(!err, "text report failed: %d", err);
	CHECK(strstr(out, "\nverdict:\n") && strstr(out, "fsync p"), "text report content");
	free(out);

	out = run(orig, NULL, 0, NULL, &err);
	CHECK(!err && strstr(out, "nothing to compare"), "original alone");
	free(out);

	struct report_opts o = {.json = 1};
	out = run(orig, res, 1, &o, &err);
	CHECK(!err && out[0] == '{' && strstr(out, "\"verdict\""), "json report");
	free(out);

	const char *failed = NULL;
	const char *bad[] = {fast, missing};
	o = (struct report_opts){.failed = &failed};
	out = run(orig, bad, 2, &o, &err);
	CHECK(err == -ENOENT, "missing result: %d", err);
	CHECK(failed && !strcmp(failed, missing), "failed names the missing input");
	free(out);

	snprintf(html, sizeof(html), "%s/no/such/dir/r.html", argv[1]);
	failed = NULL;
	o = (struct report_opts){.failed = &failed, .html_path = html};
	out = run(orig, res, 1, &o, &err);
	CHECK(err == -ENOENT && failed && !strcmp(failed, html), "html path error: %d", err);
	free(out);
	return fail;
}
