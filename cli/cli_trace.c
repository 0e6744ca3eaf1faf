/* SPDX-License-Identifier: MIT */
/* cli_trace.c - a command's trace that cannot be opened: one line and one exit status. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_trace.h"
#include "replay.h"

int cli_trace__open(const char *path, struct reel_reader **r)
{
	int err = reel_reader__open(path, r);

	if (!err)
		return 0;
	fprintf(stderr, "ioreel: failed to open %s: %s\n", path, reel_strerror(err));
	return CLI_EXIT_NO_TRACE;
}

int cli_trace__check(const char *path)
{
	struct reel_reader *r;
	struct stat st;
	int rc;

	/* a pipe's bytes would be gone for the library: it says itself what it cannot read */
	if (!stat(path, &st) && !S_ISREG(st.st_mode))
		return 0;
	rc = cli_trace__open(path, &r);

	if (!rc)
		reel_reader__close(r);
	return rc;
}

int cli_output__check(const char *path, const char *what)
{
	int err = replay_output__creatable(path);

	if (!err)
		return 0;
	fprintf(stderr, "ioreel: cannot write %s %s: %s\n", what, path,
		err == -EISDIR ? "it is a directory" : strerror(-err));
	return CLI_EXIT_NO_TRACE;
}
