// SPDX-License-Identifier: GPL-2.0
/*
 * The per-mm SFrame registry's data: each mm with registrations has a
 * struct reg_mm, found by mm pointer in an RCU hash, whose entries are a
 * refcounted array (struct reg_set) sorted by text start.  Writers build
 * a new array and publish it with rcu_assign_pointer(); readers
 * binary-search it under rcu_read_lock() and copy the entry out.  An
 * unmapping only marks entries dead in place (registry_probes.c): it runs
 * in atomic context, where it must not allocate.
 *
 * Arrays are charged to the caller's memory cgroup.  Replaced arrays wait
 * for a grace period; a register/unregister loop on every CPU would pile
 * them up faster than grace periods end, so past REG_PENDING_MAX bytes
 * waiting a writer waits for them to be freed (rcu_barrier()).
 *
 * Each change of an mm's entries gives it a new generation, unique across
 * mms: the per-CPU rule cache (user_walk.c) keys its entries by it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cleanup.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include "registry_mm.h"

DEFINE_HASHTABLE(ustack_reg_hash, REG_HASH_BITS);
static DEFINE_RAW_SPINLOCK(reg_hash_lock);
atomic_t ustack_reg_nr_mm = ATOMIC_INIT(0);

/* The source of every reg_mm's generation: values are never reused. */
static atomic64_t reg_gen = ATOMIC64_INIT(1);

/* Bytes of replaced sets waiting for a grace period. */
static atomic_long_t reg_pending = ATOMIC_LONG_INIT(0);
#define REG_PENDING_MAX		(4L << 20)

/* Bytes of live registry memory (sets and per-mm state), for the stats. */
static atomic_long_t reg_bytes = ATOMIC_LONG_INIT(0);

/* Bytes of live registry memory (sets and per-mm state). */
long ustack_reg_bytes(void)
{
	return atomic_long_read(&reg_bytes);
}

/*
 * After every change of @um's entries (added, removed, hidden, dropped),
 * under @um->lock: a new generation, unique across all mms (a new mm at a
 * freed one's address never matches a rule cached for the old one), so
 * that only the mm's own changes invalidate rules cached for it.
 */
void ustack_reg_changed(struct reg_mm *um)
{
	lockdep_assert_held(&um->lock);
	/* Release: a reader that sees the value sees the change. */
	smp_store_release(&um->gen, (u64)atomic64_inc_return(&reg_gen));
}

/* ---- sets ---------------------------------------------------------- */

struct reg_set *ustack_reg_set_alloc(u32 nr, gfp_t gfp)
{
	struct reg_set *s;

	s = kvmalloc(struct_size(s, ent, nr), gfp | __GFP_ACCOUNT);
	if (!s)
		return NULL;
	atomic_long_add(struct_size(s, ent, nr), &reg_bytes);
	refcount_set(&s->ref, 1);
	s->nr = 0;
	s->cap = nr;
	s->bytes = 0;
	return s;
}

/* The set's bytes leave the registry's count. */
static void reg_set_uncount(const struct reg_set *s)
{
	atomic_long_sub(struct_size(s, ent, s->cap), &reg_bytes);
}

/* A set no reader has seen, or NULL. */
void ustack_reg_set_free(struct reg_set *s)
{
	if (!s)
		return;
	reg_set_uncount(s);
	kvfree(s);
}

static void reg_set_rcu_free(struct rcu_head *rcu)
{
	struct reg_set *s = container_of(rcu, struct reg_set, rcu);

	atomic_long_sub(struct_size(s, ent, s->cap), &reg_pending);
	kvfree(s);
}

void ustack_reg_set_put(struct reg_set *s)
{
	if (s && refcount_dec_and_test(&s->ref)) {
		reg_set_uncount(s);
		atomic_long_add(struct_size(s, ent, s->cap), &reg_pending);
		call_rcu(&s->rcu, reg_set_rcu_free);
	}
}

/* Bound what waits for grace periods.  May sleep; no lock held. */
void ustack_reg_throttle(void)
{
	if (atomic_long_read(&reg_pending) > REG_PENDING_MAX)
		rcu_barrier();
}

/* ---- the table of mms ---------------------------------------------- */

