// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ioreel.bpf.c - the kernel half of "ioreel record".
 *
 * Why raw tracepoints: the per-syscall tracepoints (syscalls:sys_enter_pread64, ...) are
 * themselves implemented as a probe on raw_syscalls:sys_enter that looks the syscall number
 * up in a bitmap and then builds a perf record of the arguments. Attaching one program to
 * the raw sys_enter/sys_exit pair costs the same number of hook calls and skips the
 * record building, and one program pair covers all ~70 syscalls. The syscall number is
 * checked against a table in .rodata first, so an untraced syscall costs one load.
 *
 * Entry saves the arguments (and, for fd syscalls, the file's position, size, flags and
 * kind, which are only true before the syscall moves them) in the thread's task storage.
 * Exit reads user memory, by then faulted in (paths, iovecs, iocbs, io_events), and sends
 * one event. A full ring buffer drops the event and counts it: the application never waits.
 *
 * Cost: every helper call counts (on hosts with return-stack mitigations, each call and
 * return is expensive), so a followed syscall makes seven: task pointer, storage and clock
 * at entry and exit, and one ring buffer output. Kernel memory is read by plain loads from
 * BTF pointers and bpf_rdonly_cast views.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "ioreel.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

#define NR_MAX 512
#define S_IFMT 00170000
#define S_IFREG 0100000
#define O_APPEND 00002000
/* scratch area for io_submit's iocb pointers, past where iocbs and pointers are packed */
#define AIO_PTRS (IOREEL_AIO_MAX * 72)

extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;

/* Set by capture/ before load. */
const volatile bool noop = false;	     /* benchmark floor: attach, do nothing */
const volatile __u64 targ_cgroup = 0;	     /* cgroup v2 id to follow, 0 = follow pids */
const volatile __u32 self_tgid = 0;	     /* the recorder: never traced (its own writes) */
const volatile __u64 wake_bytes = 1 << 20;   /* wake the consumer after this much data per CPU */
const volatile __u32 sys_flags[NR_MAX] = {}; /* enum ioreel_sys_flags per syscall nr */
const volatile __u32 nr_io_getevents = 0;    /* what an AIO ring's completions are sent as */

struct entry {
	__u64 args[6];
	__u64 start_ns;
	__u64 pos;
	__u64 isize;
	__u32 nr;
	__u32 f_flags;
	__u8 fd_kind;
	__u8 has_pos;
	__u8 busy; /* a syscall is in flight */
	/* copies only (IOREEL_SYS_OUT0 / OUT2): the destination, as pos, fd_kind, has_pos are */
	__u8 fd2_kind;
	__u8 has_pos2;
	__u8 ptr_miss; /* a *loff_t unreadable at entry: bit 0 source, bit 1 destination */
	__u8 pad[2];
	__u64 pos2;
	/* the struct file * behind the fd argument at entry: exit's f_pos is read only from the
	 * same file (pos_at_exit) */
	__u64 file;
	/* the AIO context (its ring's user address) the thread last submitted to: its ring
	 * is looked at on each of the thread's syscalls (aio_ring_scan) */
	__u64 aio_ctx;
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20); /* resized by capture/ (--buffer-mb) */
} events SEC(".maps");

/* Followed thread groups. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

/*
 * The syscall in flight, per thread: task-local storage rather than a hash by tid, because a
 * hash update at entry and a delete at exit cost more than the rest of the programs; and
 * sys_exit, which runs for every syscall of every process, finds nothing here quicker.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct entry);
} entries SEC(".maps");

/* io_uring rings of followed processes: completions may run in any context. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u32);
} rings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ioreel_sys_event);
} scratch SEC(".maps");

/*
 * AIO contexts of followed processes, by ring address and process. An application may reap
 * its completions from the ring in user space, without io_getevents (QEMU's aio=native
 * does): then nothing but the ring itself shows them (aio_ring_scan).
 */
struct aio_key {
	__u64 ctx;
	__u32 tgid;
	__u32 pad;
};

struct aio_state {
	__u32 tail;	 /* ring slots before it have been sent (once reaped in user space) */
	__u32 head;	 /* the ring's head when first seen */
	__u32 subs;	 /* requests submitted to it since (at most), for a guess's check */
	__u8 getevents;	 /* io_getevents was called on it: its completions come from there */
	__u8 user;	 /* its head moved without io_getevents: reaped in user space */
	__u8 guessed;	 /* head and tail taken as a new ring's (unreadable when first seen) */
	__u8 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, struct aio_key);
	__type(value, struct aio_state);
} aio_rings SEC(".maps");

/* an io_uring open's event, with its path: its own, as the others' are (a preempted probe) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ioreel_uring_open);
} uring_scratch SEC(".maps");

/* an exec's event, with the program's name: too big for the stack */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ioreel_exec_event);
} exec_scratch SEC(".maps");

/* the ring scan's event: sys_enter must not share sys_exit's scratch (a preempted exit) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ioreel_sys_event);
} aio_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, IOREEL_CNT__MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline void count(__u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &idx);

	if (c)
		(*c)++;
}

static __always_inline bool traced(__u32 tgid)
{
	if (targ_cgroup)
		return tgid != self_tgid && bpf_get_current_cgroup_id() == targ_cgroup;
	return bpf_map_lookup_elem(&targets, &tgid) != NULL;
}

/*
 * One wakeup per wake_bytes sent from this CPU. Asking the ring how full it is instead costs
 * a helper call per event, and once it is past the mark every event until the consumer has
 * caught up forces a wakeup of its own: an irq_work, a self-IPI, on the traced thread.
 */
static __always_inline __u64 wake_flags(__u64 size)
{
	__u32 idx = IOREEL_CNT_UNWOKEN;
	__u64 *c = bpf_map_lookup_elem(&counters, &idx);

	if (!c)
		return BPF_RB_NO_WAKEUP;
	*c += size;
	if (*c < wake_bytes)
		return BPF_RB_NO_WAKEUP;
	*c = 0;
	return BPF_RB_FORCE_WAKEUP;
}

static __always_inline int send(void *ev, __u64 size)
{
	count(IOREEL_CNT_EVENTS);
	if (bpf_ringbuf_output(&events, ev, size, wake_flags(size))) {
		count(IOREEL_CNT_LOST);
		return -1;
	}
	return 0;
}

/*
 * task->files->fdt->fd[fd] from a task's BTF pointer, in plain loads: the fd array slot too,
 * read as read-only untrusted memory (a faulting load reads 0), so no helper call at all.
 */
