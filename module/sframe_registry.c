// SPDX-License-Identifier: GPL-2.0
/*
 * The per-mm SFrame registry.
 *
 * Each mm with registrations has a struct ureg_mm, found by mm pointer in an
 * RCU hash and kept alive by an mmu_notifier (mmu_notifier_get/put):
 *   .release               the mm is torn down: drop every entry
 *   .invalidate_range_start MMU_NOTIFY_UNMAP (munmap, MAP_FIXED over,
 *                          mremap's old range): drop the entries whose text
 *                          or SFrame range overlaps the unmapped range
 * The entries of an mm are an immutable, refcounted array (struct
 * ureg_set) sorted by text start; writers build a new array and publish it
 * with rcu_assign_pointer(), readers binary-search it under rcu_read_lock()
 * and copy the entry out.  Fork shares the parent's array with the child
 * (a task_work queued on the child from the sched_process_fork tracepoint,
 * run before the child's first user instruction); exec gets a new mm,
 * which has no registry.
 *
 * The SFrame bytes stay in user memory: they are read at walk time and
 * never pinned.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include "internal.h"
#include "sframe_registry.h"

struct ureg_ent {
	struct sframe_sec sec;	/* text range: sec.text_lo .. sec.text_hi */
	u64 sf_lo, sf_hi;	/* the registered SFrame range */
	bool dead;		/* unmapped, but no memory for a new array */
};

struct ureg_set {
	refcount_t ref;
	struct rcu_head rcu;
	u32 nr, cap;
	u64 bytes;
	struct ureg_ent ent[];	/* by text start, text ranges disjoint */
};

struct ureg_mm {
	struct mmu_notifier mn;
	struct hlist_node node;		/* ureg_hash, keyed by mm */
	struct mm_struct *mm;
	spinlock_t lock;		/* serialises writers of @set */
	struct ureg_set __rcu *set;	/* NULL: no entries */
	bool gone;			/* released: refuse registrations */
	atomic_t put_done;		/* our mmu_notifier reference dropped */
	struct rcu_head rcu;
};

static DEFINE_HASHTABLE(ureg_hash, 8);
static DEFINE_SPINLOCK(ureg_hash_lock);
static atomic_t ureg_nr_mm = ATOMIC_INIT(0);

/*
 * Bumped after every change of any registry (an entry added, removed or
 * hidden, an mm's registry dropped), fully ordered after the change: a
 * reader that sees generation g (acquire) and then looks up sees every
 * change made before g.  The walk's rule cache (uwalk.c) is tagged with it.
 */
static atomic64_t ureg_gen = ATOMIC64_INIT(1);

/* Bytes of live registry memory (sets and per-mm state), for the stats. */
static atomic_long_t ureg_bytes = ATOMIC_LONG_INIT(0);

long ureg_memory(void)
{
	return atomic_long_read(&ureg_bytes);
}

static void ureg_changed(void)
{
	atomic64_inc_return(&ureg_gen);
}

u64 ureg_generation(void)
{
	return (u64)atomic64_read_acquire(&ureg_gen);
}

/* ---- sets ---------------------------------------------------------- */

static struct ureg_set *ureg_set_alloc(u32 nr, gfp_t gfp)
{
	struct ureg_set *s;

	s = kvmalloc(struct_size(s, ent, nr), gfp);
	if (!s)
		return NULL;
	atomic_long_add(struct_size(s, ent, nr), &ureg_bytes);
	refcount_set(&s->ref, 1);
	s->nr = 0;
	s->cap = nr;
	s->bytes = 0;
	return s;
}

/* The set's bytes leave the registry's count. */
static void ureg_set_uncount(const struct ureg_set *s)
{
	atomic_long_sub(struct_size(s, ent, s->cap), &ureg_bytes);
}

/* A set no reader has seen, or NULL. */
static void ureg_set_free(struct ureg_set *s)
{
	if (!s)
		return;
	ureg_set_uncount(s);
	kvfree(s);
}

