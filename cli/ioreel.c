/* SPDX-License-Identifier: MIT */
/* ioreel.c - entry point: dispatches "ioreel CMD ..." to cli/cmd_CMD.c. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "record", cmd_record, "capture an application's file I/O with eBPF into a trace" },
	{ "replay", cmd_replay, "reissue a trace against target directories, timing kept" },
	{ "report", cmd_report, "compare latency distributions of a trace and its replays" },
	{ "info", cmd_info, "summarise a trace: ops, bytes, processes, files, damage" },
	{ "dump", cmd_dump, "print a trace one op per line (text, jsonl, csv)" },
	{ "import", cmd_import, "make a trace from other tools' output (strace)" },
	{ "export", cmd_export, "write a trace in other tools' formats (fio iolog)" },
	{ "slice", cmd_slice, "cut a time window of a trace into a trace of its own" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: ioreel COMMAND [ARGS...]\n\n"
		     "Record an application's file I/O, replay it on other storage with the\n"
		     "original timing and concurrency, and compare latency distributions.\n\n"
		     "commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "  %-8s %s\n", "help", "this text; 'ioreel CMD --help' for one command");
	fprintf(out, "\nexample:\n"
		     "  ioreel record -o app.reel -- ./app\n"
		     "  ioreel replay app.reel --target /dev/shm/t --target /var/tmp/t\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("ioreel 0.1.0\n");
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	}
	fprintf(stderr, "ioreel: unknown command '%s' (try 'ioreel help')\n", argv[1]);
	return 2;
}