static __always_inline struct file *task_fd_file(struct task_struct *task, __u64 fd)
{
	struct files_struct *files = task->files;
	struct fdtable *fdt;
	struct file **fds;

	if (!files)
		return NULL;
	fdt = files->fdt;
	if (!fdt || fd >= fdt->max_fds)
		return NULL;
	fds = bpf_rdonly_cast(fdt->fd, 0);
	return fds[fd];
}

/* S_IFMT >> 12 of the inode behind a task's fd, 0 when it is not open. */
static __always_inline __u8 fd_kind(struct task_struct *task, __u64 fd)
{
	struct file *f = task_fd_file(task, fd);
	struct inode *ino;

	if (!f)
		return 0;
	ino = ((struct file *)bpf_rdonly_cast(f, bpf_core_type_id_kernel(struct file)))->f_inode;
	return ino ? (ino->i_mode & S_IFMT) >> 12 : 0;
}

/* S_IFMT >> 12 and i_size of the inode behind a task's fd (0, 0 when it is not open). */
static __always_inline __u8 fd_kind_size(struct task_struct *task, __u64 fd, __u64 *size)
{
	struct file *f = task_fd_file(task, fd);
	struct inode *ino;

	*size = 0;
	if (!f)
		return 0;
	ino = ((struct file *)bpf_rdonly_cast(f, bpf_core_type_id_kernel(struct file)))->f_inode;
	if (!ino)
		return 0;
	*size = ino->i_size;
	return (ino->i_mode & S_IFMT) >> 12;
}

/*
 * What a stat-family call that succeeded returned, from the buffer it filled: the kind
 * (S_IFMT >> 12, 0 when the buffer cannot be read) and the size. A name only stat'd before
 * it is renamed or removed is known for a directory or a file (the replay's file set).
 */
static __always_inline __u8 stat_kind_size(const __u64 *args, __u32 flags, __u64 *size)
{
	__u32 mode = 0;
	__u16 xmode = 0;
	__s64 sz = 0;

	if (flags & IOREEL_SYS_STATX4) {
		const char *b = (const char *)args[4];

		if (bpf_probe_read_user(&xmode, sizeof(xmode), b + offsetof(struct statx, stx_mode)) ||
		    bpf_probe_read_user(size, sizeof(*size), b + offsetof(struct statx, stx_size)))
			return 0;
		return (xmode & S_IFMT) >> 12;
	}
	{
		const char *b = (const char *)args[flags & IOREEL_SYS_STAT1 ? 1 : 2];

		if (bpf_probe_read_user(&mode, sizeof(mode), b + offsetof(struct stat, st_mode)) ||
		    bpf_probe_read_user(&sz, sizeof(sz), b + offsetof(struct stat, st_size)))
			return 0;
	}
	*size = sz > 0 ? (__u64)sz : 0;
	return (mode & S_IFMT) >> 12;
}

/* Byte count of iovec array iov[n] in user memory (at most IOREEL_REQ_IOV_MAX entries). */
static __always_inline __u64 iov_bytes(__u64 iov, __u64 n)
{
	__u64 sum = 0, len;
	int j;

	for (j = 0; j < IOREEL_REQ_IOV_MAX; j++) {
		if (j >= n)
			break;
		if (bpf_probe_read_user(&len, sizeof(len), (void *)(iov + j * 16 + 8)))
			break;
		sum += len;
	}
	return sum;
}

/*
 * IOCB_CMD_PREADV/PWRITEV count iovecs in aio_nbytes: replace that, in our copy of iocb i,
 * with the byte count, which is what a replay needs.
 */
static __always_inline void aio_iov_bytes(struct ioreel_sys_event *ev, int i)
{
	__u16 opcode;
	__u64 buf, nbytes;
	int base = (i & (IOREEL_AIO_MAX - 1)) * 64;

	opcode = *(__u16 *)(ev->data + base + 16);
	if (opcode != 7 && opcode != 8)
		return;
	buf = *(__u64 *)(ev->data + base + 24);
	nbytes = *(__u64 *)(ev->data + base + 32);
	if (nbytes > IOREEL_REQ_IOV_MAX)
		ev->lost_items++;
	*(__u64 *)(ev->data + base + 32) = iov_bytes(buf, nbytes);
}

/*
 * The entry state of the current thread when it is followed, else NULL. A followed thread has
 * task storage from its first traced syscall on, so the common case costs one lookup and no
 * pid filter; only a thread without storage consults the filter, and gets storage if it
 * passes. A thread group leaves the filter when it ends, and its threads' storage with them.
 * Followed by cgroup, the cgroup is checked on every syscall: a task may move out of it.
 */
static __always_inline struct entry *cur_entry(struct task_struct *task)
{
	struct entry *ep;

	if (targ_cgroup) {
		if (task->tgid == self_tgid || bpf_get_current_cgroup_id() != targ_cgroup)
			return NULL;
	} else {
		ep = bpf_task_storage_get(&entries, task, 0, 0);
		if (ep)
			return ep;
		if (!traced(task->tgid))
			return NULL;
	}
	ep = bpf_task_storage_get(&entries, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!ep)
		count(IOREEL_CNT_NOENTRY);
	return ep;
}

/* Where a copy's *loff_t arguments are: each follows its fd. */
static __always_inline __u64 copy_inptr(struct entry *e, __u32 flags)
{
	return e->args[flags & IOREEL_SYS_FD0 ? 1 : 2];
}

static __always_inline __u64 copy_outptr(struct entry *e, __u32 flags)
{
	return e->args[flags & IOREEL_SYS_OUT0 ? 1 : 3];
}

/*
 * A copy's destination fd and its positions, at entry: the kernel advances the f_pos or the
 * *loff_t it copies at. Only copies pay for this; the source fd was read as any fd argument.
 */
