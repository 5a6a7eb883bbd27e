/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The deferred engine's per-task state pool (task_pool.c), used by the
 * engine (deferred.c) alone.  Entries are written with IRQs off on their
 * task's CPU, NMI requests refused meanwhile (nmi_excl.h).
 */
#ifndef USTACK_TASK_POOL_H
#define USTACK_TASK_POOL_H

#include <linux/hash.h>
#include <linux/rculist.h>
#include <linux/types.h>

struct task_struct;
struct ustack_task;
struct user_return_notifier;

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

/* The state of @t, taken from the pool if it has none.  IRQs off. */
struct ustack_task *ustack_task_get(struct task_struct *t, bool nmi);
/* Unhash @st; back to the pool after a grace period.  IRQs off. */
void ustack_task_put(struct ustack_task *st);

int ustack_task_pool_init(void (*on_user_return)(struct user_return_notifier *));
void ustack_task_pool_free(void);
struct ustack_task *ustack_task_at(u32 i);
int ustack_task_pool_live(void);

#endif /* USTACK_TASK_POOL_H */
