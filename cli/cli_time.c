/* SPDX-License-Identifier: MIT */
/* cli_time.c - times given on the command line: a number of seconds, or with a unit. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_time.h"

int cli_time__parse(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"", 1e9}};
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !(v >= 0) || isinf(v))
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		if (v * units[i].ns >= 9e18) /* llround: a long long */
			return -EINVAL;
		*ns = (uint64_t)llround(v * units[i].ns);
		return 0;
	}
	return -EINVAL;
}