static __always_inline void copy_enter(struct task_struct *task, struct entry *ep, __u32 flags)
{
	struct file *f = task_fd_file(task, ep->args[flags & IOREEL_SYS_OUT0 ? 0 : 2]);
	void *ptr;

	ep->pos2 = 0;
	ep->fd2_kind = 0;
	ep->has_pos2 = 0;
	ep->ptr_miss = 0;
	if (f) {
		struct file *tf = bpf_rdonly_cast(f, bpf_core_type_id_kernel(struct file));
		struct inode *ino = tf->f_inode;

		if (ino)
			ep->fd2_kind = (ino->i_mode & S_IFMT) >> 12;
		ep->has_pos2 = 1;
		ep->pos2 = tf->f_pos;
	}
	/*
	 * A loff_t is nearly always on the caller's stack, resident; if not (DESIGN.md: user
	 * memory at sys_enter), exit reads it again, moved by what was copied.
	 */
	if (flags & IOREEL_SYS_INPTR) {
		ptr = (void *)copy_inptr(ep, flags);
		if (ptr && bpf_probe_read_user(&ep->pos, sizeof(ep->pos), ptr))
			ep->ptr_miss |= 1;
	}
	if (flags & IOREEL_SYS_OUTPTR) {
		ptr = (void *)copy_outptr(ep, flags);
		if (ptr && bpf_probe_read_user(&ep->pos2, sizeof(ep->pos2), ptr))
			ep->ptr_miss |= 2;
	}
}

/* A *loff_t missed at entry, read at exit: the kernel stored it advanced by ret. */
static __always_inline __u64 copy_pos_at_exit(__u64 ptr, __s64 ret, __u8 *fault, __u8 bit)
{
	__u64 v;

	if (bpf_probe_read_user(&v, sizeof(v), (void *)ptr)) {
		*fault |= bit;
		return 0;
	}
	return ret > 0 ? v - ret : v;
}

/* data[] of a copy: struct ioreel_copy_data. Returns its size. */
static __always_inline __u64 copy_exit(struct ioreel_sys_event *ev, struct entry *e, __u32 flags,
				       __s64 ret)
{
	struct ioreel_copy_data *cd = (struct ioreel_copy_data *)ev->data;

	cd->pos_out = e->pos2;
	cd->out_kind = e->fd2_kind;
	cd->out_open = e->has_pos2;
	cd->pos_fault = 0;
	__builtin_memset(cd->pad, 0, sizeof(cd->pad));
	if (e->ptr_miss & 1)
		ev->pos = copy_pos_at_exit(copy_inptr(e, flags), ret, &cd->pos_fault, 1);
	if (e->ptr_miss & 2)
		cd->pos_out = copy_pos_at_exit(copy_outptr(e, flags), ret, &cd->pos_fault, 2);
	return sizeof(*cd);
}

/* struct aio_ring's header (fs/aio.c), at the context's address in user memory */
struct aio_ring_hdr {
	__u32 id, nr, head, tail;
};

/*
 * io_submit's entry: its context's state, made on first sight with the ring's head and tail
 * then, before this submission can complete (a buffered one completes within the call).
 */
static __always_inline void aio_ring_seen(struct task_struct *task, __u64 ctx, __u64 n)
{
	struct aio_key k = {.ctx = ctx, .tgid = task->tgid};
	struct aio_state st = {}, *s;
	struct aio_ring_hdr h;

	s = bpf_map_lookup_elem(&aio_rings, &k);
	if (s) {
		if (s->subs < 0x7fffffff)
			s->subs += n < 0x10000 ? n : 0x10000;
		return;
	}
	/*
	 * The kernel writes the ring through its own mapping: the application's page is not
	 * there until it reads the ring itself (QEMU: not before its first submission). A ring
	 * it has not read is taken as new, checked when it can be read (aio_ring_scan).
	 */
	if (bpf_probe_read_user(&h, sizeof(h), (void *)ctx)) {
		st.guessed = 1;
	} else {
		st.tail = h.tail;
		st.head = h.head;
	}
	st.subs = n < 0x10000 ? n : 0x10000;
	bpf_map_update_elem(&aio_rings, &k, &st, BPF_NOEXIST);
}

/* io_getevents' entry: that context's completions come from there */
static __always_inline void aio_ring_getevents(struct task_struct *task, __u64 ctx)
{
	struct aio_key k = {.ctx = ctx, .tgid = task->tgid};
	struct aio_state *st = bpf_map_lookup_elem(&aio_rings, &k);

	if (st)
		st->getevents = 1;
}

/*
 * The completions posted to the thread's AIO ring since it was last looked at, when the
 * application reaps them in user space: sent as an io_getevents that returned them now, so
 * that each is measured from its submission to the first syscall of the thread after it
 * completed. QEMU (aio=native) polls the ring and submits the next request: a recording of
 * `qemu-img bench -i native` had 20,000 submissions and no completion. A ring is taken as
 * reaped in user space once its head moved with no io_getevents on it ever (that sets
 * getevents at its entry, before it moves the head); until then it is not sent, and
 * afterwards the slots since it was first seen are.
 */
static __always_inline void aio_ring_scan(struct task_struct *task, struct entry *ep)
{
	struct aio_key k = {.ctx = ep->aio_ctx, .tgid = task->tgid};
	struct ioreel_sys_event *ev;
	struct aio_state *st;
	struct aio_ring_hdr h;
	__u32 zero = 0, at, n, i;

	st = bpf_map_lookup_elem(&aio_rings, &k);
	if (!st || st->getevents || bpf_probe_read_user(&h, sizeof(h), (void *)k.ctx))
		return;
	/* after the head: an io_getevents that moved it has marked the state before */
	if (st->getevents || !h.nr || h.tail >= h.nr || st->tail >= h.nr)
		return;
	if (st->guessed) {
		/* a new ring has no more completions than submissions, and has not wrapped;
		 * else it was used before the capture: from here on */
		st->guessed = 0;
		if (h.head > h.tail || h.tail > st->subs) {
			st->tail = h.tail;
			st->head = h.head;
			return;
		}
	}
	if (!st->user) {
		if (h.head == st->head)
			return;
		st->user = 1;
	}
	n = h.tail >= st->tail ? h.tail - st->tail : h.tail + h.nr - st->tail;
	if (!n)
		return;
	if (n > IOREEL_AIO_MAX)
		n = IOREEL_AIO_MAX; /* the rest on the next syscall */
	ev = bpf_map_lookup_elem(&aio_scratch, &zero);
	if (!ev)
		return;
	at = st->tail;
	for (i = 0; i < IOREEL_AIO_MAX; i++) {
		if (i >= n)
			break;
		/* io_event[at], behind the 32-byte header */
		if (bpf_probe_read_user(ev->data + i * 32, 32,
					(void *)(k.ctx + 32 + (__u64)at * 32)))
			break;
		if (++at >= h.nr)
			at = 0;
	}
	st->tail = at;
	if (!i)
		return;
	__builtin_memset(ev, 0, offsetof(struct ioreel_sys_event, data));
	ev->hdr.type = IOREEL_EV_SYS;
	ev->hdr.size = offsetof(struct ioreel_sys_event, data) + i * 32;
	ev->hdr.pid = task->tgid;
	ev->hdr.tid = task->pid;
	ev->hdr.nr = nr_io_getevents;
	ev->ret = i;
	ev->args[0] = k.ctx;
	ev->start_ns = ev->end_ns = bpf_ktime_get_ns();
	ev->items = i;
	ev->len0 = i * 32;
	/* (i is at most IOREEL_AIO_MAX: the mask only shows the verifier a bound) */
	send(ev, offsetof(struct ioreel_sys_event, data) + (i & (2 * IOREEL_AIO_MAX - 1)) * 32);
}