static void ureg_set_put(struct ureg_set *s)
{
	if (s && refcount_dec_and_test(&s->ref)) {
		ureg_set_uncount(s);
		kvfree_rcu(s, rcu);
	}
}

static void ureg_set_add(struct ureg_set *s, const struct ureg_ent *e)
{
	s->ent[s->nr++] = *e;
	s->ent[s->nr - 1].dead = false;
	s->bytes += e->sf_hi - e->sf_lo;
}

static inline u32 ureg_live(const struct ureg_set *s)
{
	u32 i, n = 0;

	for (i = 0; s && i < s->nr; i++)
		n += !READ_ONCE(s->ent[i].dead);
	return n;
}

static inline bool ureg_overlap(u64 a_lo, u64 a_hi, u64 b_lo, u64 b_hi)
{
	return a_lo < b_hi && b_lo < a_hi;
}

/* ---- the mm table -------------------------------------------------- */

static struct ureg_mm *ureg_find_mm(struct mm_struct *mm)
{
	struct ureg_mm *um;

	hash_for_each_possible_rcu(ureg_hash, um, node, (unsigned long)mm)
		if (um->mm == mm)
			return um;
	return NULL;
}

/*
 * Drop the entries and our mmu_notifier reference.  Only the caller that
 * set put_done (release or module exit) does this, once.
 */
static void ureg_mm_drop(struct ureg_mm *um)
{
	struct ureg_set *old;

	spin_lock(&um->lock);
	um->gone = true;
	old = rcu_dereference_protected(um->set, lockdep_is_held(&um->lock));
	RCU_INIT_POINTER(um->set, NULL);
	spin_unlock(&um->lock);
	ureg_changed();
	ureg_set_put(old);
	spin_lock(&ureg_hash_lock);
	hash_del_rcu(&um->node);
	spin_unlock(&ureg_hash_lock);
	mmu_notifier_put(&um->mn);
}

static void ureg_mn_release(struct mmu_notifier *mn, struct mm_struct *mm)
{
	struct ureg_mm *um = container_of(mn, struct ureg_mm, mn);

	if (!atomic_xchg(&um->put_done, 1))
		ureg_mm_drop(um);
}

/* Entries of @s hit by unmapping [lo, hi). */
static u32 ureg_hits(const struct ureg_set *s, u64 lo, u64 hi)
{
	const struct ureg_ent *e;
	u32 i, n = 0;

	for (i = 0; s && i < s->nr; i++) {
		e = &s->ent[i];
		if (READ_ONCE(e->dead))
			continue;
		n += ureg_overlap(e->sec.text_lo, e->sec.text_hi, lo, hi) ||
		     ureg_overlap(e->sf_lo, e->sf_hi, lo, hi);
	}
	return n;
}

