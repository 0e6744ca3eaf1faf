/* SPDX-License-Identifier: MIT */
/* report.c - report__compare(): read every run, compare, write text or JSON (and HTML). */
#include <errno.h>
#include <stdlib.h>

#include "report_int.h"

static int write_html(const struct report *rep, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -errno;
	int err = report__write_html(rep, f);
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

int report__compare(const char *trace, const char *const *results, size_t n,
		    const struct report_opts *opts, FILE *out)
{
	static const struct report_opts defaults;
	struct report rep = {.opts = opts ? opts : &defaults};
	const char *failed = NULL;
	int err = 0;

	rep.top = rep.opts->top ? rep.opts->top : 5;
	rep.runs = calloc(n + 1, sizeof(*rep.runs));
	if (!rep.runs)
		return -ENOMEM;
	for (size_t i = 0; i <= n && !err; i++) {
		const char *path = i ? results[i - 1] : trace;
		err = report_run__collect(&rep.runs[i], path, rep.opts->by == REPORT_BY_FILE);
		rep.nruns = i + 1;
		if (err)
			failed = path;
		/* Another capture given as a result (comparing two recordings): its file name. */
		else if (i && !rep.runs[i].is_replay)
			snprintf(rep.runs[i].label, sizeof(rep.runs[i].label), "%s",
				 report_fmt__base(path));
	}
	if (!err)
		err = report__analyze(&rep);
	if (!err)
		err =
		    rep.opts->json ? report__write_json(&rep, out) : report__write_text(&rep, out);
	if (!err && rep.opts->html_path) {
		err = write_html(&rep, rep.opts->html_path);
		if (err)
			failed = rep.opts->html_path;
	}
	if (err && rep.opts->failed)
		*rep.opts->failed = failed;

	for (size_t i = 0; i < rep.nruns; i++)
		report_run__free(&rep.runs[i]);
	free(rep.runs);
	free(rep.hot);
	free(rep.verdicts);
	return err;
}
