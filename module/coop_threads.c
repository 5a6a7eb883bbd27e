// SPDX-License-Identifier: GPL-2.0
/*
 * Cooperative unwinding's thread entries: one per thread with a request
 * owed or asked, for coop.c.
 *
 * An entry is keyed by its task, the task's start time (a task_struct
 * reused later starts later) and the process's opt-in generation
 * (coop_procs.c): a stale entry can never match another thread, nor the
 * same thread after an exec.  Every entry comes back: an owed or asked
 * request expires after coop_timeout_ms whether its thread lives or not,
 * an exiting or exec'ing thread's entry is freed at its last walk, and
 * an entry whose task_work is queued belongs to that work until it ran.
 * The table is shared by every user, charged as the engine's pool is
 * (user_share.c): a user may take a free entry only while it holds fewer
 * than remain free.
 */
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include "coop_table.h"
#include "user_share.h"

/* Here, below the protocol (coop.c) and the process table, which count too. */
struct ustack_coop_stats ustack_coop_stats;

#define COOP_THREADS		1024
#define COOP_HASH_BITS		8

/* IRQs off: stay_end() runs in the user-return notifier. */
DEFINE_RAW_SPINLOCK(ustack_coop_threads_lock);
static struct coop_thread threads[COOP_THREADS];
static struct hlist_head thread_hash[1 << COOP_HASH_BITS];
static HLIST_HEAD(thread_free);
static unsigned int nr_free = COOP_THREADS;	/* on thread_free */
static unsigned long next_reclaim;		/* jiffies */
static struct ustack_shares thread_shares;

static void put_free_locked(struct coop_thread *e)
{
	hlist_add_head(&e->hnode, &thread_free);
	nr_free++;
}

static struct hlist_head *bucket_of(const struct task_struct *t)
{
	return &thread_hash[hash_ptr(t, COOP_HASH_BITS)];
}

struct coop_thread *ustack_coop_thread_lookup(const struct coop_key *key)
{
	struct coop_thread *e;

	lockdep_assert_held(&ustack_coop_threads_lock);
	hlist_for_each_entry(e, bucket_of(key->task), hnode)
		if (e->key.task == key->task && e->key.start == key->start &&
		    e->key.gen == key->gen)
			return e;
	return NULL;
}

/*
 * Free @e, or leave it to its queued work, which owns it until it ran:
 * unhashed, it matches no thread meanwhile.
 */
void ustack_coop_thread_free_locked(struct coop_thread *e)
{
	hlist_del_init(&e->hnode);
	e->key.task = NULL;
	e->state = COOP_FREE;
	if (e->share)
		ustack_share_uncharge(&thread_shares, e->share);
	e->share = NULL;
	if (e->work_queued)
		e->released = true;
	else
		put_free_locked(e);
}

bool ustack_coop_expired(const struct coop_thread *e)
{
	return e->state != COOP_FREE && time_after(jiffies, e->deadline);
}

/*
 * Reclaim every expired request: their threads may be gone, or never
 * return to user space.
 */
static void reclaim_locked(void)
{
	unsigned int i;

	for (i = 0; i < COOP_THREADS; i++) {
		struct coop_thread *e = &threads[i];

		if (e->key.task && !e->work_queued && ustack_coop_expired(e)) {
			atomic_long_inc(&ustack_coop_stats.expired);
			ustack_coop_thread_free_locked(e);
		}
	}
	next_reclaim = jiffies + HZ;
}

/*
 * A new entry for @key, charged to its user's share; NULL if none.
 *
 * Expired requests are reclaimed once the table is half full, and once
 * a second: not at every request.
 */
struct coop_thread *ustack_coop_thread_new_locked(const struct coop_key *key)
{
	struct ustack_share *share;
	struct coop_thread *e;

	lockdep_assert_held(&ustack_coop_threads_lock);
	if (nr_free <= COOP_THREADS / 2 || time_after(jiffies, next_reclaim))
		reclaim_locked();
	if (!nr_free)
		return NULL;
	if (ustack_share_charge(&thread_shares, ustack_user_of(current),
				COOP_THREADS, nr_free, &share)) {
		atomic_long_inc(&ustack_coop_stats.share_refused);
		return NULL;
	}
	e = hlist_entry(thread_free.first, struct coop_thread, hnode);
	hlist_del(&e->hnode);
	nr_free--;
	e->key = *key;
	e->share = share;
	e->state = COOP_FREE;
	hlist_add_head(&e->hnode, bucket_of(key->task));
	return e;
}

/* Thread entries in use (asked, owed or owned by a queued work). */
int ustack_coop_threads(void)
{
	unsigned long flags;
	int i, n = 0;

	raw_spin_lock_irqsave(&ustack_coop_threads_lock, flags);
	for (i = 0; i < COOP_THREADS; i++)
		if (threads[i].key.task || threads[i].work_queued)
			n++;
	raw_spin_unlock_irqrestore(&ustack_coop_threads_lock, flags);
	return n;
}

void ustack_coop_threads_init(void)
{
	int i;

	for (i = 0; i < COOP_THREADS; i++)
		hlist_add_head(&threads[i].hnode, &thread_free);
	next_reclaim = jiffies;
	ustack_shares_init(&thread_shares);
}

/*
 * The queued work of @e ran: the entry is its thread's again, or back on
 * the free list when it was released meanwhile or the work ran in the
 * exit path (@exiting).  Return: the request is still owed.
 */
bool ustack_coop_thread_work_done_locked(struct coop_thread *e, bool exiting)
{
	bool owed = e->state == COOP_OWED && !e->released;

	lockdep_assert_held(&ustack_coop_threads_lock);
	e->work_queued = false;
	if (!e->released && !exiting)
		return owed;
	e->released = false;
	if (e->key.task)
		ustack_coop_thread_free_locked(e);
	else
		put_free_locked(e);
	return false;
}