static int ureg_mn_invalidate(struct mmu_notifier *mn,
			      const struct mmu_notifier_range *range)
{
	struct ureg_mm *um = container_of(mn, struct ureg_mm, mn);
	struct ureg_set *old, *s;
	const struct ureg_ent *e;
	u64 lo = range->start, hi = range->end;
	u32 i, hits;

	if (range->event != MMU_NOTIFY_UNMAP)
		return 0;
	rcu_read_lock();
	hits = ureg_hits(rcu_dereference(um->set), lo, hi);
	rcu_read_unlock();
	if (!hits)
		return 0;

	spin_lock(&um->lock);
	old = rcu_dereference_protected(um->set, lockdep_is_held(&um->lock));
	hits = ureg_hits(old, lo, hi);
	if (!hits)
		goto out;
	/* No reclaim here: this may run under reclaim or the OOM reaper. */
	s = ureg_set_alloc(ureg_live(old) - hits, GFP_NOWAIT | __GFP_NOWARN);
	if (!s) {
		/* Hide them in place (readers check the flag). */
		for (i = 0; i < old->nr; i++) {
			e = &old->ent[i];
			if (ureg_overlap(e->sec.text_lo, e->sec.text_hi, lo, hi) ||
			    ureg_overlap(e->sf_lo, e->sf_hi, lo, hi))
				WRITE_ONCE(old->ent[i].dead, true);
		}
		spin_unlock(&um->lock);
		ureg_changed();
		return 0;
	}
	for (i = 0; i < old->nr; i++) {
		e = &old->ent[i];
		if (READ_ONCE(e->dead) ||
		    ureg_overlap(e->sec.text_lo, e->sec.text_hi, lo, hi) ||
		    ureg_overlap(e->sf_lo, e->sf_hi, lo, hi))
			continue;
		ureg_set_add(s, e);
	}
	if (!s->nr) {
		ureg_set_free(s);
		s = NULL;
	}
	rcu_assign_pointer(um->set, s);
	spin_unlock(&um->lock);
	ureg_changed();
	ureg_set_put(old);
	return 0;
out:
	spin_unlock(&um->lock);
	return 0;
}

static struct mmu_notifier *ureg_mn_alloc(struct mm_struct *mm)
{
	struct ureg_mm *um = kzalloc(sizeof(*um), GFP_KERNEL);

	if (!um)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&um->lock);
	INIT_HLIST_NODE(&um->node);
	um->mm = mm;
	atomic_inc(&ureg_nr_mm);
	atomic_long_add(sizeof(*um), &ureg_bytes);
	return &um->mn;
}

static void ureg_mn_free(struct mmu_notifier *mn)
{
	struct ureg_mm *um = container_of(mn, struct ureg_mm, mn);

	kfree_rcu(um, rcu);
	atomic_dec(&ureg_nr_mm);
	atomic_long_sub(sizeof(*um), &ureg_bytes);
}

static const struct mmu_notifier_ops ureg_mn_ops = {
	.release = ureg_mn_release,
	.invalidate_range_start = ureg_mn_invalidate,
	.alloc_notifier = ureg_mn_alloc,
	.free_notifier = ureg_mn_free,
};

/* The registry of @mm, created if needed.  mmap_lock held for write. */
static struct ureg_mm *ureg_get_mm(struct mm_struct *mm)
{
	struct mmu_notifier *mn;
	struct ureg_mm *um;

	rcu_read_lock();
	um = ureg_find_mm(mm);
	rcu_read_unlock();
	if (um)
		return um->gone ? ERR_PTR(-ESRCH) : um;
	mn = mmu_notifier_get_locked(&ureg_mn_ops, mm);
	if (IS_ERR(mn))
		return ERR_CAST(mn);
	um = container_of(mn, struct ureg_mm, mn);
	spin_lock(&ureg_hash_lock);
	if (!hlist_unhashed(&um->node)) {
		/* Not ours to hold twice. */
		spin_unlock(&ureg_hash_lock);
		mmu_notifier_put(mn);
		return ERR_PTR(-EBUSY);
	}
	hash_add_rcu(ureg_hash, &um->node, (unsigned long)mm);
	spin_unlock(&ureg_hash_lock);
	return um;
}

/* ---- registration -------------------------------------------------- */

#define ureg_refuse(err, why)						\
	({								\
		pr_info_ratelimited("pid %d (%s): sframe register refused: %s\n", \
				    task_tgid_nr(current), current->comm, why); \
		(err);							\
	})

/*
 * [lo, hi) is covered by VMAs without holes, each with all of @flags.
 * Returns 0, -ENXIO (hole) or -EACCES (flags).
 */
