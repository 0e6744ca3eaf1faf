/* SPDX-License-Identifier: MIT */
/* cli_trace.h - a command's trace that cannot be opened: one line and one exit status. */
#ifndef IOREEL_CLI_TRACE_H
#define IOREEL_CLI_TRACE_H

#include "reel.h"

/* The exit status of a command whose input cannot be opened as a trace, as of a usage error. */
#define CLI_EXIT_NO_TRACE 2

/*
 * Opens TRACE for a command. When it cannot be (missing, unreadable, not a trace, another
 * major version), says so as every command does ("ioreel: failed to open X: not an ioreel
 * trace (bad magic)") and returns CLI_EXIT_NO_TRACE; else 0.
 */
int cli_trace__open(const char *path, struct reel_reader **r);
/*
 * The same test for a command whose library opens TRACE itself, before it does anything (a
 * pipe is left to the library: its bytes can be read once).
 */
int cli_trace__check(const char *path);
/*
 * An output file the command will write at its end (report --html): its directory is there
 * and writable, and it is no directory; else says so in one line ("ioreel: cannot write WHAT
 * PATH: ...") and returns 2, before the work it would cost.
 */
int cli_output__check(const char *path, const char *what);

#endif
