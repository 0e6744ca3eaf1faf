/* SPDX-License-Identifier: MIT */
/*
 * capture_sys.c - which syscalls are traced, what the BPF side must collect for each
 * (enum ioreel_sys_flags), and which reel op each becomes. One table, so that adding a
 * syscall is one line.
 */
#include <sys/syscall.h>

#include "capture_int.h"

#define F(x) IOREEL_SYS_##x
#define T IOREEL_SYS_TRACE

static const struct capture_sysdef sysdefs[] = {
	{ __NR_open, REEL_OP_OPEN, T | F(PATH0) | F(RETFD) },
	{ __NR_openat, REEL_OP_OPENAT, T | F(PATH1) | F(RETFD) | F(FDATCWD) },
	{ __NR_openat2, REEL_OP_OPENAT2, T | F(PATH1) | F(RETFD) | F(FDATCWD) | F(HOW2) },
	{ __NR_creat, REEL_OP_CREAT, T | F(PATH0) | F(RETFD) },
	{ __NR_close, REEL_OP_CLOSE, T | F(FD0) },
	{ __NR_read, REEL_OP_READ, T | F(FD0) | F(SHORT) | F(POS_MOVES) },
	{ __NR_pread64, REEL_OP_PREAD64, T | F(FD0) | F(SHORT) | F(OFF3) },
	{ __NR_readv, REEL_OP_READV, T | F(FD0) | F(IOV1) | F(POS_MOVES) },
	{ __NR_preadv, REEL_OP_PREADV, T | F(FD0) | F(IOV1) },
	{ __NR_preadv2, REEL_OP_PREADV2, T | F(FD0) | F(IOV1) | F(RWF5) },
	{ __NR_write, REEL_OP_WRITE, T | F(FD0) | F(SHORT) | F(POS_MOVES) },
	{ __NR_pwrite64, REEL_OP_PWRITE64, T | F(FD0) | F(SHORT) | F(OFF3) | F(PWRITE) },
	{ __NR_writev, REEL_OP_WRITEV, T | F(FD0) | F(IOV1) | F(POS_MOVES) },
	{ __NR_pwritev, REEL_OP_PWRITEV, T | F(FD0) | F(IOV1) | F(PWRITE) },
	{ __NR_pwritev2, REEL_OP_PWRITEV2, T | F(FD0) | F(IOV1) | F(PWRITE) | F(RWF5) },
	{ __NR_lseek, REEL_OP_LSEEK, T | F(FD0) },
	{ __NR_fsync, REEL_OP_FSYNC, T | F(FD0) },
	{ __NR_fdatasync, REEL_OP_FDATASYNC, T | F(FD0) },
	{ __NR_sync_file_range, REEL_OP_SYNC_FILE_RANGE, T | F(FD0) },
	{ __NR_syncfs, REEL_OP_SYNCFS, T | F(FD0) },
	/* sync(2): a syncfs of every file system, recorded as a syncfs with no fd (fd -1) */
	{ __NR_sync, REEL_OP_SYNCFS, T },
	{ __NR_stat, REEL_OP_STAT, T | F(PATH0) | F(STAT1) },
	{ __NR_lstat, REEL_OP_LSTAT, T | F(PATH0) | F(STAT1) },
	{ __NR_newfstatat, REEL_OP_NEWFSTATAT, T | F(PATH1) | F(FDATCWD) | F(FD0) | F(STAT2) },
	{ __NR_statx, REEL_OP_STATX, T | F(PATH1) | F(FDATCWD) | F(FD0) | F(STATX4) },
	{ __NR_fstat, REEL_OP_FSTAT, T | F(FD0) | F(STAT1) },
	{ __NR_access, REEL_OP_ACCESS, T | F(PATH0) },
	{ __NR_faccessat, REEL_OP_FACCESSAT, T | F(PATH1) | F(FDATCWD) },
	{ __NR_faccessat2, REEL_OP_FACCESSAT, T | F(PATH1) | F(FDATCWD) },
	{ __NR_unlink, REEL_OP_UNLINK, T | F(PATH0) },
	{ __NR_unlinkat, REEL_OP_UNLINKAT, T | F(PATH1) | F(FDATCWD) },
	{ __NR_rename, REEL_OP_RENAME, T | F(PATH0) | F(NEWPATH1) },
	{ __NR_renameat, REEL_OP_RENAMEAT, T | F(PATH1) | F(NEWPATH3) | F(FDATCWD) },
	{ __NR_renameat2, REEL_OP_RENAMEAT2, T | F(PATH1) | F(NEWPATH3) | F(FDATCWD) },
	{ __NR_mkdir, REEL_OP_MKDIR, T | F(PATH0) },
	{ __NR_mkdirat, REEL_OP_MKDIRAT, T | F(PATH1) | F(FDATCWD) },
	{ __NR_rmdir, REEL_OP_RMDIR, T | F(PATH0) },
	{ __NR_truncate, REEL_OP_TRUNCATE, T | F(PATH0) },
	{ __NR_ftruncate, REEL_OP_FTRUNCATE, T | F(FD0) },
	{ __NR_fallocate, REEL_OP_FALLOCATE, T | F(FD0) },
	{ __NR_dup, REEL_OP_DUP, T | F(FD0) | F(RETFD) },
	{ __NR_dup2, REEL_OP_DUP2, T | F(FD0) | F(RETFD) },
	{ __NR_dup3, REEL_OP_DUP3, T | F(FD0) | F(RETFD) },
	/* F_DUPFD* become fcntl_dupfd, the lock commands fcntl_lock (capture_conv.c) */
	{ __NR_fcntl, REEL_OP_FCNTL_DUPFD, T | F(FD0) | F(RETFD) | F(LOCK2) },
	{ __NR_flock, REEL_OP_FLOCK, T | F(FD0) },
	{ __NR_getdents64, REEL_OP_GETDENTS64, T | F(FD0) },
	{ __NR_fadvise64, REEL_OP_FADVISE64, T | F(FD0) },
	{ __NR_mmap, REEL_OP_MMAP, T | F(FD4) },
	{ __NR_msync, REEL_OP_MSYNC, T },
	/* only those of a range where a file was mapped are recorded (capture_conv.c) */
	{ __NR_munmap, REEL_OP_MUNMAP, T },
	{ __NR_io_submit, REEL_OP_AIO_SUBMIT, T | F(AIO_SUBMIT) },
	{ __NR_io_getevents, REEL_OP_AIO_COMPLETE, T | F(AIO_EVENTS) },
	{ __NR_io_pgetevents, REEL_OP_AIO_COMPLETE, T | F(AIO_EVENTS) },
	/* copies: the source fd's file is read as any fd's, the destination's by OUT0/OUT2 */
	{ __NR_copy_file_range, REEL_OP_COPY_FILE_RANGE,
	  T | F(FD0) | F(INPTR) | F(OUT2) | F(OUTPTR) },
	{ __NR_sendfile, REEL_OP_SENDFILE, T | F(FD1) | F(INPTR) | F(OUT0) },
	{ __NR_chmod, REEL_OP_CHMOD, T | F(PATH0) },
	{ __NR_fchmod, REEL_OP_FCHMOD, T | F(FD0) },
	{ __NR_fchmodat, REEL_OP_FCHMODAT, T | F(PATH1) | F(FDATCWD) },
	{ __NR_fchmodat2, REEL_OP_FCHMODAT, T | F(PATH1) | F(FDATCWD) | F(FD0) },
	{ __NR_chown, REEL_OP_CHOWN, T | F(PATH0) },
	{ __NR_lchown, REEL_OP_LCHOWN, T | F(PATH0) },
	{ __NR_fchown, REEL_OP_FCHOWN, T | F(FD0) },
	{ __NR_fchownat, REEL_OP_FCHOWNAT, T | F(PATH1) | F(FDATCWD) | F(FD0) },
	/* FD0 where an fd may stand for the path: AT_EMPTY_PATH, or futimens (a NULL path) */
	{ __NR_utimensat, REEL_OP_UTIMENSAT, T | F(PATH1) | F(FDATCWD) | F(FD0) },
	{ __NR_link, REEL_OP_LINK, T | F(PATH0) | F(NEWPATH1) },
	{ __NR_linkat, REEL_OP_LINKAT, T | F(PATH1) | F(NEWPATH3) | F(FDATCWD) | F(FD0) },
	/* path 0 is the content, path 1 the link */
	{ __NR_symlink, REEL_OP_SYMLINK, T | F(PATH0) | F(NEWPATH1) },
	{ __NR_symlinkat, REEL_OP_SYMLINKAT, T | F(PATH0) | F(NEWPATH2) },
	/* the buffer after the path: what was read, kept as the op's path2 */
	{ __NR_readlink, REEL_OP_READLINK, T | F(PATH0) | F(LINKBUF) },
	{ __NR_readlinkat, REEL_OP_READLINKAT, T | F(PATH1) | F(FDATCWD) | F(LINKBUF) },
	/* not ops, but they move the cwd and the fd table that paths are resolved with */
	{ __NR_chdir, REEL_OP_NONE, T | F(PATH0) },
	{ __NR_fchdir, REEL_OP_NONE, T | F(FD0) },
	{ __NR_chroot, REEL_OP_NONE, T | F(PATH0) },
	{ __NR_close_range, REEL_OP_NONE, T },
	/* files of no file system: their fds' I/O is counted as non-file (capture_conv.c) */
	{ __NR_memfd_create, REEL_OP_NONE, T },
	{ __NR_memfd_secret, REEL_OP_NONE, T },
	/* extended attributes (ACLs: cp -a and cp -p set a copy's mode so) are not recorded,
	 * only counted (capture.xattr_ops), so that the recording and the replay say so */
	{ __NR_setxattr, REEL_OP_NONE, T },
	{ __NR_lsetxattr, REEL_OP_NONE, T },
	{ __NR_fsetxattr, REEL_OP_NONE, T },
	{ __NR_removexattr, REEL_OP_NONE, T },
	{ __NR_lremovexattr, REEL_OP_NONE, T },
	{ __NR_fremovexattr, REEL_OP_NONE, T },
	/* the io_uring probes read the ring fd from this entry */
	{ __NR_io_uring_enter, REEL_OP_NONE, T | F(NOSEND) },
};

const struct capture_sysdef *capture_sys__table(size_t *n)
{
	*n = sizeof(sysdefs) / sizeof(sysdefs[0]);
	return sysdefs;
}

const struct capture_sysdef *capture_sys__find(unsigned nr)
{
	static const struct capture_sysdef *by_nr[CAPTURE_NR_MAX];
	static int ready;

	if (!ready) {
		for (size_t i = 0; i < sizeof(sysdefs) / sizeof(sysdefs[0]); i++)
			by_nr[sysdefs[i].nr] = &sysdefs[i];
		ready = 1;
	}
	return nr < CAPTURE_NR_MAX ? by_nr[nr] : NULL;
}
