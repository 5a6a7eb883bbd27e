// SPDX-License-Identifier: GPL-2.0
/*
 * The deferred engine's per-task state (struct ustack_task): a fixed pool
 * of max_tasks entries with max_frames slots each, allocated at load, and
 * the RCU hash that finds a task's entry.  Nothing is allocated on the
 * request path, so requests are safe in hard-IRQ context on PREEMPT_RT
 * too; in NMI the pool's lock is only tried.  An entry goes back to the
 * pool after an RCU grace period.  No user holds more than half of the
 * pool, nor more than it leaves free (its fair share, user_share.c),
 * whatever the number of users.
 */
#include <linux/hash.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include "ustack_limits.h"
#include "task_pool.h"
#include "user_share.h"

unsigned int ustack_deferred_max_frames = 256;
unsigned int ustack_deferred_max_tasks = 2048;

static struct ustack_task *pool;
static u64 *pool_ips;
static u8 *pool_methods;
static u32 pool_frames;
static struct ustack_task *free_list;
static u32 free_nr;		/* entries on free_list */
static DEFINE_RAW_SPINLOCK(pool_lock);
struct hlist_head ustack_task_hash[1 << USTACK_TASK_HASH_BITS];
static atomic_t live_tasks = ATOMIC_INIT(0);

/*
 * Fair shares of the pool (user_share.c): no user holds more than half of
 * it, nor more than is free besides, so that one user's threads (blocked
 * with walks pending, say) never leave the others without, nor do a few
 * uids of one person.  An entry counts against its user until it is
 * back in the pool, after its grace period.  Under pool_lock.
 */
static struct ustack_shares shares;
static u32 share_cap;

/*
 * The state of @t, taken from the pool if it has none.  IRQs off.  In NMI
 * the pool's lock is only tried: its holder may be the code we interrupted.
 */
struct ustack_task *ustack_task_get(struct task_struct *t, bool nmi)
{
	struct ustack_task *st;
	struct ustack_share *share;
	u64 who;

	lockdep_assert_irqs_disabled();
	st = ustack_task_lookup(t);

	if (st)
		return st;
	who = ustack_user_of(t);
	if (!nmi)
		raw_spin_lock(&pool_lock);
	else if (!raw_spin_trylock(&pool_lock))
		return NULL;
	/* nomem is an empty pool only; a user at its share is refused. */
	if (!free_list) {
		st = ERR_PTR(-ENOMEM);
	} else if (ustack_share_charge(&shares, who, share_cap, free_nr,
				       &share)) {
		st = ERR_PTR(-EDQUOT);
	} else {
		st = free_list;
		free_list = st->next_free;
		free_nr--;
		st->share = share;
		st->task = t;
		st->cookie = 0;
		st->clients = 0;
		st->delivered = 0;
		st->pending = false;
		st->walked = false;
		memset(&st->ret, 0, sizeof(st->ret));
		st->nr = 0;
		hlist_add_head_rcu(&st->hnode, ustack_task_bucket(t));
		atomic_inc(&live_tasks);
	}
	raw_spin_unlock(&pool_lock);
	return st;
}

static void task_free_rcu(struct rcu_head *rcu)
{
	struct ustack_task *st = container_of(rcu, struct ustack_task, rcu);

	guard(raw_spinlock_irqsave)(&pool_lock);
	/*
	 * Its user is charged until now, not until ustack_task_put(): threads that
	 * sleep and wake in a loop would otherwise park the pool in grace
	 * periods, uncharged, and leave the other users none.
	 */
	ustack_share_uncharge(&shares, st->share);
	st->next_free = free_list;
	free_list = st;
	free_nr++;
}

/* Unhash @st and give it back to the pool after a grace period.  IRQs off. */
void ustack_task_put(struct ustack_task *st)
{
	lockdep_assert_irqs_disabled();
	scoped_guard(raw_spinlock, &pool_lock) {
		hlist_del_rcu(&st->hnode);
		WRITE_ONCE(st->task, NULL);
		atomic_dec(&live_tasks);
	}
	call_rcu(&st->rcu, task_free_rcu);
}

/**
 * ustack_task_pool_init() - allocate the pool (parameters max_tasks and
 *	max_frames, clamped to what the pool can hold)
 *
 * Return: 0 or -ENOMEM.
 */
int ustack_task_pool_init(void)
{
	u32 i, n;

	pool_frames = clamp_val(ustack_deferred_max_frames, 16,
				USTACK_FRAMES_LIMIT);
	ustack_deferred_max_frames = pool_frames;
	n = clamp_val(ustack_deferred_max_tasks, 16, 65536);
	ustack_deferred_max_tasks = n;
	pool = vzalloc(array_size(n, sizeof(*pool)));
	pool_ips = vmalloc(array3_size(n, pool_frames, sizeof(u64)));
	pool_methods = vmalloc(array_size(n, pool_frames));
	if (!pool || !pool_ips || !pool_methods) {
		ustack_task_pool_free();
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		pool[i].ips = pool_ips + (size_t)i * pool_frames;
		pool[i].methods = pool_methods + (size_t)i * pool_frames;
		pool[i].next_free = i + 1 < n ? &pool[i + 1] : NULL;
	}
	free_list = &pool[0];
	free_nr = n;
	ustack_shares_init(&shares);
	share_cap = max(n / 2, 1U);
	return 0;
}

/* Module exit, after the grace periods of the last frees (rcu_barrier()). */
void ustack_task_pool_free(void)
{
	vfree(pool);
	vfree(pool_ips);
	vfree(pool_methods);
	pool = NULL;
	pool_ips = NULL;
	pool_methods = NULL;
}

/* Entry @i of the pool (@i below max_tasks), in use or not. */
struct ustack_task *ustack_task_at(u32 i)
{
	return &pool[i];
}

/*
 * The place of @st in the pool, below max_tasks: a client keeps per-task
 * state of its own by it (user_record.c).
 */
u32 ustack_task_index(const struct ustack_task *st)
{
	return st - pool;
}

/* Entries held by tasks now. */
int ustack_task_pool_live(void)
{
	return atomic_read(&live_tasks);
}
