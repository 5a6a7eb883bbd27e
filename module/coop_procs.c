// SPDX-License-Identifier: GPL-2.0
/*
 * Cooperative unwinding's processes: COOP_ON and COOP_OFF of /dev/sframe
 * and the lookup of the current process, for coop.c.
 *
 * Processes are keyed by their mm (held with mmgrab(), so the pointer is
 * never reused while listed): fork() does not inherit the opt-in, exec
 * leaves it behind with the old mm; entries of dead mms are reclaimed
 * when the table is full, cleared before their mm is dropped.  Each
 * opt-in gets a generation that is never reused, part of the key of its
 * threads' entries (coop_threads.c).  The table is shared by every
 * user, charged as the engine's pool is (user_share.c: the uids of one
 * user's namespace are that one user): a user may take a free slot only
 * while it holds fewer than remain free, so one user gets at most half
 * of what the others leave.
 */
#include <linux/hash.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "arch.h"
#include "coop_table.h"
#include "user_share.h"

#define COOP_PROCS		256
#define COOP_PROC_HASH_BITS	6

struct coop_proc {
	struct hlist_node hnode;	/* in proc_hash while listed */
	struct mm_struct *mm;	/* mmgrab()bed; NULL when free */
	struct ustack_share *share;	/* of the opener's user */
	u64 gen;		/* of this opt-in, never reused */
	int sig;
};

/* IRQs off: stay_end() looks the process up in the user-return notifier. */
static DEFINE_RAW_SPINLOCK(procs_lock);
static struct coop_proc procs[COOP_PROCS];
/* Every walk looks its process up: by hash, not by a scan of the table. */
static struct hlist_head proc_hash[1 << COOP_PROC_HASH_BITS];
static atomic_t nr_procs = ATOMIC_INIT(0);
static u64 procs_gen;
static struct ustack_shares proc_shares;

static struct hlist_head *proc_bucket(const struct mm_struct *mm)
{
	return &proc_hash[hash_ptr(mm, COOP_PROC_HASH_BITS)];
}

static struct coop_proc *proc_find_locked(const struct mm_struct *mm)
{
	struct coop_proc *p;

	lockdep_assert_held(&procs_lock);
	hlist_for_each_entry(p, proc_bucket(mm), hnode)
		if (p->mm == mm)
			return p;
	return NULL;
}

/* Under procs_lock: @p leaves the table; the caller drops its mm. */
static void proc_clear_locked(struct coop_proc *p)
{
	hlist_del_init(&p->hnode);
	p->mm = NULL;
	if (p->share)
		ustack_share_uncharge(&proc_shares, p->share);
	p->share = NULL;
	atomic_dec(&nr_procs);
}

/*
 * The current process's signal (0: not opted in) and the key of the
 * current thread's entry.
 */
int ustack_coop_current_key(struct coop_key *key)
{
	const struct mm_struct *mm = current->mm;
	const struct coop_proc *p;
	unsigned long flags;
	int sig = 0;

	if (!mm || !atomic_read(&nr_procs))
		return 0;
	raw_spin_lock_irqsave(&procs_lock, flags);
	p = proc_find_locked(mm);
	if (p) {
		sig = p->sig;
		key->gen = p->gen;
	}
	raw_spin_unlock_irqrestore(&procs_lock, flags);
	key->task = current;
	key->start = current->start_time;
	return sig;
}

/* ---- /dev/sframe: opt in, opt out --------------------------------------- */

/*
 * Under procs_lock: the slot of @mm, else a free one charged to @who's
 * share (-ENOSPC: none, or past the share).  Entries of dead processes
 * (no mm users left) are cleared on the way; their mms go to @dead,
 * dropped by the caller once the lock is released and no lookup can see
 * them.
 */
static int proc_slot_locked(const struct mm_struct *mm, u64 who,
			    struct mm_struct **dead)
{
	struct coop_proc *p = proc_find_locked(mm);
	unsigned int nr_free = 0;
	int i, free = -1;

	if (p)
		return p - procs;
	for (i = 0; i < COOP_PROCS; i++) {
		dead[i] = NULL;
		if (procs[i].mm && !atomic_read(&procs[i].mm->mm_users)) {
			dead[i] = procs[i].mm;
			proc_clear_locked(&procs[i]);
		}
		if (!procs[i].mm) {
			nr_free++;
			if (free < 0)
				free = i;
		}
	}
	if (free < 0)
		return -ENOSPC;
	if (ustack_share_charge(&proc_shares, who, COOP_PROCS, nr_free,
				&procs[free].share)) {
		atomic_long_inc(&ustack_coop_stats.share_refused);
		return -ENOSPC;
	}
	return free;
}

/**
 * ustack_coop_on() - opt the current process in to cooperative unwinding
 * @sig: the real-time signal its handler answers requests on
 *
 * Return: 0, -EINVAL, -EOPNOTSUPP (not a native process) or -ENOSPC (no
 * slot within the user's share).
 */
int ustack_coop_on(int sig)
{
	struct mm_struct *mm = current->mm;
	struct mm_struct **dead;
	unsigned long flags;
	int i, slot;

	if (sig < SIGRTMIN || sig > SIGRTMAX)
		return -EINVAL;
	if (!ustack_arch_user_native(task_pt_regs(current)))
		return -EOPNOTSUPP;
	dead = kcalloc(COOP_PROCS, sizeof(*dead), GFP_KERNEL);
	if (!dead)
		return -ENOMEM;
	raw_spin_lock_irqsave(&procs_lock, flags);
	slot = proc_slot_locked(mm, ustack_user_of(current), dead);
	if (slot >= 0 && procs[slot].mm == mm) {
		procs[slot].sig = sig;
	} else if (slot >= 0) {
		mmgrab(mm);
		procs[slot].mm = mm;
		procs[slot].gen = ++procs_gen;
		procs[slot].sig = sig;
		hlist_add_head(&procs[slot].hnode, proc_bucket(mm));
		atomic_inc(&nr_procs);
	}
	raw_spin_unlock_irqrestore(&procs_lock, flags);
	for (i = 0; i < COOP_PROCS; i++)
		if (dead[i])
			mmdrop(dead[i]);
	kfree(dead);
	return slot < 0 ? slot : 0;
}

/**
 * ustack_coop_off() - opt the current process out
 *
 * Return: 0, or -ENOENT when it was not opted in.
 */
int ustack_coop_off(void)
{
	struct mm_struct *mm = current->mm;
	struct coop_proc *p;
	unsigned long flags;

	raw_spin_lock_irqsave(&procs_lock, flags);
	p = proc_find_locked(mm);
	if (!p) {
		raw_spin_unlock_irqrestore(&procs_lock, flags);
		return -ENOENT;
	}
	proc_clear_locked(p);
	raw_spin_unlock_irqrestore(&procs_lock, flags);
	mmdrop(mm);
	return 0;
}

int ustack_coop_procs(void)
{
	return atomic_read(&nr_procs);
}

void ustack_coop_procs_init(void)
{
	ustack_shares_init(&proc_shares);
}

/* Module exit: no walk looks any more. */
void ustack_coop_procs_exit(void)
{
	int i;

	for (i = 0; i < COOP_PROCS; i++)
		if (procs[i].mm)
			mmdrop(procs[i].mm);
}
