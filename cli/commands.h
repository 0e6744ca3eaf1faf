/* SPDX-License-Identifier: MIT */
/*
 * commands.h - the ioreel subcommands. Each lives in cli/cmd_<name>.c, parses its own
 * arguments (getopt_long, with a --help that ends in an EXAMPLES block), prints errors as
 * one line "ioreel: failed to ...: <reason>" and returns the process exit status.
 */
#ifndef IOREEL_COMMANDS_H
#define IOREEL_COMMANDS_H

int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_slice(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif
