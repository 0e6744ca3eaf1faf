/* SPDX-License-Identifier: MIT */
/* cmd_import.c - placeholder until "ioreel import" lands; says so instead of pretending. */
#include <stdio.h>

#include "commands.h"

int cmd_import(int argc, char **argv)
{
	fprintf(stderr, "ioreel: 'import' is not built yet\n");
	return 2;
}