static int ureg_check_vmas(struct mm_struct *mm, u64 lo, u64 hi,
			   unsigned long flags)
{
	struct vm_area_struct *vma;
	u64 at = lo;
	int n = 0;

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

int ureg_register(u64 sf, u64 sf_len, u64 lo, u64 hi)
{
	struct mm_struct *mm = current->mm;
	struct ureg_set *old, *s = NULL;
	struct ureg_ent e = {};
	struct ureg_mm *um;
	u32 i, want = 0;
	bool placed = false;
	int err;

	if (!mm)
		return -EINVAL;
	if (!sf_len || lo >= hi || sf + sf_len < sf)
		return ureg_refuse(-EINVAL, "empty or wrapping range");
	if (hi > TASK_SIZE || sf + sf_len > TASK_SIZE)
		return ureg_refuse(-EFAULT, "range outside user space");
	if (sf_len > UREG_MAX_BYTES)
		return ureg_refuse(-EDQUOT, "section larger than the byte cap");

	/* Mapped first (clear errors), then the section, without mmap_lock. */
	if (mmap_read_lock_killable(mm))
		return -EINTR;
	err = ureg_check_vmas(mm, lo, hi, VM_EXEC);
	if (!err)
		err = ureg_check_vmas(mm, sf, sf + sf_len, VM_READ);
	mmap_read_unlock(mm);
	if (err)
		return ureg_refuse(err, err == -ENXIO ? "range not mapped" :
				   "text not executable or SFrame not readable");

	err = sframe_sec_init(&e.sec, sf, sf_len, sf, lo, hi);
	if (!err)
		err = sframe_validate(&e.sec);
	if (err) {
		pr_info_ratelimited("pid %d (%s): sframe register refused: section: %s\n",
				    task_tgid_nr(current), current->comm,
				    sframe_strerror(err));
		return sframe_errno(err, -EBADMSG);
	}
	e.sf_lo = sf;
	e.sf_hi = sf + sf_len;

	if (mmap_write_lock_killable(mm))
		return -EINTR;
	err = ureg_check_vmas(mm, lo, hi, VM_EXEC);
	if (err) {
		ureg_refuse(err, err == -ENXIO ? "text range not mapped" :
			    "text range not executable");
		goto unlock;
	}
	err = ureg_check_vmas(mm, sf, sf + sf_len, VM_READ);
	if (err) {
		ureg_refuse(err, err == -ENXIO ? "SFrame range not mapped" :
			    "SFrame range not readable");
		goto unlock;
	}
	um = ureg_get_mm(mm);
	if (IS_ERR(um)) {
		err = PTR_ERR(um);
		goto unlock;
	}
	for (;;) {
		spin_lock(&um->lock);
		old = rcu_dereference_protected(um->set,
						lockdep_is_held(&um->lock));
		if (s && want == ureg_live(old) + 1)
			break;
		want = ureg_live(old) + 1;
		spin_unlock(&um->lock);
		ureg_set_free(s);
		if (want > UREG_MAX_ENTRIES) {
			err = ureg_refuse(-ENOSPC, "too many registrations");
			goto unlock;
		}
		s = ureg_set_alloc(want, GFP_KERNEL);
		if (!s) {
			err = -ENOMEM;
			goto unlock;
		}
	}
	/* Locked, @s has room for the live entries and @e. */
	err = 0;
	if (old && old->bytes + sf_len > UREG_MAX_BYTES)
		err = -EDQUOT;
	for (i = 0; !err && old && i < old->nr; i++) {
		const struct ureg_ent *o = &old->ent[i];

		if (READ_ONCE(o->dead))
			continue;
		if (ureg_overlap(o->sec.text_lo, o->sec.text_hi, lo, hi) ||
		    ureg_overlap(o->sf_lo, o->sf_hi, e.sf_lo, e.sf_hi)) {
			err = -EEXIST;
			break;
		}
		if (!placed && o->sec.text_lo > lo) {
			ureg_set_add(s, &e);
			placed = true;
		}
		ureg_set_add(s, o);
	}
	if (!err) {
		if (!placed)
			ureg_set_add(s, &e);
		rcu_assign_pointer(um->set, s);
		s = NULL;
	}
	spin_unlock(&um->lock);
	if (!err)
		ureg_changed();
	if (err == -EEXIST)
		ureg_refuse(err, "overlaps an existing registration");
	else if (err == -EDQUOT)
		ureg_refuse(err, "byte cap exceeded");
	else
		ureg_set_put(old);
unlock:
	mmap_write_unlock(mm);
	ureg_set_free(s);
	return err;
}

int ureg_unregister(u64 sf, u64 lo, u64 hi)
{
	struct mm_struct *mm = current->mm;
	struct ureg_set *old, *s = NULL;
	struct ureg_mm *um;
	u32 i, want = 0;
	int found;

	if (!mm)
		return -EINVAL;
	rcu_read_lock();
	um = ureg_find_mm(mm);
	rcu_read_unlock();
	if (!um)
		return -ENOENT;
	/* @um lives as long as @mm, which is ours. */
	for (;;) {
		spin_lock(&um->lock);
		old = rcu_dereference_protected(um->set,
						lockdep_is_held(&um->lock));
		found = -1;
		for (i = 0; old && i < old->nr; i++) {
			const struct sframe_sec *q = &old->ent[i].sec;

			if (!READ_ONCE(old->ent[i].dead) &&
			    old->ent[i].sf_lo == sf &&
			    (!lo || q->text_lo == lo) &&
			    (!hi || q->text_hi == hi))
				found = i;
		}
		if (found < 0) {
			spin_unlock(&um->lock);
			ureg_set_free(s);
			return -ENOENT;
		}
		if (ureg_live(old) == 1 || (s && want == ureg_live(old) - 1))
			break;
		want = ureg_live(old) - 1;
		spin_unlock(&um->lock);
		ureg_set_free(s);
		s = ureg_set_alloc(want, GFP_KERNEL);
		if (!s)
			return -ENOMEM;
	}
	if (ureg_live(old) == 1) {
		ureg_set_free(s);
		s = NULL;
	} else {
		for (i = 0; i < old->nr; i++)
			if (i != found && !READ_ONCE(old->ent[i].dead))
				ureg_set_add(s, &old->ent[i]);
	}
	rcu_assign_pointer(um->set, s);
	spin_unlock(&um->lock);
	ureg_changed();
	ureg_set_put(old);
	return 0;
}

bool ureg_lookup(struct mm_struct *mm, u64 pc, struct sframe_sec *sec,
		 u64 *gap_lo, u64 *gap_hi)
{
	const struct ureg_set *s;
	const struct ureg_ent *e;
	struct ureg_mm *um;
	u32 lo = 0, hi, mid;
	bool found = false;

	*gap_lo = 0;
	*gap_hi = TASK_SIZE;
	if (hash_empty(ureg_hash))
		return false;
	rcu_read_lock();
	um = ureg_find_mm(mm);
	s = um ? rcu_dereference(um->set) : NULL;
	if (!s)
		goto out;
	/* The first entry starting above pc. */
	hi = s->nr;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->ent[mid].sec.text_lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->nr)
		*gap_hi = s->ent[lo].sec.text_lo;
	if (lo) {
		e = &s->ent[lo - 1];
		if (pc < e->sec.text_hi && !READ_ONCE(e->dead)) {
			*sec = e->sec;
			found = true;
		} else {
			*gap_lo = e->sec.text_hi;
			if (pc < e->sec.text_hi) {	/* dead */
				*gap_lo = pc;
				*gap_hi = pc + 1;
			}
		}
	}
out:
	rcu_read_unlock();
	return found;
}