/*
 * An fcntl lock request (IOREEL_SYS_LOCK2): struct flock, read at entry since a get command's
 * answer replaces it. It is the caller's own (a stack variable, in practice), so resident; a
 * read that fails leaves args[5] 0 and the exit tries again.
 */
static __always_inline void lock_read(__u64 *args, __u64 uptr)
{
	struct ioreel_flock fl;

	if (bpf_probe_read_user(&fl, sizeof(fl), (void *)uptr)) {
		args[5] = 0;
		return;
	}
	args[3] = fl.l_start;
	args[4] = fl.l_len;
	args[5] = (__u16)fl.l_type | (__u64)(__u16)fl.l_whence << 16 | IOREEL_LOCK_SEEN;
}

/* at exit: the request if the entry could not read it; a get command's answer */
static __always_inline void lock_exit(struct ioreel_sys_event *ev)
{
	struct ioreel_flock fl;

	if (!(ev->args[5] & IOREEL_LOCK_SEEN))
		lock_read(ev->args, ev->args[2]);
	if (ioreel_is_getlk_cmd(ev->args[1]) && ev->ret == 0 &&
	    !bpf_probe_read_user(&fl, sizeof(fl), (void *)ev->args[2]))
		ev->ret_size = (__u16)fl.l_type + 1;
}

SEC("raw_tp/sys_enter")
int ioreel_sys_enter(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *task;
	struct pt_regs *regs;
	struct entry *ep;
	__u64 nr, fd;
	__u32 flags;
	struct file *f = NULL;

	if (noop)
		return 0;
	nr = ctx->args[1];
	if (nr >= NR_MAX)
		return 0;
	flags = sys_flags[nr];
	if (!(flags & IOREEL_SYS_TRACE))
		return 0;
	task = bpf_get_current_task_btf();
	ep = cur_entry(task);
	if (!ep)
		return 0;
	/* the user registers through a typed read-only view: six loads, no helper calls */
	regs = bpf_rdonly_cast((void *)ctx->args[0], bpf_core_type_id_kernel(struct pt_regs));
	ep->nr = nr;
	ep->args[0] = regs->di;
	ep->args[1] = regs->si;
	ep->args[2] = regs->dx;
	ep->args[3] = regs->r10;
	ep->args[4] = regs->r8;
	ep->args[5] = regs->r9;
	if (flags & IOREEL_SYS_AIO_EVENTS)
		aio_ring_getevents(task, ep->args[0]);
	else if (flags & IOREEL_SYS_AIO_SUBMIT)
		ep->aio_ctx = ep->args[0];
	if (ep->aio_ctx)
		aio_ring_scan(task, ep);
	if (flags & IOREEL_SYS_AIO_SUBMIT)
		aio_ring_seen(task, ep->args[0], ep->args[1]);
	ep->fd_kind = 0;
	ep->has_pos = 0;
	ep->pos = 0;
	ep->isize = 0;
	ep->f_flags = 0;
	ep->file = 0;
	if (flags & (IOREEL_SYS_FD0 | IOREEL_SYS_FD1 | IOREEL_SYS_FD4)) {
		fd = flags & IOREEL_SYS_FD0 ? ep->args[0] :
		     flags & IOREEL_SYS_FD1 ? ep->args[1] : ep->args[4];
		f = task_fd_file(task, fd);
	}
	if (f) {
		/* a read-only typed view of the file: plain loads, no helper per field */
		struct file *tf = bpf_rdonly_cast(f, bpf_core_type_id_kernel(struct file));
		struct inode *ino = tf->f_inode;

		if (ino) {
			ep->fd_kind = (ino->i_mode & S_IFMT) >> 12;
			ep->isize = ino->i_size;
		}
		ep->has_pos = 1;
		ep->pos = tf->f_pos;
		ep->f_flags = tf->f_flags;
		ep->file = (__u64)f;
	}
	if (flags & (IOREEL_SYS_OUT0 | IOREEL_SYS_OUT2))
		copy_enter(task, ep, flags);
	if ((flags & IOREEL_SYS_LOCK2) && ioreel_is_lock_cmd(ep->args[1]))
		lock_read(ep->args, ep->args[2]);
	ep->busy = 1;
	ep->start_ns = bpf_ktime_get_ns();
	return 0;
}

#define VARIABLE_FLAGS                                                                         \
	(IOREEL_SYS_PATH0 | IOREEL_SYS_PATH1 | IOREEL_SYS_NEWPATH1 | IOREEL_SYS_NEWPATH2 |         \
	 IOREEL_SYS_NEWPATH3 | IOREEL_SYS_IOV1 | IOREEL_SYS_AIO_SUBMIT | IOREEL_SYS_AIO_EVENTS |   \
	 IOREEL_SYS_HOW2 | IOREEL_SYS_OUT0 | IOREEL_SYS_OUT2 | IOREEL_SYS_LINKBUF)

static __always_inline void fill_sys(struct ioreel_sys_event *ev, struct entry *e,
				     struct task_struct *task, __s64 ret, __u64 end_ns)
{
	ev->hdr.type = IOREEL_EV_SYS;
	ev->hdr.fd_kind = e->fd_kind;
	ev->hdr.pid = task->tgid;
	ev->hdr.tid = task->pid;
	ev->hdr.nr = e->nr;
	ev->ret = ret;
	__builtin_memcpy(ev->args, e->args, sizeof(ev->args));
	ev->start_ns = e->start_ns;
	ev->end_ns = end_ns;
	ev->pos = e->pos;
	ev->isize = e->isize;
	ev->f_flags = e->f_flags;
	ev->has_pos = e->has_pos;
	ev->len0 = 0;
	ev->len1 = 0;
	ev->ret_kind = 0;
	ev->items = 0;
	ev->lost_items = 0;
	ev->ret_size = 0;
}

