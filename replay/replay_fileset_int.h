/* SPDX-License-Identifier: MIT */
/*
 * replay_fileset_int.h - what the file-set scan knows of each path, shared by its parts:
 * replay_fileset.c (the pass over the trace, and the file set made of what it found),
 * replay_fileset_scan.c (what each op tells of the paths it names) and
 * replay_fileset_links.c (where the symlinks there before the capture lead).
 */
#ifndef IOREEL_REPLAY_FILESET_INT_H
#define IOREEL_REPLAY_FILESET_INT_H

#include <stdint.h>

#include "replay_hash.h"
#include "replay_int.h"

enum pstate { P_UNKNOWN = 0, P_EXISTED, P_CREATED, P_MAYBE, P_ABSENT };

struct pinfo {
	uint8_t state;
	uint8_t kind;	   /* 0 unknown, REPLAY_F_FILE, REPLAY_F_DIR */
	uint8_t app_owned; /* truncated or written: later reads say nothing about the old size */
	uint8_t written;
	/*
	 * Fallocated by the application, in place (not a collapsed or inserted range, which
	 * cut): allocated, a hole an lseek(SEEK_DATA) finds since may be one it punched, and
	 * resized, without FALLOC_FL_KEEP_SIZE, the length an lseek shows since may be the one
	 * its fallocate made, past the file's end. Neither tells the file before the capture.
	 */
	uint8_t allocated;
	uint8_t resized;
	uint8_t exec;	      /* access(X_OK) succeeded: prepared executable */
	uint8_t open_direct;  /* opened with O_DIRECT */
	uint8_t open_cached;  /* opened without it (by the trace, or before the capture) */
	uint8_t symlink;      /* a symlink the application made, as the scan stands: lspan's */
	uint8_t linked;	      /* one was made by this name at some point (symlink, or a rename) */
	uint32_t lspan;	      /* its latest link span (struct lspan), + 1 (0: never a symlink) */
	uint32_t linklen;     /* readlink read this many bytes of it, before anything else told */
	uint32_t pre_content; /* a symlink there before the capture: what readlink read of it */
	uint8_t followed;     /* opened or stat'd by this name: what it leads to was there */
	uint8_t pre_followed; /* so before the application made it a symlink: REPLAY_F_* found */
	uint8_t gone;	      /* removed, renamed away or made again: another may be there */
	uint8_t dir_changed;  /* in fs->dirs_changed */
	uint8_t cut;	      /* cut by this name, or renamed to one that is (cuts__mark) */
	uint64_t cut_ns;      /* the end of the last such cut in the trace */
	char *disk;	      /* pre_content as prepared under the target; NULL: not */
	char *at;	      /* a symlink below one: where it really lies (prelinks__place) */
	uint64_t size;
	uint64_t written_hwm;
	uint64_t written_lo; /* the lowest byte the application wrote, when written */
	uint64_t presize;    /* its size when the capture began, when the recorder says */
	uint8_t sized;	     /* the recorder said that size (an open's, a stat's, an fd's) */
	uint8_t seen;	   /* an op named it: a later open's size may be one the application made */
	uint8_t came_back; /* in a directory renamed away and back: there before (rename__origin) */
	uint64_t first_op; /* the number of the first op that named it, from 1 */
	uint64_t gone_op;  /* the number of the op after which it was first gone (0: never) */
	/* a name a rename or a link gave to a file there before the capture: that file's path
	 * id, which its reads by this name tell the extent of (0: none) */
	uint32_t origin;
	uint8_t remade;	  /* made anew by the application since the capture began */
	/* the number of the op that first made it anew, or opened it O_CREAT after it went
	 * (0: none yet) */
	uint64_t remade_op;
	/* when first made anew, the file there before the capture, not cut by the application
	 * (P_EXISTED): fds opened before still read it (FDV_GEN0) */
	uint8_t pre_live;
	/*
	 * What the trace tells of the object by this name there before the capture, while it
	 * still stood (before the application removed, replaced or made one by the name): not
	 * a directory (an unlink without AT_REMOVEDIR, a rename of a non-directory over it
	 * succeeded), a symlink (an lstat found one, a readlink read one, an O_NOFOLLOW open
	 * failed ELOOP). With paths below it named while it stood, it was a symlink to a
	 * directory (prelinks__standin).
	 */
	uint8_t pre_nondir;
	uint8_t pre_islink;
	/*
	 * Ops that failed with ENOENT, whenever in the trace (enoent__note): one that looked the
	 * name up (it had to be there: a stat, an open without O_CREAT, a rename's old name)
	 * says that it, or a directory above it, was missing then; one that made the name (a
	 * mkdir, an O_CREAT open, the new name of a rename, link or symlink) that a directory
	 * above it was. What parent__presumed weighs.
	 */
	uint8_t enoent_lookup;
	uint8_t enoent_making;
};

/*
 * A symlink by one name, for the ops between the one that made it and the one that removed
 * or replaced it: one the application made (symlink(), or a rename that moved one there, with
 * its content), or one there before the capture whose content a readlink told (pre). A name
 * swapped from one link to another (ln -s v2 tmp; mv tmp cur) has a span for each: a path
 * below it leads where the link standing when the path was first named led.
 */