/* ---- fork ---------------------------------------------------------- */

/*
 * The tracepoint runs with preemption off (also on PREEMPT_RT, where no
 * allocation is allowed there): the work items come from a pool refilled
 * from a workqueue, or GFP_ATOMIC on other kernels when it runs dry.  Each queued item holds a module reference until it has run
 * (task_work always runs: at return to user space, or at exit).
 */
#define UFORK_POOL	64

struct ufork {
	struct callback_head cb;
	struct ureg_set *set;
};

static DEFINE_RAW_SPINLOCK(ufork_lock);
static struct ufork *ufork_pool[2 * UFORK_POOL];	/* refilled to half */
static unsigned int ufork_nr;
static struct tracepoint *ufork_tp;

static void ufork_refill(struct work_struct *w)
{
	struct ufork *f;
	unsigned long flags;
	bool full;

	do {
		f = kmalloc(sizeof(*f), GFP_KERNEL);
		if (!f)
			return;
		raw_spin_lock_irqsave(&ufork_lock, flags);
		full = ufork_nr >= UFORK_POOL;
		if (!full)
			ufork_pool[ufork_nr++] = f;
		raw_spin_unlock_irqrestore(&ufork_lock, flags);
	} while (!full);
	kfree(f);
}

static DECLARE_WORK(ufork_refill_work, ufork_refill);