/*
 * Where a call that moves the position (POS_MOVES: read, write, readv, writev) took place:
 * its fd's f_pos at exit less what it moved (ret). The f_pos its entry saw is stale when
 * another thread or process sharing the open file went first: a regular file's f_pos is
 * read and moved by the kernel under its f_pos_lock, after sys_enter (two shells appending
 * through one inherited stdout recorded 420 of 800 writes at another write's offset; three
 * threads read()ing one fd recorded reads at one offset). The exit's f_pos is exact unless
 * another call on the file ran between the unlock and this tracepoint, a much shorter window.
 * An O_APPEND write lands at i_size under the inode's lock and moves f_pos past what it
 * wrote: the same sum (the i_size at entry is stale when another writer grew the file).
 * The entry's values are kept when the call moved nothing (ret <= 0), when the fd names
 * another file by now (closed or replaced by another thread), when f_pos is less than ret
 * (an lseek back meanwhile), and for files other than regular ones (pipes, sockets and
 * devices have no serialised position; the trace leaves most of them out). Returns whether
 * *landed was set; counts (IOREEL_CNT_POS_MOVED) a landing that is not where the entry's
 * position said.
 */
static __always_inline bool pos_at_exit(struct task_struct *task, struct entry *e, __u32 flags,
					__s64 ret, __u64 *landed)
{
	struct file *f;
	__u64 pos;

	if (!(flags & IOREEL_SYS_POS_MOVES) || ret <= 0 || !e->file ||
	    e->fd_kind != (S_IFREG >> 12))
		return false;
	f = task_fd_file(task, e->args[0]);
	if ((__u64)f != e->file)
		return false;
	f = bpf_rdonly_cast(f, bpf_core_type_id_kernel(struct file));
	pos = f->f_pos;
	if (pos < (__u64)ret)
		return false;
	*landed = pos - ret;
	/* an O_APPEND write's entry position was i_size (capture_conv.c), a read's f_pos */
	if (*landed != e->pos && !((e->f_flags & O_APPEND) && *landed == e->isize))
		count(IOREEL_CNT_POS_MOVED);
	return true;
}

/*
 * A positioned write that appended (IOREEL_SYS_PWRITE: pwrite64 or pwritev through an O_APPEND
 * fd, pwritev2 with RWF_APPEND): the kernel wrote at i_size under the inode's lock, whatever
 * the offset, and moved no f_pos. Where: the file's i_size at exit less what it wrote, as
 * long as the fd still names the file its entry saw; else the entry's i_size stays (stale
 * when another appender went first: counted then, as pos_at_exit counts).
 */
static __always_inline void pwrite_landed(struct ioreel_sys_event *ev, struct task_struct *task,
					  struct entry *e)
{
	struct file *f;
	struct inode *ino;

	if (ev->ret <= 0 || !e->file || e->fd_kind != (S_IFREG >> 12))
		return;
	f = task_fd_file(task, e->args[0]);
	if ((__u64)f != e->file)
		return;
	ino = ((struct file *)bpf_rdonly_cast(f, bpf_core_type_id_kernel(struct file)))->f_inode;
	if (!ino || ino->i_size < ev->ret)
		return;
	ev->isize = ino->i_size - ev->ret;
	if (ev->isize != e->isize)
		count(IOREEL_CNT_POS_MOVED);
}

/* pos_at_exit into the event: pos, and isize where an O_APPEND write's offset is taken */
static __always_inline void pos_landed(struct ioreel_sys_event *ev, struct task_struct *task,
				       struct entry *e, __u32 flags)
{
	__u64 landed;

	if (ioreel_pwrite_appends(flags, e->f_flags, e->args[5])) {
		pwrite_landed(ev, task, e);
		return;
	}

	if (!pos_at_exit(task, e, flags, ev->ret, &landed))
		return;
	ev->pos = landed;
	if (e->f_flags & O_APPEND)
		ev->isize = landed;
}

