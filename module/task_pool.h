/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The deferred engine's per-task state pool (task_pool.c), used by the
 * engine (deferred.c) alone.  Entries are written with IRQs off on their
 * task's CPU, NMI requests refused meanwhile (nmi_excl.h).
 */
#ifndef USTACK_TASK_POOL_H
#define USTACK_TASK_POOL_H

#include <linux/hash.h>
#include <linux/ptrace.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/types.h>
#include "stay_return.h"

struct task_struct;
struct mm_struct;
struct ustack_share;

/*
 * One task's current kernel stay.  Written only by the task itself (or on
 * its CPU with IRQs off, at context switch), so it needs no lock.
 */
struct ustack_task {
	struct hlist_node hnode;	/* task hash, RCU */
	struct task_struct *task;	/* owner, NULL when free */
	const struct mm_struct *mm;	/* at the first request; compared only */
	struct callback_head work;
	struct ustack_return ret;	/* the watch for its return (stay.c) */
	struct rcu_head rcu;
	struct ustack_task *next_free;
	struct ustack_share *share;	/* its user's share of the pool */
	struct pt_regs regs;		/* user registers at the first request */
	u64 cookie;			/* 0: no request in this stay yet */
	unsigned long clients;		/* clients that asked in this stay */
	unsigned long delivered;	/* clients served in this stay */
	bool pending;			/* task_work queued */
	bool in_exec;			/* first request inside execve() */
	bool walked;			/* ips/methods/nr/end hold this stay's walk */
	u32 nr;
	u8 end;				/* enum ustack_end */
	u64 *ips;			/* [max_frames] */
	u8 *methods;			/* [max_frames] */
};

/* The pool's size, at load (parameters max_frames, max_tasks). */
extern unsigned int ustack_deferred_max_frames;
extern unsigned int ustack_deferred_max_tasks;

#define USTACK_TASK_HASH_BITS	8
extern struct hlist_head ustack_task_hash[1 << USTACK_TASK_HASH_BITS];

static inline struct hlist_head *ustack_task_bucket(const struct task_struct *t)
{
	return &ustack_task_hash[hash_ptr(t, USTACK_TASK_HASH_BITS)];
}

/* The state of @t, or NULL.  Under RCU (or with IRQs off, which implies it). */
static inline struct ustack_task *ustack_task_lookup(const struct task_struct *t)
{
	struct ustack_task *st;

	hlist_for_each_entry_rcu(st, ustack_task_bucket(t), hnode)
		if (READ_ONCE(st->task) == t)
			return st;
	return NULL;
}

/*
 * The state of @t, taken from the pool if it has none.  IRQs off.  Else
 * ERR_PTR(-EDQUOT): its user holds its share; ERR_PTR(-ENOMEM): the pool
 * is empty; NULL: in NMI, the pool's lock was taken.
 */
struct ustack_task *ustack_task_get(struct task_struct *t, bool nmi);
/* Unhash @st; back to the pool after a grace period.  IRQs off. */
void ustack_task_put(struct ustack_task *st);

int ustack_task_pool_init(void);
void ustack_task_pool_free(void);
struct ustack_task *ustack_task_at(u32 i);
u32 ustack_task_index(const struct ustack_task *st);
int ustack_task_pool_live(void);

#endif /* USTACK_TASK_POOL_H */
