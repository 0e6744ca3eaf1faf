/* SPDX-License-Identifier: MIT */
/*
 * reel_strace_int.h - the strace importer's state, shared by its driver (reel_strace.c), its
 * process and fd tables (reel_strace_fd.c) and its per-syscall handlers (reel_strace_ops.c);
 * internal to format/.
 */
#ifndef IOREEL_REEL_STRACE_INT_H
#define IOREEL_REEL_STRACE_INT_H

#include <stdint.h>
#include <stdio.h>

#include "reel_convert.h"
#include "reel_cvt_util.h"
#include "reel_strace_parse.h"

#define ST_AT_FDCWD (-100)

#define ST_O_APPEND 02000

#define ST_O_TRUNC 01000

#define ST_O_DIRECTORY 0200000

#define ST___O_TMPFILE 020000000

#define ST_O_CLOEXEC 02000000

#define ST_O_ACCMODE 3

#define ST_AT_EMPTY_PATH 0x1000

#define ST_AT_SYMLINK_FOLLOW 0x400

#define ST_RWF_APPEND 0x10

#define ST_SEEK_END 2

#define ST_CLONE_FILES 0x400

#define ST_CLONE_THREAD 0x10000

/* An open file description: what dup and fork share. */
struct st_ofd {
	int refs;
	uint32_t path; /* writer path id, 0 = none */
	char *name;    /* path text, for joining relative paths */
	uint8_t kind;
	uint8_t append;
	uint8_t pos_known;
	uint64_t pos;
};

struct st_mapping {
	uint64_t addr;
	uint64_t len;
	uint32_t path;
	int fd;
	uint8_t kind;
};

/* An fd table: a process's own, or shared by clone(CLONE_FILES) without CLONE_THREAD. */
struct st_fdtab {
	struct cvt_map fds; /* fd -> (uintptr_t)ofd | 1 when close-on-exec */
	int refs;
};

struct st_proc {
	struct st_fdtab *fdt;
	char *cwd;
	char *root; /* the directory chroot(2) made its "/"; NULL: "/" */
	struct st_mapping *maps;
	size_t nmaps, capmaps;
};

struct st_pending {
	uint64_t ts;
	char *text;
	/* a close left unfinished: the description it closed, taken out of the fd table as the
	 * call entered (the kernel frees the number then: an open may reuse it before the close
	 * resumes) */
	struct st_ofd *closed;
};

struct st_aio {
	struct st_aio *next;
	uint64_t ctx, data;
	uint8_t subop, kind;
	int fd;
	uint32_t path;
	uint64_t offset, len;
};

struct st_state {
	struct reel_writer *w;
	struct reel_strace_stats *st;
	uint64_t first_ts;
	int have_first;
	long initial;		    /* pid of the lines without a pid column */
	struct cvt_map parent;	    /* child tid -> parent tid << 1 | is_thread */
	struct cvt_map files;	    /* child tid -> 1: a process sharing its parent's fd table */
	struct cvt_map seen;	    /* pid column values -> first line number */
	struct cvt_map live;	    /* tids alive */
	struct cvt_map pending;	    /* tid -> struct st_pending * */
	struct cvt_map procs;	    /* tgid -> struct st_proc * */
	struct cvt_map sizes;	    /* path id -> file size + 1 */
	struct cvt_map dirs;	    /* hash of a path known to be a directory -> 1 */
	struct cvt_map ends;	    /* tgid -> number of the last line of any of its threads */
	struct cvt_map exiting;	    /* tgid -> log time + 1 of the exit_group (or last exit) call
				       that began its end, when no call of it began later */
	struct cvt_map exit_line;   /* tgid -> the line its exit op goes after (0: written) */
	struct cvt_map exit_status; /* tgid -> wait status + 1, when its last line is "+++" */
	uint32_t exit_due;	    /* tgid + 1 whose exit op goes before the next line */
	struct cvt_map forked;	    /* child tgid -> 1: its fork op is written */
	struct st_aio *aio;	    /* in-flight iocbs, oldest first */
	int command_set;
	/* the call being handled */
	uint32_t tgid, tid;
	uint64_t start, end;
	struct st_proc *proc;
	struct st_ofd *closed; /* a close resuming: the description it entered with (pending) */
};