/* Back to the pool (atomic context: no kfree on PREEMPT_RT). */
static void ufork_pool_put(struct ufork *f)
{
	unsigned long flags;
	bool kept = false;

	raw_spin_lock_irqsave(&ufork_lock, flags);
	if (ufork_nr < ARRAY_SIZE(ufork_pool)) {
		ufork_pool[ufork_nr++] = f;
		kept = true;
	}
	raw_spin_unlock_irqrestore(&ufork_lock, flags);
	if (!kept)
		kfree(f);	/* not reached: 2x the refill level */
}

/* The child, before its first user instruction: adopt @set. */
static void ureg_inherit(struct mm_struct *mm, struct ureg_set *set)
{
	struct ureg_set *s, *old;
	struct ureg_mm *um;
	u32 i, ok = 0;

	if (mmap_write_lock_killable(mm))
		return;
	/* MADV_DONTFORK ranges are not in the child: keep what is there. */
	for (i = 0; i < set->nr; i++) {
		const struct ureg_ent *e = &set->ent[i];

		ok += !READ_ONCE(e->dead) &&
		      !ureg_check_vmas(mm, e->sec.text_lo, e->sec.text_hi,
				       VM_EXEC) &&
		      !ureg_check_vmas(mm, e->sf_lo, e->sf_hi, VM_READ);
	}
	if (!ok)
		goto unlock;
	if (ok == set->nr) {
		refcount_inc(&set->ref);
		s = set;
	} else {
		s = ureg_set_alloc(ok, GFP_KERNEL);
		if (!s)
			goto unlock;
		for (i = 0; i < set->nr; i++) {
			const struct ureg_ent *e = &set->ent[i];

			if (!READ_ONCE(e->dead) &&
			    !ureg_check_vmas(mm, e->sec.text_lo,
					     e->sec.text_hi, VM_EXEC) &&
			    !ureg_check_vmas(mm, e->sf_lo, e->sf_hi, VM_READ) &&
			    s->nr < ok)
				ureg_set_add(s, e);
		}
	}
	um = ureg_get_mm(mm);
	if (IS_ERR(um)) {
		ureg_set_put(s);
		goto unlock;
	}
	spin_lock(&um->lock);
	old = rcu_dereference_protected(um->set, lockdep_is_held(&um->lock));
	if (!old)
		rcu_assign_pointer(um->set, s);
	spin_unlock(&um->lock);
	ureg_changed();
	if (old)
		ureg_set_put(s);	/* cannot happen before user code */
unlock:
	mmap_write_unlock(mm);
}

static void ufork_run(struct callback_head *cb)
{
	struct ufork *f = container_of(cb, struct ufork, cb);

	if (current->mm && !(current->flags & PF_EXITING))
		ureg_inherit(current->mm, f->set);
	ureg_set_put(f->set);
	kfree(f);
	module_put(THIS_MODULE);
}

