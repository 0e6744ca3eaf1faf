/* SPDX-License-Identifier: MIT */
/* cmd_record.c - placeholder until "ioreel record" lands; says so instead of pretending. */
#include <stdio.h>

#include "commands.h"

int cmd_record(int argc, char **argv)
{
	fprintf(stderr, "ioreel: 'record' is not built yet\n");
	return 2;
}