SEC("raw_tp/sys_exit")
int ioreel_sys_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct ioreel_sys_event *ev;
	struct task_struct *task;
	struct pt_regs *regs;
	struct entry *e;
	__u64 total = 0, off, nr, n, bytes, end_ns;
	__u32 zero = 0, flags;
	__s64 ret;
	long len;
	int i;

	if (noop)
		return 0;
	/*
	 * Every syscall of every process comes here: one whose number is not traced (futex,
	 * epoll_wait...) cannot have left an entry, so it costs one load, not two helper calls.
	 */
	regs = bpf_rdonly_cast((void *)ctx->args[0], bpf_core_type_id_kernel(struct pt_regs));
	nr = regs->orig_ax;
	if (nr >= NR_MAX || !(sys_flags[nr] & IOREEL_SYS_TRACE))
		return 0;
	task = bpf_get_current_task_btf();
	e = bpf_task_storage_get(&entries, task, 0, 0);
	if (!e || !e->busy)
		return 0;
	e->busy = 0;
	nr = e->nr;
	ret = ctx->args[1];
	flags = sys_flags[nr & (NR_MAX - 1)];
	if (flags & IOREEL_SYS_NOSEND)
		return 0;
	end_ns = bpf_ktime_get_ns();
	if ((flags & IOREEL_SYS_SHORT) && e->has_pos && !(e->f_flags & O_APPEND) &&
	    end_ns - e->start_ns <= 0xffffffffu) {
		/* the common data ops: one cache line of the ring with its record header */
		struct ioreel_sys_short sev;

		sev.hdr.type = IOREEL_EV_SYS_SHORT;
		sev.hdr.fd_kind = e->fd_kind;
		sev.hdr.size = sizeof(sev);
		sev.hdr.pid = task->tgid;
		sev.hdr.tid = task->pid;
		sev.hdr.nr = nr;
		sev.start_ns = e->start_ns;
		sev.dur_ns = end_ns - e->start_ns;
		sev.fd = e->args[0];
		sev.ret = ret;
		sev.len = e->args[2];
		if (flags & IOREEL_SYS_OFF3)
			sev.off = e->args[3];
		else if (!pos_at_exit(task, e, flags, ret, &sev.off))
			sev.off = e->pos;
		send(&sev, sizeof(sev));
		return 0;
	}
	if (!(flags & VARIABLE_FLAGS)) {
		/*
		 * Fixed size (most other ops): built on the stack and copied by one helper
		 * call; reserving in the ring and submitting costs two.
		 */
		struct ioreel_sys_event_fixed fev;

		ev = (struct ioreel_sys_event *)&fev;
		fill_sys(ev, e, task, ret, end_ns);
		pos_landed(ev, task, e, flags);
		ev->hdr.size = sizeof(fev);
		if ((flags & IOREEL_SYS_RETFD) && ret >= 0)
			ev->ret_kind = fd_kind(task, ret);
		if ((flags & IOREEL_SYS_STAT1) && ret == 0) /* fstat */
			ev->ret_kind = stat_kind_size(ev->args, flags, &ev->ret_size);
		if ((flags & IOREEL_SYS_LOCK2) && ioreel_is_lock_cmd(ev->args[1]))
			lock_exit(ev);
		send(&fev, sizeof(fev));
		return 0;
	}
	ev = bpf_map_lookup_elem(&scratch, &zero);
	if (!ev)
		return 0;
	fill_sys(ev, e, task, ret, end_ns);
	pos_landed(ev, task, e, flags);
	/* here, before the branches below multiply the verifier's states (~0.5 s of load) */
	if ((flags & (IOREEL_SYS_STAT1 | IOREEL_SYS_STAT2 | IOREEL_SYS_STATX4)) && ret == 0)
		ev->ret_kind = stat_kind_size(ev->args, flags, &ev->ret_size);

	if (flags & (IOREEL_SYS_PATH0 | IOREEL_SYS_PATH1)) {
		len = bpf_probe_read_user_str(ev->data, IOREEL_PATH_MAX,
					      (void *)ev->args[flags & IOREEL_SYS_PATH0 ? 0 : 1]);
		if (len < 0)
			len = 0;
		total = len;
		ev->len0 = len;
	}
	if (flags & (IOREEL_SYS_NEWPATH1 | IOREEL_SYS_NEWPATH2 | IOREEL_SYS_NEWPATH3)) {
		off = total;
		if (off > IOREEL_PATH_MAX)
			off = IOREEL_PATH_MAX;
		i = flags & IOREEL_SYS_NEWPATH1 ? 1 : flags & IOREEL_SYS_NEWPATH2 ? 2 : 3;
		len = bpf_probe_read_user_str(ev->data + off, IOREEL_PATH_MAX, (void *)ev->args[i]);
		if (len < 0)
			len = 0;
		total = off + len;
		ev->len1 = len;
	}
	if ((flags & IOREEL_SYS_LINKBUF) && ret > 0) {
		/*
		 * What readlink(at) read: the kernel copied it out just now, so it is resident.
		 * It carries no NUL of its own; bounded so that the verifier sees the copy and
		 * the terminator inside data[] (off <= PATH_MAX, n < PATH_MAX).
		 */
		off = total;
		if (off > IOREEL_PATH_MAX)
			off = IOREEL_PATH_MAX;
		n = ret;
		if (n > IOREEL_PATH_MAX - 1)
			n = IOREEL_PATH_MAX - 1;
		i = flags & IOREEL_SYS_PATH0 ? 1 : 2;
		if (bpf_probe_read_user(ev->data + off, n, (void *)ev->args[i]) == 0) {
			ev->data[(off + n) & (IOREEL_DATA_MAX - 1)] = 0;
			ev->len1 = n + 1;
			total = off + n + 1;
		}
	}
	if ((flags & IOREEL_SYS_IOV1) && ret >= 0) {
		n = ev->args[2];
		if (n > IOREEL_IOV_MAX) {
			ev->lost_items = n - IOREEL_IOV_MAX;
			n = IOREEL_IOV_MAX;
		}
		bytes = n * 16;
		if (bytes > IOREEL_IOV_MAX * 16)
			bytes = IOREEL_IOV_MAX * 16;
		if (bpf_probe_read_user(ev->data, bytes, (void *)ev->args[1]) == 0) {
			ev->items = n;
			ev->len0 = bytes;
			total = bytes;
		}
	}
	if ((flags & IOREEL_SYS_AIO_SUBMIT) && ret > 0) {
		/* iocb pointers into the upper half, the iocbs (64 bytes each) into the lower */
		n = ret;
		if (n > IOREEL_AIO_MAX) {
			ev->lost_items = n - IOREEL_AIO_MAX;
			n = IOREEL_AIO_MAX;
		}
		bytes = n * 8;
		if (bytes > IOREEL_AIO_MAX * 8)
			bytes = IOREEL_AIO_MAX * 8;
		/*
		 * The iocb pointers go to a spare area first; then iocb i (64 bytes) to
		 * data[i * 64]; then the pointers behind the iocbs, where capture/ pairs each
		 * io_event (which names its iocb by address) with its submission.
		 */
		if (bpf_probe_read_user(ev->data + AIO_PTRS, bytes, (void *)ev->args[2]) == 0) {
			for (i = 0; i < IOREEL_AIO_MAX; i++) {
				__u64 p;

				if (i >= n)
					break;
				p = *(__u64 *)(ev->data + AIO_PTRS + i * 8);
				if (bpf_probe_read_user(ev->data + i * 64, 64, (void *)p)) {
					__builtin_memset(ev->data + i * 64, 0xff, 64);
					continue;
				}
				aio_iov_bytes(ev, i);
			}
			off = n * 64;
			if (off > IOREEL_AIO_MAX * 64)
				off = IOREEL_AIO_MAX * 64;
			bpf_probe_read_kernel(ev->data + off, bytes, ev->data + AIO_PTRS);
			ev->items = n;
			total = n * 72;
			ev->len0 = total;
		}
	}
	if ((flags & IOREEL_SYS_AIO_EVENTS) && ret > 0) {
		n = ret;
		if (n > IOREEL_AIO_EVENTS_MAX) {
			ev->lost_items = n - IOREEL_AIO_EVENTS_MAX;
			n = IOREEL_AIO_EVENTS_MAX;
		}
		bytes = n * 32;
		if (bytes > IOREEL_AIO_EVENTS_MAX * 32)
			bytes = IOREEL_AIO_EVENTS_MAX * 32;
		if (bpf_probe_read_user(ev->data, bytes, (void *)ev->args[3]) == 0) {
			ev->items = n;
			total = bytes;
			ev->len0 = bytes;
		}
	}
	if (flags & IOREEL_SYS_HOW2) {
		/* openat2's flags and mode live in user memory: struct open_how { flags; mode; } */
		if (bpf_probe_read_user(&ev->pos, sizeof(ev->pos), (void *)ev->args[2]) ||
		    bpf_probe_read_user(&ev->isize, sizeof(ev->isize), (void *)(ev->args[2] + 8)))
			ev->pos = ev->isize = 0;
	}
	if (flags & (IOREEL_SYS_OUT0 | IOREEL_SYS_OUT2)) {
		total = copy_exit(ev, e, flags, ret);
		ev->len0 = total;
	}
	/*
	 * The open family (a path, so here, not in the fixed branch): the size the file had
	 * when opened, which the trace cannot tell of a file that was there before the capture
	 * (the replay's file set prepares it that long when written, so writes stay in place).
	 */
	if ((flags & IOREEL_SYS_RETFD) && ret >= 0)
		ev->ret_kind = fd_kind_size(task, ret, &ev->ret_size);

	if (total > IOREEL_DATA_MAX)
		total = IOREEL_DATA_MAX;
	total += offsetof(struct ioreel_sys_event, data);
	ev->hdr.size = total;
	send(ev, total);
	return 0;
}

