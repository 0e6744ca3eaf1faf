/* SPDX-License-Identifier: MIT */
/* cli_damage.c - the one line a command that read a damaged trace ends with. */
#include <stdio.h>

#include "cli_damage.h"

void cli_damage__say(const char *name, const struct reel_damage_sum *s, uint64_t ops)
{
	char line[768];

	if (ops)
		fprintf(stderr, "ioreel: %s\n",
			reel_damage_sum__headline(s, name, line, sizeof(line)));
	else
		fprintf(stderr, "ioreel: %s: %s\n", name,
			reel_damage_sum__no_ops(s, line, sizeof(line)));
}
