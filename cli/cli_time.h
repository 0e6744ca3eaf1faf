/* SPDX-License-Identifier: MIT */
/* cli_time.h - times given on the command line (slice windows, report intervals). */
#ifndef IOREEL_CLI_TIME_H
#define IOREEL_CLI_TIME_H

#include <stdint.h>

/* "1.5" (seconds), "1500ms", "150us", "1000ns", "2m" -> ns; -EINVAL when it is not a time */
int cli_time__parse(const char *s, uint64_t *ns);

#endif