/* reel_strace_fd.c: processes, their fd tables and cwds, paths, file sizes, emitting ops */
char *st_arg(const struct stl_call *c, int i);
int st_dirfd_arg(struct st_state *s, char *arg, int *fd, char **ann);
int st_emit(struct st_state *s, struct reel_op *op, int kind);
int st_emit_any(struct st_state *s, struct reel_op *op, int kind);
struct st_ofd *st_fd_arg(struct st_state *s, char *arg, int *fd, int *err);
void st_fd_close(struct st_proc *p, int fd);
void st_ofd_put(struct st_ofd *o);
struct st_ofd *st_fd_get(struct st_proc *p, int fd, int *cloexec);
int st_fd_set(struct st_proc *p, int fd, struct st_ofd *o, int cloexec);
struct st_fdtab *st_fdtab_new(void);
void st_fdtab_put(struct st_fdtab *t);
int st_is_dir(struct st_state *s, const char *p);
int st_is_file_kind(int kind);
int st_kind_of_path(const char *p, int hint);
void st_note_parents(struct st_state *s, const char *p);
int st_ofd_kind(const struct st_ofd *o);
void st_op_fd(struct reel_op *op, int fd, const struct st_ofd *o);
void st_op_init(struct st_state *s, struct reel_op *op, int type, const struct stl_call *c);
int st_path_id(struct st_state *s, const char *path, uint32_t *id);
void st_proc_free(struct st_proc *p);
struct st_proc *st_proc_get(struct st_state *s, uint32_t tgid);
char *st_resolve(struct st_state *s, int dirfd, const char *dirann, const char *path);
void st_size_from_stat(struct st_state *s, uint32_t path, const char *buf);
void st_stat_result(struct reel_op *op, const char *buf);
void st_size_grow(struct st_state *s, uint32_t path, uint64_t end);
void st_size_set(struct st_state *s, uint32_t path, uint64_t size);
uint64_t *st_size_slot(struct st_state *s, uint32_t path);
void st_strip_deleted(char *p);
uint32_t st_tgid(struct st_state *s, uint32_t tid);

/* reel_strace_ops.c: one handler per syscall (family), st_dispatch's */
uint64_t st_clone_flags(const struct stl_call *c);
int st_exit_status(const char *text, int64_t *status);
int st_fork_op(struct st_state *s, uint32_t child, uint64_t at);
int st_exit_op(struct st_state *s, int64_t status, uint64_t at);
int st_do_chdir(struct st_state *s, struct stl_call *c, int is_fchdir);
int st_do_chroot(struct st_state *s, struct stl_call *c);
int st_do_clone(struct st_state *s, struct stl_call *c);
int st_do_close(struct st_state *s, struct stl_call *c);
int st_do_close_range(struct st_state *s, struct stl_call *c);
int st_do_copy(struct st_state *s, struct stl_call *c, int type);
int st_do_dup(struct st_state *s, struct stl_call *c, int type);
int st_do_execve(struct st_state *s, struct stl_call *c);
int st_do_fdop(struct st_state *s, struct stl_call *c, int type);
int st_do_io_getevents(struct st_state *s, struct stl_call *c);
int st_do_io_submit(struct st_state *s, struct stl_call *c);
int st_do_lock(struct st_state *s, struct stl_call *c, int type);
int st_do_lseek(struct st_state *s, struct stl_call *c);
int st_do_mmap(struct st_state *s, struct stl_call *c);
int st_do_msync(struct st_state *s, struct stl_call *c);
int st_do_sync_all(struct st_state *s, struct stl_call *c);
int st_do_munmap(struct st_state *s, struct stl_call *c);
int st_do_open(struct st_state *s, struct stl_call *c, int type);
int st_do_pathop(struct st_state *s, struct stl_call *c, int type, int di, int pi);
int st_do_rename(struct st_state *s, struct stl_call *c, int type);
int st_do_rw(struct st_state *s, struct stl_call *c, int type);
int st_do_symlink(struct st_state *s, struct stl_call *c, int type);
int st_lock_cmd(const char *arg);

#endif
