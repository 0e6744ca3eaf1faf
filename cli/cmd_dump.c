/* SPDX-License-Identifier: MIT */
/* cmd_dump.c - placeholder until "ioreel dump" lands; says so instead of pretending. */
#include <stdio.h>

#include "commands.h"

int cmd_dump(int argc, char **argv)
{
	fprintf(stderr, "ioreel: 'dump' is not built yet\n");
	return 2;
}
