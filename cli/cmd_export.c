/* SPDX-License-Identifier: MIT */
/* cmd_export.c - placeholder until "ioreel export" lands; says so instead of pretending. */
#include <stdio.h>

#include "commands.h"

int cmd_export(int argc, char **argv)
{
	fprintf(stderr, "ioreel: 'export' is not built yet\n");
	return 2;
}
