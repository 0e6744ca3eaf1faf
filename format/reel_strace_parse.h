/* SPDX-License-Identifier: MIT */
/*
 * reel_strace_parse.h - lexing of strace output lines (private to the importer,
 * reel_strace*.c): the pid prefix, the -ttt timestamp, unfinished/resumed halves, the call's
 * arguments split at top-level commas, the return value with its -y annotation and errno, the
 * -T duration.
 */
#ifndef IOREEL_REEL_STRACE_PARSE_H
#define IOREEL_REEL_STRACE_PARSE_H

#include <stddef.h>
#include <stdint.h>

enum stl_kind {
	STL_BLANK = 0,	/* empty, or strace's own messages ("strace: Process N attached") */
	STL_CALL,	/* a whole call: NAME(ARGS) = RET <DUR> */
	STL_UNFINISHED, /* NAME(ARGS <unfinished ...> */
	STL_RESUMED,	/* <... NAME resumed>ARGS) = RET <DUR> */
	STL_EXIT,	/* +++ exited with N +++ / +++ killed by SIG +++ */
	STL_SIGNAL,	/* --- SIGCHLD {...} --- */
	STL_BAD,
};

struct stl_line {
	enum stl_kind kind;
	long pid;	/* the pid column (a tid), or -1 when the line has none */
	uint64_t ts_ns; /* -ttt timestamp, ns since the epoch; -tt: ns since the first line's
			   midnight (stl_clock) */
	int tod;	/* the time stamp was -tt's time of day */
	int untimed;	/* STL_BAD: a call (or +++/--- line) without a usable time stamp */
	char *text;	/* call text (STL_CALL/UNFINISHED: from NAME; RESUMED: after '>';
			   STL_EXIT: from "+++") */
	char name[32];	/* STL_RESUMED: the call's name */
};

/*
 * -tt's times of day carry no date: a line whose time goes back by more than 12 h from the
 * latest seen is on the next day. One clock per pass over a log, zeroed, so that every pass
 * gives each line the same time.
 */
struct stl_clock {
	uint64_t day_ns; /* added to the time of day: a multiple of 24 h */
	uint64_t last_ns;
};

/* Splits line in place (it is modified: the unfinished marker is cut off). */
void stl_parse_line(char *line, struct stl_line *l, struct stl_clock *ck);

#define STC_MAX_ARGS 12

struct stl_call {
	char name[32];
	int nargs;
	char *args[STC_MAX_ARGS]; /* NUL-terminated, trimmed, in the call's (modified) text */
	int ret_known;		  /* 0 for "= ?" */
	int64_t ret;		  /* -errno on failure */
	char *ret_ann;		  /* the -y annotation of the return value ("/path"), or NULL */
	int ret_kind_hint;	  /* 'c'/'b' from -yy's "<char ...>"/"<block ...>" in it, or 0 */
	int has_dur;
	uint64_t dur_ns;
};

/*
 * Parses "NAME(ARGS) = RET <DUR>" in place. 0, -EINVAL when it is not a call, -ERANGE when
 * a number in it is beyond what strace prints (an argument or the return value).
 */
int stl_parse_call(char *text, struct stl_call *c);

/*
 * An fd argument: "3", "3</path>", "3</dev/null<char 1:3>>", "AT_FDCWD</cwd>"; -ERANGE for
 * a number beyond an int, -EINVAL for no number.
 * *ann points to the unescaped annotation (a static-lifetime part of arg, rewritten in
 * place) or NULL; *kind_hint is 'c', 'b' from -yy's "<char ...>"/"<block ...>", else 0.
 */
int stl_fd_arg(char *arg, int *fd, char **ann, int *kind_hint);
/* Splits an annotation like stl_fd_arg does: returns the path, sets *kind_hint. */
char *stl_annotation(char *ann, int *kind_hint);
/* A quoted C string argument, unescaped in place; NULL if arg is not a string. */
char *stl_str_arg(char *arg);
/* An integer argument (decimal, 0x hex, 0 octal); 0 when not a number. */
int64_t stl_int_arg(const char *arg);
/* A|B|0x10 symbolic flags through a table (NULL-terminated); unknown names count as 0. */
struct stl_sym {
	const char *name;
	uint64_t val;
};
uint64_t stl_flags_arg(const char *arg, const struct stl_sym *tab);
/* "key=VALUE" inside a struct/array text; pointer to VALUE (ends at , } ]) or NULL. */
const char *stl_field(const char *s, const char *key);

extern const struct stl_sym stl_open_flags[], stl_at_flags[], stl_rwf_flags[], stl_seek[],
    stl_sfr_flags[], stl_fadv[], stl_falloc[], stl_prot[], stl_map_flags[], stl_ms_flags[],
    stl_rename_flags[], stl_access_modes[], stl_iocb_cmds[], stl_statx_mask[], stl_lock_cmds[],
    stl_lock_types[], stl_flock_ops[], stl_clone_flags[];

#endif
