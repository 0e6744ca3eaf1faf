/* SPDX-License-Identifier: MIT */
/* cli_damage.h - the one line a command that read a damaged trace ends with. */
#ifndef IOREEL_CLI_DAMAGE_H
#define IOREEL_CLI_DAMAGE_H

#include <stdint.h>

#include "reel.h"

/*
 * On stderr, what the damage of trace NAME cost in all, the same words in every command:
 * "ioreel: NAME is damaged at byte N (1 region): 16384 ops lost", or, when no op could be
 * read, "ioreel: NAME: truncated at byte 100: no ops before the damage".
 */
void cli_damage__say(const char *name, const struct reel_damage_sum *s, uint64_t ops);

#endif