struct reg_mm *ustack_reg_find_mm(struct mm_struct *mm)
{
	struct reg_mm *um;

	hash_for_each_possible_rcu(ustack_reg_hash, um, node, (unsigned long)mm)
		if (um->mm == mm)
			return um;
	return NULL;
}

static void reg_mm_free(struct rcu_head *rcu)
{
	kfree(container_of(rcu, struct reg_mm, rcu));
}

/*
 * Drop the entries and the reg_mm.  Only the caller that claimed @um
 * (the exit_mmap probe or module exit) does this, once.  Atomic context.
 */
void ustack_reg_mm_drop(struct reg_mm *um)
{
	struct reg_set *old;

	scoped_guard(raw_spinlock, &um->lock) {
		um->gone = true;
		old = rcu_dereference_protected(um->set,
						lockdep_is_held(&um->lock));
		RCU_INIT_POINTER(um->set, NULL);
		ustack_reg_changed(um);
	}
	ustack_reg_set_put(old);
	scoped_guard(raw_spinlock, &reg_hash_lock)
		hash_del_rcu(&um->node);
	atomic_dec(&ustack_reg_nr_mm);
	atomic_long_sub(sizeof(*um), &reg_bytes);
	call_rcu(&um->rcu, reg_mm_free);
}

/*
 * The registry of @mm, created if needed.  The caller keeps @mm alive
 * (its exit_mmap has not run and cannot start).
 */
struct reg_mm *ustack_reg_mm_of(struct mm_struct *mm)
{
	struct reg_mm *um, *old;

	scoped_guard(rcu)
		um = ustack_reg_find_mm(mm);
	if (um)
		return um;
	um = kzalloc(sizeof(*um), GFP_KERNEL_ACCOUNT);
	if (!um)
		return ERR_PTR(-ENOMEM);
	raw_spin_lock_init(&um->lock);
	um->mm = mm;
	um->gen = (u64)atomic64_inc_return(&reg_gen);
	scoped_guard(raw_spinlock, &reg_hash_lock) {
		/* Another thread of @mm may have been first. */
		old = ustack_reg_find_mm(mm);
		if (!old) {
			/* counted before it can be found: see ustack_reg_none() */
			atomic_inc(&ustack_reg_nr_mm);
			hash_add_rcu(ustack_reg_hash, &um->node, (unsigned long)mm);
		}
	}
	if (old) {
		kfree(um);
		return old;
	}
	atomic_long_add(sizeof(*um), &reg_bytes);
	return um;
}

/* The registry of @mm for a registration, under mmap_lock held for write. */
struct reg_mm *ustack_reg_get_mm(struct mm_struct *mm)
{
	struct reg_mm *um;

	mmap_assert_write_locked(mm);
	um = ustack_reg_mm_of(mm);
	if (!IS_ERR(um) && um->gone)
		return ERR_PTR(-ESRCH);
	return um;
}

/*
 * [lo, hi) is covered by VMAs without holes, each with all of @flags.
 * Returns 0, -ENXIO (hole) or -EACCES (flags).
 */
int ustack_reg_check_vmas(struct mm_struct *mm, u64 lo, u64 hi,
			   unsigned long flags)
{
	struct vm_area_struct *vma;
	u64 at = lo;
	int n = 0;

	mmap_assert_locked(mm);
	while (at < hi) {
		vma = find_vma(mm, at);
		if (!vma || vma->vm_start > at)
			return -ENXIO;
		if ((vma->vm_flags & flags) != flags)
			return -EACCES;
		at = vma->vm_end;
		if (++n > 65536)	/* bounded: VMAs are at least a page */
			return -ENXIO;
	}
	return 0;
}

/*
 * Module exit, the probes gone: drop the registry of every live mm and
 * wait for the frees.
 */
void ustack_reg_drop_all(void)
{
	struct reg_mm *um;
	int bkt;

	rcu_read_lock();
	hash_for_each_rcu(ustack_reg_hash, bkt, um, node)
		if (!atomic_xchg(&um->dropped, 1))
			ustack_reg_mm_drop(um);
	rcu_read_unlock();
	WARN_ON(!ustack_reg_none());
	rcu_barrier();
}