static void ufork_probe(void *data, struct task_struct *parent,
			struct task_struct *child)
{
	struct ureg_set *set = NULL;
	struct ureg_mm *um;
	struct ufork *f = NULL;
	unsigned long flags;

	if (!child->mm || child->mm == parent->mm ||
	    (child->flags & PF_KTHREAD) || hash_empty(ureg_hash))
		return;
	rcu_read_lock();
	um = ureg_find_mm(parent->mm);
	if (um)
		set = rcu_dereference(um->set);
	if (set && !refcount_inc_not_zero(&set->ref))
		set = NULL;
	rcu_read_unlock();
	if (!set)
		return;
	raw_spin_lock_irqsave(&ufork_lock, flags);
	if (ufork_nr)
		f = ufork_pool[--ufork_nr];
	raw_spin_unlock_irqrestore(&ufork_lock, flags);
	schedule_work(&ufork_refill_work);
	/* A burst of forks: atomic allocation where that is allowed. */
	if (!f && !IS_ENABLED(CONFIG_PREEMPT_RT))
		f = kmalloc(sizeof(*f), GFP_ATOMIC | __GFP_NOWARN);
	if (!f) {
		pr_warn_ratelimited("pid %d: fork: no memory to copy SFrame registrations\n",
				    task_tgid_nr(child));
		ureg_set_put(set);
		return;
	}
	if (!try_module_get(THIS_MODULE))
		goto undo;
	f->set = set;
	init_task_work(&f->cb, ufork_run);
	if (!task_work_add(child, &f->cb, TWA_RESUME))
		return;
	module_put(THIS_MODULE);
undo:
	ureg_set_put(set);
	ufork_pool_put(f);
}

static void ufork_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_fork"))
		ufork_tp = tp;
}

/* ---- init/exit ----------------------------------------------------- */

int ustack_registry_init(void)
{
	int err;

	err = udisc_init();
	if (err)
		return err;
	err = uwalk_init();
	if (err) {
		udisc_exit();
		return err;
	}
	ufork_refill(NULL);
	for_each_kernel_tracepoint(ufork_find_tp, NULL);
	if (!ufork_tp) {
		pr_err("no sched_process_fork tracepoint\n");
		err = -ENOENT;
		goto fail;
	}
	err = tracepoint_probe_register(ufork_tp, ufork_probe, NULL);
	if (err)
		goto fail;
	return 0;
fail:
	while (ufork_nr)
		kfree(ufork_pool[--ufork_nr]);
	uwalk_exit();
	udisc_exit();
	return err;
}

/*
 * Called after /dev/sframe is gone (no ioctl can run) and after the walks
 * have stopped.  Pending fork works hold module references, so they are
 * done.  Drops the registry of every live mm, then waits until each
 * notifier is freed (mmu_notifier_synchronize runs the frees).
 */
void ustack_registry_exit(void)
{
	struct ureg_mm *um;
	int bkt;

	tracepoint_probe_unregister(ufork_tp, ufork_probe, NULL);
	tracepoint_synchronize_unregister();
	cancel_work_sync(&ufork_refill_work);
	while (ufork_nr)
		kfree(ufork_pool[--ufork_nr]);

	for (;;) {
		struct ureg_mm *found = NULL;

		rcu_read_lock();
		hash_for_each_rcu(ureg_hash, bkt, um, node) {
			/* Claimed: freed only after our mmu_notifier_put(). */
			if (!atomic_xchg(&um->put_done, 1)) {
				found = um;
				break;
			}
		}
		rcu_read_unlock();
		if (!found)
			break;
		ureg_mm_drop(found);
	}
	for (;;) {
		mmu_notifier_synchronize();
		if (!atomic_read(&ureg_nr_mm))
			break;
		msleep(20);
	}
	mmu_notifier_synchronize();
	rcu_barrier();
	uwalk_exit();
	udisc_exit();
}
