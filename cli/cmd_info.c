/* SPDX-License-Identifier: MIT */
/* cmd_info.c - placeholder until "ioreel info" lands; says so instead of pretending. */
#include <stdio.h>

#include "commands.h"

int cmd_info(int argc, char **argv)
{
	fprintf(stderr, "ioreel: 'info' is not built yet\n");
	return 2;
}