SEC("raw_tp/sched_process_fork")
int ioreel_fork(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *child = (struct task_struct *)ctx->args[1];
	struct ioreel_proc_event ev = {};
	__u32 parent, ctgid;
	__u8 one = 1;

	if (noop)
		return 0;
	parent = bpf_get_current_pid_tgid() >> 32;
	ctgid = BPF_CORE_READ(child, tgid);
	if (ctgid == parent || !traced(parent))
		return 0;
	if (!targ_cgroup)
		bpf_map_update_elem(&targets, &ctgid, &one, BPF_ANY);
	ev.hdr.type = IOREEL_EV_FORK;
	ev.hdr.size = sizeof(ev);
	ev.hdr.pid = parent;
	ev.hdr.tid = (__u32)bpf_get_current_pid_tgid();
	ev.time_ns = bpf_ktime_get_ns();
	ev.child_pid = ctgid;
	/* CLONE_FILES without CLONE_THREAD: two processes, one fd table */
	if (BPF_CORE_READ(child, files) == BPF_CORE_READ(bpf_get_current_task_btf(), files))
		ev.flags = IOREEL_PROC_SHARED_FILES;
	send(&ev, sizeof(ev));
	return 0;
}

/*
 * sched_process_exec(task, old_pid, bprm): the exec, with the name the kernel ran the program
 * by, bprm->interp (filename, or a script's interpreter), so that capture/ knows the file
 * /proc/self/exe stands for: a read of it is a read of the binary.
 */
SEC("raw_tp/sched_process_exec")
int ioreel_exec(struct bpf_raw_tracepoint_args *ctx)
{
	struct linux_binprm *bprm = (struct linux_binprm *)ctx->args[2];
	struct ioreel_proc_event ev = {};
	struct ioreel_exec_event *xe;
	__u32 zero = 0;
	long len;
	__u64 id;

	if (noop)
		return 0;
	id = bpf_get_current_pid_tgid();
	if (!traced(id >> 32))
		return 0;
	ev.hdr.type = IOREEL_EV_EXEC;
	ev.hdr.size = sizeof(ev);
	ev.hdr.pid = id >> 32;
	ev.hdr.tid = (__u32)id;
	ev.time_ns = bpf_ktime_get_ns();
	xe = bpf_map_lookup_elem(&exec_scratch, &zero);
	if (!xe) {
		send(&ev, sizeof(ev)); /* the fd tables need the exec, name or not */
		return 0;
	}
	len = bpf_probe_read_kernel_str(xe->path, IOREEL_PATH_MAX, BPF_CORE_READ(bprm, interp));
	if (len < 0)
		len = 0;
	if (len > IOREEL_PATH_MAX)
		len = IOREEL_PATH_MAX;
	ev.hdr.size = sizeof(ev) + len;
	xe->ev = ev;
	send(xe, sizeof(ev) + len);
	return 0;
}

/* include/linux/sched/signal.h: signal_struct.flags, a group exit is under way */
#define SIGNAL_GROUP_EXIT 0x00000004

/*
 * The wait status of a thread group whose last thread (task) is in do_exit(), as
 * wait_task_zombie() computes it: signal->group_exit_code when the group exited as one
 * (exit_group, a fatal signal: every thread then exits with that code), else the group
 * leader's exit_code (the leader is task, whose exit_code do_exit() has just set before the
 * tracepoint, or a zombie that ended before it: pthread_exit in main).
 */
static __always_inline __s32 group_wait_status(struct task_struct *task)
{
	struct signal_struct *sig = task->signal;

	if (sig->flags & SIGNAL_GROUP_EXIT)
		return sig->group_exit_code;
	return task->group_leader->exit_code;
}

SEC("raw_tp/sched_process_exit")
int ioreel_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct ioreel_proc_event ev = {};
	__u64 id;
	__u32 tgid, tid;

	if (noop)
		return 0;
	id = bpf_get_current_pid_tgid();
	tgid = id >> 32;
	tid = (__u32)id;
	if (!traced(tgid))
		return 0;
	if (!ctx->args[1]) /* group_dead */
		return 0;
	if (!targ_cgroup)
		bpf_map_delete_elem(&targets, &tgid);
	ev.hdr.type = IOREEL_EV_EXIT;
	ev.hdr.size = sizeof(ev);
	ev.hdr.pid = tgid;
	ev.hdr.tid = tid;
	ev.time_ns = bpf_ktime_get_ns();
	ev.status = group_wait_status(bpf_get_current_task_btf());
	send(&ev, sizeof(ev));
	return 0;
}

/* IORING_OP_* that carry an offset and length in struct io_rw / io_sync. */
static __always_inline bool uring_is_rw(__u8 op)
{
	return op == 1 || op == 2 || op == 4 || op == 5 || op == 22 || op == 23;
}

static __always_inline bool uring_is_sync(__u8 op)
{
	return op == 3 || op == 8 || op == 17; /* fsync, sync_file_range, fallocate */
}

static __always_inline bool uring_is_open(__u8 op)
{
	return op == IOREEL_URING_OPENAT || op == IOREEL_URING_OPENAT2;
}

/*
 * An OPENAT or OPENAT2 request (prep has run): its dirfd, open_how and slot from struct
 * io_open, sent with its path, the kernel's copy of it (struct filename), so that capture/
 * makes an open record of it as of the syscall: the fd it returns is then known, its path
 * and kind, where a request's fd would have been a number no op had opened. The SQE's fd is
 * not the request's (io_init_req reads it only for requests on a file).
 */