struct lspan {
	uint32_t name;	      /* path id of the link */
	uint32_t content;     /* path id of its content (pre: the name's pre_content) */
	uint32_t prev;	      /* the span before it by the same name, + 1 (0: none) */
	uint8_t pre;	      /* there before the capture, prepared as a symlink (disk) */
	uint8_t through_kind; /* what opening the link itself found, REPLAY_F_* (0: not opened) */
	uint64_t from;	      /* the op that made it (0: before the capture) */
	uint64_t to;	      /* the op that removed or replaced it (0: it stood to the end) */
	uint64_t through;     /* the furthest byte read through the link itself */
};

struct scan {
	struct replay_u64map tidset;
	size_t tidcap;
	uint64_t *tfirst, *tlast; /* each thread's first and last op, by position in the trace */
	struct pinfo *p;
	uint32_t np;
	struct replay_u64map fds; /* (pid, fd) -> path id | O_APPEND << 32 */
	/* old, new path id of each rename, in trace order; and (0, path id) of each mkdir */
	uint32_t *renames;
	size_t nrenames, caprenames;
	uint64_t *rename_at;	       /* the op number of each (renames[2 * i], [2 * i + 1]) */
	uint32_t *rename_prev;	       /* the one before it that made the same name, + 1 (0: none) */
	struct replay_u64map renamed_to; /* a name's path id -> the latest that made it, + 1 */
	int rename_lost;		 /* out of memory: rename_at and renamed_to incomplete */
	/* files that were in a directory the application renamed, by their names before */
	struct moved {
		char *name;
		uint32_t id; /* the path id that found it, under the new name */
	} *moved;
	size_t nmoved, capmoved;
	struct replay_strset moved_names;
	/* (pid, fd) -> size of the file open there before the capture (REEL_META_CAPTURE_FD_SIZES),
	 * until the first op on that fd */
	struct replay_u64map presize;
	/* (pid, fd) -> the file's size when the fd was opened, + 1 (the open's aux), when said:
	 * how much of the file a mapping through it could have read */
	struct replay_u64map opensz;
	/* fds first used after their name went (early__note): pid, fd, path id each; the fds
	 * the trace did not open that an op has used */
	uint32_t *early;
	struct replay_u64map preused;
	size_t nearly, capearly;
	struct lspan *links;
	uint32_t nlinks, caplinks;
	/* the application's symlinks standing as the scan stands: a hash of the name -> span + 1 */
	struct replay_u64map standing;
	/* each path first named below a standing one, per span: path id, span + 1, and whether
	 * that op found the path there (link__under); (path id << 32 | span + 1) -> 1 */
	uint32_t *under;
	size_t nunder, capunder;
	struct replay_u64map under_seen;
	/* holes the application's lseek(SEEK_DATA) found in files there before the capture */
	struct hole {
		uint32_t id;
		uint64_t lo, hi; /* hi UINT64_MAX: to the end */
	} *holes;
	size_t nholes, capholes;
	/* contents of symlinks there before the capture that the trace does not tell, made up
	 * for them (prelinks__standin): a content id with CONTENT_STANDIN names one of these */
	char **standins;
	uint32_t nstandins, capstandins;
	struct replay_fileset *fs;
	struct reel_reader *r;
	uint64_t nops;
};

/* replay_fileset_scan.c: what each op tells */
struct pinfo *pinfo(struct scan *s, uint32_t id); /* grown to hold id; NULL for id 0 */
void scan__op(struct scan *s, const struct reel_op *op);
struct lspan *link__add(struct scan *s, uint32_t id, uint32_t content, uint64_t from);

/* replay_fileset.c: the file set's entries */
int fs__add(struct replay_fileset *fs, const struct replay_mapper *m, const char *path, int kind,
	    uint64_t size, int exec);
int fs__add_symlink(struct replay_fileset *fs, const struct replay_mapper *m, const char *path,
		    const char *content);
int below_created(const struct replay_strset *created, const char *p);
uint64_t str__key(const char *p);

/* replay_fileset_links.c: the symlinks there before the capture, in the order called */
int prelinks__standin(struct scan *s, struct reel_reader *r, const struct replay_u64map *ids);
int prelinks__plan(struct scan *s, struct reel_reader *r, const struct replay_mapper *m);
int prelinks__place(struct scan *s, struct reel_reader *r, const struct replay_mapper *m,
		    const struct replay_u64map *ids);
void prelinks__merge(struct scan *s, struct reel_reader *r, const struct replay_u64map *ids);
int through__links(struct scan *s, struct reel_reader *r, const struct replay_mapper *m,
		   const struct replay_u64map *ids, struct replay_fileset *fs,
		   struct replay_strset *dirs, const struct replay_strset *created);
int links__note(const struct scan *s, struct reel_reader *r, const struct replay_u64map *ids,
		struct replay_fileset *fs);

#endif
