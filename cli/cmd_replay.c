/* SPDX-License-Identifier: MIT */
/* cmd_replay.c - placeholder until "ioreel replay" lands; says so instead of pretending. */
#include <stdio.h>

#include "commands.h"

int cmd_replay(int argc, char **argv)
{
	fprintf(stderr, "ioreel: 'replay' is not built yet\n");
	return 2;
}