static __always_inline void uring_send_open(struct io_kiocb *req, struct ioreel_uring_event *ev)
{
	struct io_open *o = (struct io_open *)&req->cmd;
	struct ioreel_uring_open *uo;
	__u32 zero = 0;
	long len;

	uo = bpf_map_lookup_elem(&uring_scratch, &zero);
	if (!uo)
		return;
	ev->fd = BPF_CORE_READ(o, dfd);
	ev->slot = BPF_CORE_READ(o, file_slot);
	ev->offset = BPF_CORE_READ(o, how.flags);
	ev->len = BPF_CORE_READ(o, how.mode);
	ev->fd_kind = 0;
	len = bpf_probe_read_kernel_str(uo->path, IOREEL_PATH_MAX, BPF_CORE_READ(o, filename, name));
	if (len < 0)
		len = 0;
	if (len > IOREEL_PATH_MAX)
		len = IOREEL_PATH_MAX;
	ev->path_len = len;
	ev->hdr.size = sizeof(*ev) + len;
	uo->ev = *ev;
	send(uo, sizeof(*ev) + len);
}

SEC("raw_tp/io_uring_submit_req")
int ioreel_uring_submit(struct bpf_raw_tracepoint_args *ctx)
{
	struct io_kiocb *req = (struct io_kiocb *)ctx->args[0];
	struct ioreel_uring_event ev = {};
	struct entry *e;
	__u64 id, ring;
	__u32 tgid;
	__u8 op;

	if (noop)
		return 0;
	id = bpf_get_current_pid_tgid();
	tgid = id >> 32;
	if (!traced(tgid))
		return 0;
	ring = (__u64)BPF_CORE_READ(req, ctx);
	bpf_map_update_elem(&rings, &ring, &tgid, BPF_ANY);
	ev.ring_flags = BPF_CORE_READ(req, ctx, flags);
	op = BPF_CORE_READ(req, opcode);
	ev.hdr.type = IOREEL_EV_URING_SUBMIT;
	ev.hdr.size = sizeof(ev);
	ev.hdr.pid = tgid;
	ev.hdr.tid = (__u32)id;
	ev.hdr.nr = op;
	ev.time_ns = bpf_ktime_get_ns();
	ev.ctx = ring;
	ev.req = (__u64)req;
	ev.user_data = BPF_CORE_READ(req, cqe.user_data);
	ev.fd = BPF_CORE_READ(req, cqe.fd);
	ev.sqe_flags = BPF_CORE_READ(req, flags);
	e = bpf_task_storage_get(&entries, bpf_get_current_task_btf(), 0, 0);
	if (e && e->busy && e->nr == 426) { /* io_uring_enter */
		ev.ring_fd = (__s32)e->args[0];
		/*
		 * The SQEs of one io_uring_enter are submitted at its entry, as an io_submit's
		 * iocbs are at io_submit's: the same time for all, which tells a replay which
		 * requests went to the kernel together (one syscall then, not one per request)
		 */
		ev.time_ns = e->start_ns;
	} else {
		ev.ring_fd = -1; /* SQPOLL: the kernel's thread took it, each at its own time */
	}
	/* the request's command area is the opcode's struct, filled by its prep() already */
	if (uring_is_rw(op)) {
		struct io_rw *rw = (struct io_rw *)&req->cmd;

		ev.offset = BPF_CORE_READ(rw, kiocb.ki_pos);
		ev.len = BPF_CORE_READ(rw, len);
		/* READV/WRITEV: len counts iovecs; the submitter's memory is ours to read */
		if (op == 1 || op == 2)
			ev.len = iov_bytes(BPF_CORE_READ(rw, addr), ev.len);
		/* RWF_DSYNC and the like: what a write costs (a kernel whose io_rw has no
		 * flags applied them to the kiocb at prep, and reads as 0 here) */
		if (bpf_core_field_exists(rw->flags))
			ev.rw_flags = BPF_CORE_READ(rw, flags);
	} else if (uring_is_sync(op)) {
		struct io_sync *s = (struct io_sync *)&req->cmd;

		ev.offset = BPF_CORE_READ(s, off);
		ev.len = BPF_CORE_READ(s, len);
		/* FSYNC: IORING_FSYNC_DATASYNC; SYNC_FILE_RANGE: its flags (not FALLOCATE's) */
		if (op != 17)
			ev.rw_flags = BPF_CORE_READ(s, flags);
	} else if (op == IOREEL_URING_CLOSE) {
		struct io_close *cl = (struct io_close *)&req->cmd;

		ev.fd = BPF_CORE_READ(cl, fd);
		ev.slot = BPF_CORE_READ(cl, file_slot);
	} else if (uring_is_open(op)) {
		uring_send_open(req, &ev);
		return 0;
	}
	if (!(ev.sqe_flags & IOREEL_URING_FIXED_FILE)) /* else fd is an index, not an fd */
		ev.fd_kind = fd_kind(bpf_get_current_task_btf(), (__u32)ev.fd);
	send(&ev, sizeof(ev));
	return 0;
}

SEC("raw_tp/io_uring_complete")
int ioreel_uring_complete(struct bpf_raw_tracepoint_args *ctx)
{
	struct io_uring_cqe *cqe = (struct io_uring_cqe *)ctx->args[2];
	struct ioreel_uring_event ev = {};
	struct io_kiocb *req;
	__u64 ring = ctx->args[0], id;
	__u32 *tgid;

	if (noop)
		return 0;
	tgid = bpf_map_lookup_elem(&rings, &ring);
	if (!tgid)
		return 0;
	id = bpf_get_current_pid_tgid();
	ev.hdr.type = IOREEL_EV_URING_COMPLETE;
	ev.hdr.size = sizeof(ev);
	ev.hdr.pid = *tgid;
	ev.hdr.tid = (__u32)id;
	ev.time_ns = bpf_ktime_get_ns();
	ev.ctx = ring;
	ev.req = ctx->args[1];
	ev.ring_fd = -1;
	ev.user_data = BPF_CORE_READ(cqe, user_data);
	ev.res = BPF_CORE_READ(cqe, res);
	/* NULL for an auxiliary CQE: a faulting load reads 0 */
	req = bpf_rdonly_cast((void *)ctx->args[1], bpf_core_type_id_kernel(struct io_kiocb));
	ev.hdr.nr = req->opcode;
	/*
	 * The fd an open returned, as an open syscall's exit reads it. The completion runs in
	 * the submitter, or in an io-wq worker or the SQPOLL thread, which share its fd table.
	 */
	if (uring_is_open(ev.hdr.nr) && ev.res >= 0)
		ev.fd_kind = fd_kind_size(bpf_get_current_task_btf(), ev.res, &ev.len);
	send(&ev, sizeof(ev));
	return 0;
}
