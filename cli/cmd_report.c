/* SPDX-License-Identifier: MIT */
/* cmd_report.c - placeholder until "ioreel report" lands; says so instead of pretending. */
#include <stdio.h>

#include "commands.h"

int cmd_report(int argc, char **argv)
{
	fprintf(stderr, "ioreel: 'report' is not built yet\n");
	return 2;
}
