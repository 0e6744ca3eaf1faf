/* SPDX-License-Identifier: MIT */
/*
 * capture_inflight.c - asynchronous requests between submission and completion, keyed by
 * the kernel's or the application's pointer for them (iocb address, io_kiocb address): a
 * completion event carries only that, the fd/offset/length come from its submission.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture_inflight.h"

#define NBUCKETS 4096

struct node {
	uint64_t key;
	uint32_t pid;
	struct reel_op op;
	char *str; /* what the op needs besides (an io_uring open's path), or NULL */
	struct node *next;
};

struct capture_inflight {
	struct node *buckets[NBUCKETS];
	size_t count;
};

struct capture_inflight *capture_inflight__new(void)
{
	return calloc(1, sizeof(struct capture_inflight));
}

void capture_inflight__free(struct capture_inflight *m)
{
	if (!m)
		return;
	for (size_t b = 0; b < NBUCKETS; b++) {
		struct node *n = m->buckets[b], *next;

		for (; n; n = next) {
			next = n->next;
			free(n->str);
			free(n);
		}
	}
	free(m);
}

static size_t slot(uint64_t key, uint32_t pid)
{
	return ((key ^ pid) * 0x9e3779b97f4a7c15ULL) >> 52;
}

int capture_inflight__put_str(struct capture_inflight *m, uint64_t key, uint32_t pid,
			      const struct reel_op *op, const char *str)
{
	char *s = NULL;
	struct node *n;

	if (str && !(s = strdup(str)))
		return -ENOMEM;
	/* a pointer reused before we saw its completion: the newer submission wins */
	for (n = m->buckets[slot(key, pid)]; n; n = n->next) {
		if (n->key == key && n->pid == pid) {
			n->op = *op;
			free(n->str);
			n->str = s;
			return 0;
		}
	}
	/* bounded: an application that never reaps must not grow us without limit */
	if (m->count >= 1 << 20 || !(n = malloc(sizeof(*n)))) {
		free(s);
		return m->count >= 1 << 20 ? -ENOSPC : -ENOMEM;
	}
	n->key = key;
	n->pid = pid;
	n->op = *op;
	n->str = s;
	n->next = m->buckets[slot(key, pid)];
	m->buckets[slot(key, pid)] = n;
	m->count++;
	return 0;
}

int capture_inflight__put(struct capture_inflight *m, uint64_t key, uint32_t pid,
			  const struct reel_op *op)
{
	return capture_inflight__put_str(m, key, pid, op, NULL);
}

int capture_inflight__take_str(struct capture_inflight *m, uint64_t key, uint32_t pid,
			       struct reel_op *op, char **str)
{
	struct node **pp, *n;

	for (pp = &m->buckets[slot(key, pid)]; (n = *pp); pp = &n->next) {
		if (n->key == key && n->pid == pid) {
			*op = n->op;
			if (str)
				*str = n->str;
			else
				free(n->str);
			*pp = n->next;
			free(n);
			m->count--;
			return 0;
		}
	}
	return -ENOENT;
}

int capture_inflight__take(struct capture_inflight *m, uint64_t key, uint32_t pid,
			   struct reel_op *op)
{
	return capture_inflight__take_str(m, key, pid, op, NULL);
}

int capture_inflight__get(const struct capture_inflight *m, uint64_t key, uint32_t pid,
			  struct reel_op *op)
{
	for (struct node *n = m->buckets[slot(key, pid)]; n; n = n->next) {
		if (n->key == key && n->pid == pid) {
			*op = n->op;
			return 0;
		}
	}
	return -ENOENT;
}
