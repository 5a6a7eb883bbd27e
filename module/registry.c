// SPDX-License-Identifier: GPL-2.0
/*
 * The per-mm SFrame registry.
 *
 * Each mm with registrations has a struct reg_mm, found by mm pointer in an
 * RCU hash.  Two probes keep it true, neither taking a global lock:
 *   kprobes on unmap_vmas() and move_page_tables()
 *                          every unmapping of a range (munmap, MAP_FIXED
 *                          over, mremap's old range, also with
 *                          MREMAP_DONTUNMAP; exit): hide the entries whose
 *                          text or SFrame range overlaps it.  These are
 *                          where the kernel sends MMU_NOTIFY_UNMAP.
 *   the exit_mmap tracepoint the mm is torn down: drop the reg_mm before
 *                          the mm_struct can be freed (and its address
 *                          reused by a new mm).
 * An mmu_notifier would do the same, but registering one calls
 * mm_take_all_locks(): the global mm_all_locks_mutex and every anon_vma
 * and i_mmap lock of the address space, per registering process and per
 * fork of one (seconds for 60000 VMAs).  Should a probe ever be missed
 * (kprobe recursion), no registration is served or accepted any more.
 * The entries of an mm are a refcounted array (struct reg_set) sorted by
 * text start; writers build a new array and publish it with
 * rcu_assign_pointer(), readers binary-search it under rcu_read_lock() and
 * copy the entry out.  An unmapping only marks entries dead in place: the
 * probe runs in atomic context, where it must not allocate.  An array
 * belongs to one mm: fork copies the parent's into the child (a task_work
 * queued on the child from the sched_process_fork tracepoint, run before
 * the child's first user instruction), so that one's unmapping never hides
 * an entry of the other; exec gets a new mm, which has no registry.
 *
 * Arrays are charged to the caller's memory cgroup.  Replaced arrays wait
 * for a grace period; a register/unregister loop on every CPU would pile
 * them up faster than grace periods end, so past REG_PENDING_MAX bytes
 * waiting a writer waits for them to be freed (rcu_barrier()).
 *
 * The SFrame bytes stay in user memory: they are read at walk time and
 * never pinned.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cleanup.h>
#include <linux/hashtable.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
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
#include "registry.h"

struct reg_ent {
	struct sframe_sec sec;	/* text range: sec.text_lo .. sec.text_hi */
	u64 sf_lo, sf_hi;	/* the registered SFrame range */
	bool dead;		/* unmapped (set in place, under the lock) */
};

/* Mappings whose rules may be in rule caches: see ustack_registry_watch(). */
#define REG_WATCH_MAX	16

struct reg_watch {
	u64 lo, hi;
};

struct reg_set {
	refcount_t ref;
	struct rcu_head rcu;
	u32 nr, cap;
	u64 bytes;		/* of the live entries */
	struct reg_ent ent[];	/* by text start, text ranges disjoint */
};

/* Raw spinlocks: the probes run with preemption off, also on PREEMPT_RT. */
struct reg_mm {
	struct hlist_node node;		/* reg_hash, keyed by mm */
	struct mm_struct *mm;
	raw_spinlock_t lock;		/* serialises writers of @set */
	struct reg_set __rcu *set;	/* NULL: no entries */
	bool gone;			/* released: refuse registrations */
	u64 gen;			/* see reg_changed() */
	atomic_t dropped;		/* claimed by reg_mm_drop() */
	u32 nwatch;			/* under @lock */
	struct reg_watch watch[REG_WATCH_MAX];
	struct rcu_head rcu;
};

static DEFINE_HASHTABLE(reg_hash, 8);
static DEFINE_RAW_SPINLOCK(reg_hash_lock);
static atomic_t reg_nr_mm = ATOMIC_INIT(0);

/* The source of every reg_mm's generation: values are never reused. */
static atomic64_t reg_gen = ATOMIC64_INIT(1);

/* Bytes of replaced sets waiting for a grace period. */
static atomic_long_t reg_pending = ATOMIC_LONG_INIT(0);
#define REG_PENDING_MAX		(4L << 20)

/* Bytes of live registry memory (sets and per-mm state), for the stats. */
static atomic_long_t reg_bytes = ATOMIC_LONG_INIT(0);

/**
 * ustack_registry_memory() - bytes of live registry memory
 *
 * Return: the bytes of sets and per-mm state allocated now (stats).
 */
long ustack_registry_memory(void)
{
	return atomic_long_read(&reg_bytes);
}

/*
 * After every change of @um's entries (added, removed, hidden, dropped),
 * under @um->lock: a new generation, unique across all mms (a new mm at a
 * freed one's address never matches a rule cached for the old one), so
 * that only the mm's own changes invalidate rules cached for it.
 */
static void reg_changed(struct reg_mm *um)
{
	lockdep_assert_held(&um->lock);
	/* Release: a reader that sees the value sees the change. */
	smp_store_release(&um->gen, (u64)atomic64_inc_return(&reg_gen));
}

static struct reg_mm *reg_find_mm(struct mm_struct *mm);

/**
 * ustack_registry_generation() - the generation of one mm's registry
 * @mm: the address space
 *
 * Return: a value that changes after every registration change of @mm,
 * never the value of another mm, 0 if @mm has no registry (no rule may be
 * cached then); a lookup after reading it sees every change made before it
 * (acquire).
 */
u64 ustack_registry_generation(struct mm_struct *mm)
{
	struct reg_mm *um;

	if (hash_empty(reg_hash))
		return 0;
	guard(rcu)();
	um = reg_find_mm(mm);
	/* Acquire: pairs with reg_changed(); the lookup comes after. */
	return um ? smp_load_acquire(&um->gen) : 0;
}

/* ---- sets ---------------------------------------------------------- */

static struct reg_set *reg_set_alloc(u32 nr, gfp_t gfp)
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
static void reg_set_free(struct reg_set *s)
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

static void reg_set_put(struct reg_set *s)
{
	if (s && refcount_dec_and_test(&s->ref)) {
		reg_set_uncount(s);
		atomic_long_add(struct_size(s, ent, s->cap), &reg_pending);
		call_rcu(&s->rcu, reg_set_rcu_free);
	}
}

/* Bound what waits for grace periods.  May sleep; no lock held. */
static void reg_throttle(void)
{
	if (atomic_long_read(&reg_pending) > REG_PENDING_MAX)
		rcu_barrier();
}

static void reg_set_add(struct reg_set *s, const struct reg_ent *e)
{
	s->ent[s->nr++] = *e;
	s->ent[s->nr - 1].dead = false;
	s->bytes += e->sf_hi - e->sf_lo;
}

static inline u32 reg_live(const struct reg_set *s)
{
	u32 i, n = 0;

	for (i = 0; s && i < s->nr; i++)
		n += !READ_ONCE(s->ent[i].dead);
	return n;
}

static inline bool reg_overlap(u64 a_lo, u64 a_hi, u64 b_lo, u64 b_hi)
{
	return a_lo < b_hi && b_lo < a_hi;
}

/* ---- the mm table -------------------------------------------------- */

static struct reg_mm *reg_find_mm(struct mm_struct *mm)
{
	struct reg_mm *um;

	hash_for_each_possible_rcu(reg_hash, um, node, (unsigned long)mm)
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
static void reg_mm_drop(struct reg_mm *um)
{
	struct reg_set *old;

	scoped_guard(raw_spinlock, &um->lock) {
		um->gone = true;
		old = rcu_dereference_protected(um->set,
						lockdep_is_held(&um->lock));
		RCU_INIT_POINTER(um->set, NULL);
		reg_changed(um);
	}
	reg_set_put(old);
	scoped_guard(raw_spinlock, &reg_hash_lock)
		hash_del_rcu(&um->node);
	atomic_dec(&reg_nr_mm);
	atomic_long_sub(sizeof(*um), &reg_bytes);
	call_rcu(&um->rcu, reg_mm_free);
}

/* Entries of @s hit by unmapping [lo, hi). */
static u32 reg_hits(const struct reg_set *s, u64 lo, u64 hi)
{
	const struct reg_ent *e;
	u32 i, n = 0;

	for (i = 0; s && i < s->nr; i++) {
		e = &s->ent[i];
		if (READ_ONCE(e->dead))
			continue;
		n += reg_overlap(e->sec.text_lo, e->sec.text_hi, lo, hi) ||
		     reg_overlap(e->sf_lo, e->sf_hi, lo, hi);
	}
	return n;
}

/* Stop watching the ranges that [lo, hi) overlaps: were there any? */
static bool reg_unwatch(struct reg_mm *um, u64 lo, u64 hi)
{
	u32 i = 0, n = um->nwatch, left = n;

	lockdep_assert_held(&um->lock);
	while (i < left) {
		if (reg_overlap(um->watch[i].lo, um->watch[i].hi, lo, hi))
			um->watch[i] = um->watch[--left];
		else
			i++;
	}
	WRITE_ONCE(um->nwatch, left);
	return left != n;
}

/*
 * [lo, hi) of @mm is being unmapped (or its pages moved away): hide the
 * entries it overlaps.  Atomic context, must not allocate.
 */
static void reg_unmapped(struct mm_struct *mm, u64 lo, u64 hi)
{
	struct reg_mm *um;
	struct reg_set *s;
	struct reg_ent *e;
	u32 i;

	if (!mm || lo >= hi || hash_empty(reg_hash))
		return;
	guard(rcu)();
	um = reg_find_mm(mm);
	/*
	 * A watch added after this read is added under a generation whose
	 * readers looked the mapping up after it was detached.
	 */
	if (!um || (!reg_hits(rcu_dereference(um->set), lo, hi) &&
		    !READ_ONCE(um->nwatch)))
		return;

	guard(raw_spinlock)(&um->lock);
	s = rcu_dereference_protected(um->set, lockdep_is_held(&um->lock));
	if (!reg_unwatch(um, lo, hi) && !reg_hits(s, lo, hi))
		return;
	/* Hidden in place: readers check the flag, the set is this mm's. */
	for (i = 0; s && i < s->nr; i++) {
		e = &s->ent[i];
		if (!e->dead &&
		    (reg_overlap(e->sec.text_lo, e->sec.text_hi, lo, hi) ||
		     reg_overlap(e->sf_lo, e->sf_hi, lo, hi))) {
			WRITE_ONCE(e->dead, true);
			s->bytes -= e->sf_hi - e->sf_lo;
		}
	}
	reg_changed(um);
}

#if USTACK_REG_FOLLOW_UNMAP == USTACK_REG_FOLLOW_REMOVE_VMA
/* remove_vma(vma) (7.2): each VMA an unmapping took away (compat.h). */
static int reg_kp_remove(struct kprobe *kp, struct pt_regs *regs)
{
	struct vm_area_struct *vma;

	vma = (struct vm_area_struct *)regs_get_kernel_argument(regs, 0);
	if (vma)
		reg_unmapped(vma->vm_mm, vma->vm_start, vma->vm_end);
	return 0;
}

static struct kprobe reg_kps[] = {
	{ .symbol_name = "remove_vma", .pre_handler = reg_kp_remove },
};
#else
/*
 * unmap_vmas(tlb, mt or mas, vma, start, end, ...) on 6.1 and 6.12:
 * munmap, MAP_FIXED over, mremap's old range, brk, exit.
 */
static int reg_kp_unmap(struct kprobe *kp, struct pt_regs *regs)
{
	struct vm_area_struct *vma;

	vma = (struct vm_area_struct *)regs_get_kernel_argument(regs, 2);
	if (vma)
		reg_unmapped(vma->vm_mm, regs_get_kernel_argument(regs, 3),
			     regs_get_kernel_argument(regs, 4));
	return 0;
}

/*
 * move_page_tables(vma, old_addr, new_vma, new_addr, len, ...): mremap
 * moves the pages away; with MREMAP_DONTUNMAP the old range stays mapped
 * but empty, and unmap_vmas() never sees it.
 */
static int reg_kp_move(struct kprobe *kp, struct pt_regs *regs)
{
	struct vm_area_struct *vma;
	unsigned long lo;

	vma = (struct vm_area_struct *)regs_get_kernel_argument(regs, 0);
	lo = regs_get_kernel_argument(regs, 1);
	if (vma)
		reg_unmapped(vma->vm_mm, lo,
			     lo + regs_get_kernel_argument(regs, 4));
	return 0;
}

static struct kprobe reg_kps[] = {
	{ .symbol_name = "unmap_vmas", .pre_handler = reg_kp_unmap },
	{ .symbol_name = "move_page_tables", .pre_handler = reg_kp_move },
};
#endif

static struct kprobe *reg_kpp[ARRAY_SIZE(reg_kps)];
static bool reg_kp_on;

/*
 * The probes are in place and none was ever missed: only then is an entry
 * known to be still mapped.
 */
static bool reg_sighted(void)
{
	unsigned int i;

	if (!READ_ONCE(reg_kp_on))
		return false;
	for (i = 0; i < ARRAY_SIZE(reg_kps); i++)
		if (READ_ONCE(reg_kps[i].nmissed))
			return false;
	return true;
}

/* The mm is being torn down (exit_mmap(), after its last unmapping). */
static void reg_tp_exit_mmap(void *data, struct mm_struct *mm)
{
	struct reg_mm *um;

	if (hash_empty(reg_hash))
		return;
	guard(rcu)();
	um = reg_find_mm(mm);
	/* Only this probe and module exit drop, never both. */
	if (um && !atomic_xchg(&um->dropped, 1))
		reg_mm_drop(um);
}

/*
 * The registry of @mm, created if needed.  The caller keeps @mm alive
 * (its exit_mmap has not run and cannot start).
 */
static struct reg_mm *reg_mm_of(struct mm_struct *mm)
{
	struct reg_mm *um, *old;

	scoped_guard(rcu)
		um = reg_find_mm(mm);
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
		old = reg_find_mm(mm);
		if (!old)
			hash_add_rcu(reg_hash, &um->node, (unsigned long)mm);
	}
	if (old) {
		kfree(um);
		return old;
	}
	atomic_inc(&reg_nr_mm);
	atomic_long_add(sizeof(*um), &reg_bytes);
	return um;
}

/* The registry of @mm for a registration, under mmap_lock held for write. */
static struct reg_mm *reg_get_mm(struct mm_struct *mm)
{
	struct reg_mm *um;

	mmap_assert_write_locked(mm);
	um = reg_mm_of(mm);
	if (!IS_ERR(um) && um->gone)
		return ERR_PTR(-ESRCH);
	return um;
}

/**
 * ustack_registry_watch() - may a mapping's rules be cached?
 * @lo: start of a text range of current->mm with a section that is not
 *      registered (the file's own SFrame, or the store's)
 * @hi: its end
 * @gen: the mm's generation, read before that section was looked up
 *
 * Rules may stay in a rule cache under the mm's generation only while any
 * unmapping of their text changes it: for a registered section the probes
 * see to that; for these, the range must have been watched since before
 * @gen.  A range not watched yet is watched from now on (under a new
 * generation, so that no walk that read the old one may cache it), so
 * that later walks may cache its rules.  At most REG_WATCH_MAX ranges per
 * mm; an unmapping ends the watch of the ranges it touches.
 *
 * Sleeps (the mm's registry may be created).
 *
 * Return: true if rules of [@lo, @hi) looked up after reading @gen may be
 * cached under @gen.
 */
bool ustack_registry_watch(u64 lo, u64 hi, u64 gen)
{
	struct mm_struct *mm = current->mm;
	struct reg_mm *um;
	u32 i;

	might_sleep();
	if (!mm || lo >= hi || !reg_sighted())
		return false;
	/* @mm is ours: alive until we are done. */
	um = reg_mm_of(mm);
	if (IS_ERR(um))
		return false;
	guard(raw_spinlock)(&um->lock);
	for (i = 0; i < um->nwatch; i++)
		if (lo >= um->watch[i].lo && hi <= um->watch[i].hi)
			return gen && um->gen == gen;
	if (um->gone || um->nwatch == REG_WATCH_MAX)
		return false;
	um->watch[um->nwatch].lo = lo;
	um->watch[um->nwatch].hi = hi;
	WRITE_ONCE(um->nwatch, um->nwatch + 1);
	reg_changed(um);
	return false;
}

/* ---- registration -------------------------------------------------- */

#define reg_refuse(err, why)						\
	({								\
		pr_info_ratelimited("pid %d (%s): sframe register refused: %s\n", \
				    task_tgid_nr(current), current->comm, why); \
		(err);							\
	})

/*
 * [lo, hi) is covered by VMAs without holes, each with all of @flags.
 * Returns 0, -ENXIO (hole) or -EACCES (flags).
 */
static int reg_check_vmas(struct mm_struct *mm, u64 lo, u64 hi,
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
 * Check a request for current->mm: the ranges, their mappings (without
 * holding mmap_lock across the section's reads) and the section itself.
 * 0 and @e filled, or a negative errno.
 */
static int reg_check(struct mm_struct *mm, u64 sf, u64 sf_len, u64 lo, u64 hi,
		     struct reg_ent *e)
{
	int err;

	if (!mm)
		return -EINVAL;
	if (!sf_len || lo >= hi || sf + sf_len < sf)
		return reg_refuse(-EINVAL, "empty or wrapping range");
	if (hi > TASK_SIZE || sf + sf_len > TASK_SIZE)
		return reg_refuse(-EFAULT, "range outside user space");
	if (sf_len > REG_MAX_BYTES)
		return reg_refuse(-EDQUOT, "section larger than the byte cap");

	/* Mapped first (clear errors), then the section, without mmap_lock. */
	if (mmap_read_lock_killable(mm))
		return -EINTR;
	err = reg_check_vmas(mm, lo, hi, VM_EXEC);
	if (!err)
		err = reg_check_vmas(mm, sf, sf + sf_len, VM_READ);
	mmap_read_unlock(mm);
	if (err)
		return reg_refuse(err, err == -ENXIO ? "range not mapped" :
				   "text not executable or SFrame not readable");

	err = ustack_sframe_sec_init(&e->sec, sf, sf_len, sf, lo, hi);
	if (!err)
		err = ustack_sframe_validate(&e->sec);
	if (err) {
		pr_info_ratelimited("pid %d (%s): sframe register refused: section: %s\n",
				    task_tgid_nr(current), current->comm,
				    ustack_sframe_strerror(err));
		return ustack_sframe_errno(err, -EBADMSG);
	}
	e->sf_lo = sf;
	e->sf_hi = sf + sf_len;
	return 0;
}

/* @e's ranges are still mapped as checked.  mmap_lock held. */
static int reg_check_mapped(struct mm_struct *mm, const struct reg_ent *e)
{
	int err;

	mmap_assert_locked(mm);
	err = reg_check_vmas(mm, e->sec.text_lo, e->sec.text_hi, VM_EXEC);
	if (err)
		return reg_refuse(err, err == -ENXIO ? "text range not mapped" :
				   "text range not executable");
	err = reg_check_vmas(mm, e->sf_lo, e->sf_hi, VM_READ);
	if (err)
		return reg_refuse(err, err == -ENXIO ? "SFrame range not mapped" :
				   "SFrame range not readable");
	return 0;
}

/* Allocate a set with room for @um's live entries and one more. */
static struct reg_set *reg_alloc_one_more(struct reg_mm *um)
{
	struct reg_set *s;
	u32 want;

	scoped_guard(rcu)
		want = reg_live(rcu_dereference(um->set)) + 1;
	if (want > REG_MAX_ENTRIES)
		return ERR_PTR(reg_refuse(-ENOSPC, "too many registrations"));
	s = reg_set_alloc(want, GFP_KERNEL);
	return s ? s : ERR_PTR(-ENOMEM);
}

/*
 * Merge @e with @um's live entries into @s, in text order, and publish
 * @s: 0 and *@old the set it replaces, -EAGAIN if @s was sized for
 * another count (the set changed meanwhile), -EEXIST or -EDQUOT.
 */
static int reg_merge(struct reg_mm *um, struct reg_set *s,
		     const struct reg_ent *e, struct reg_set **oldp)
{
	struct reg_set *old;
	bool placed = false;
	u32 i;

	guard(raw_spinlock)(&um->lock);
	old = rcu_dereference_protected(um->set, lockdep_is_held(&um->lock));
	if (s->cap != reg_live(old) + 1)
		return -EAGAIN;
	if (old && old->bytes + (e->sf_hi - e->sf_lo) > REG_MAX_BYTES)
		return -EDQUOT;
	for (i = 0; old && i < old->nr; i++) {
		const struct reg_ent *o = &old->ent[i];

		if (READ_ONCE(o->dead))
			continue;
		if (reg_overlap(o->sec.text_lo, o->sec.text_hi,
				e->sec.text_lo, e->sec.text_hi) ||
		    reg_overlap(o->sf_lo, o->sf_hi, e->sf_lo, e->sf_hi))
			return -EEXIST;
		if (!placed && o->sec.text_lo > e->sec.text_lo) {
			reg_set_add(s, e);
			placed = true;
		}
		reg_set_add(s, o);
	}
	if (!placed)
		reg_set_add(s, e);
	rcu_assign_pointer(um->set, s);
	reg_changed(um);
	*oldp = old;
	return 0;
}

/**
 * ustack_registry_register() - register an SFrame section for current->mm
 * @sf: the section's user address
 * @sf_len: its length in bytes
 * @lo: start of the text it describes
 * @hi: end of that text
 *
 * Checks the request and the whole section, then adds it to the mm's set
 * under mmap_lock held for write (so that no unmapping races the final
 * check of the mappings).  May sleep.
 *
 * Return: 0 or a negative errno (see registry.h).
 */
int ustack_registry_register(u64 sf, u64 sf_len, u64 lo, u64 hi)
{
	struct mm_struct *mm = current->mm;
	struct reg_set *old = NULL, *s;
	struct reg_ent e = {};
	struct reg_mm *um;
	int err;

	might_sleep();
	if (!reg_sighted())
		return reg_refuse(-EOPNOTSUPP, "unmappings cannot be followed");
	err = reg_check(mm, sf, sf_len, lo, hi, &e);
	if (err)
		return err;
	if (mmap_write_lock_killable(mm))
		return -EINTR;
	err = reg_check_mapped(mm, &e);
	if (err)
		goto unlock;
	um = reg_get_mm(mm);
	if (IS_ERR(um)) {
		err = PTR_ERR(um);
		goto unlock;
	}
	do {
		s = reg_alloc_one_more(um);
		if (IS_ERR(s)) {
			err = PTR_ERR(s);
			goto unlock;
		}
		err = reg_merge(um, s, &e, &old);
		if (err)
			reg_set_free(s);
	} while (err == -EAGAIN);
	if (!err)
		reg_set_put(old);
	else if (err == -EEXIST)
		reg_refuse(err, "overlaps an existing registration");
	else if (err == -EDQUOT)
		reg_refuse(err, "byte cap exceeded");
unlock:
	mmap_write_unlock(mm);
	reg_throttle();
	return err;
}

/**
 * ustack_registry_unregister() - drop a registration of current->mm
 * @sf: the section's user address, as registered
 * @lo: the text start as registered, or 0 for any
 * @hi: the text end as registered, or 0 for any
 *
 * May sleep (allocates the new set).
 *
 * Return: 0, -ENOENT (no such registration), -EINVAL, -ENOMEM.
 */
int ustack_registry_unregister(u64 sf, u64 lo, u64 hi)
{
	struct mm_struct *mm = current->mm;
	struct reg_set *old, *s = NULL;
	struct reg_mm *um;
	u32 i, want = 0;
	int found;

	if (!mm)
		return -EINVAL;
	rcu_read_lock();
	um = reg_find_mm(mm);
	rcu_read_unlock();
	if (!um)
		return -ENOENT;
	/* @um lives as long as @mm, which is ours. */
	for (;;) {
		raw_spin_lock(&um->lock);
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
			raw_spin_unlock(&um->lock);
			reg_set_free(s);
			return -ENOENT;
		}
		if (reg_live(old) == 1 || (s && want == reg_live(old) - 1))
			break;
		want = reg_live(old) - 1;
		raw_spin_unlock(&um->lock);
		reg_set_free(s);
		s = reg_set_alloc(want, GFP_KERNEL);
		if (!s)
			return -ENOMEM;
	}
	if (reg_live(old) == 1) {
		reg_set_free(s);
		s = NULL;
	} else {
		for (i = 0; i < old->nr; i++)
			if (i != found && !READ_ONCE(old->ent[i].dead))
				reg_set_add(s, &old->ent[i]);
	}
	rcu_assign_pointer(um->set, s);
	reg_changed(um);
	raw_spin_unlock(&um->lock);
	reg_set_put(old);
	reg_throttle();
	return 0;
}

/**
 * ustack_registry_lookup() - the registered section covering a PC
 * @mm: the address space
 * @pc: a user address
 * @sec: set to a copy of the section, if one covers @pc
 * @gap_lo: else set to the start of the gap between registrations at @pc
 * @gap_hi: and to its end
 *
 * Never sleeps: reads the set under RCU.
 *
 * Return: true if @sec was set.
 */
bool ustack_registry_lookup(struct mm_struct *mm, u64 pc, struct sframe_sec *sec,
		 u64 *gap_lo, u64 *gap_hi)
{
	const struct reg_set *s;
	const struct reg_ent *e;
	struct reg_mm *um;
	u32 lo = 0, hi, mid;
	bool found = false;

	*gap_lo = 0;
	*gap_hi = TASK_SIZE;
	if (hash_empty(reg_hash) || !reg_sighted())
		return false;
	rcu_read_lock();
	um = reg_find_mm(mm);
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
 * from a workqueue, or GFP_ATOMIC on other kernels when it runs dry.  Each
 * queued item holds a module reference until it has run (task_work always
 * runs: at return to user space, or at exit).
 */
#define UFORK_POOL	64

struct ufork {
	struct callback_head cb;
	struct reg_set *set;
	DECLARE_BITMAP(dead, REG_MAX_ENTRIES);	/* entries dead at fork */
};

static DEFINE_RAW_SPINLOCK(ufork_lock);
static struct ufork *ufork_pool[2 * UFORK_POOL];	/* refilled to half */
static unsigned int ufork_nr;
static struct tracepoint *ufork_tp;

static void ufork_refill(struct work_struct *w)
{
	struct ufork *f;
	bool full;

	do {
		f = kmalloc(sizeof(*f), GFP_KERNEL);
		if (!f)
			return;
		scoped_guard(raw_spinlock_irqsave, &ufork_lock) {
			full = ufork_nr >= UFORK_POOL;
			if (!full)
				ufork_pool[ufork_nr++] = f;
		}
	} while (!full);
	kfree(f);
}

static DECLARE_WORK(ufork_refill_work, ufork_refill);

/* Back to the pool (atomic context: no kfree on PREEMPT_RT). */
static void ufork_pool_put(struct ufork *f)
{
	bool kept = false;

	scoped_guard(raw_spinlock_irqsave, &ufork_lock) {
		if (ufork_nr < ARRAY_SIZE(ufork_pool)) {
			ufork_pool[ufork_nr++] = f;
			kept = true;
		}
	}
	if (!kept)
		kfree(f);	/* not reached: 2x the refill level */
}

/* The child's mapping of @e is the parent's, as at fork. */
static bool reg_inherited(struct mm_struct *mm, const struct reg_ent *e)
{
	return !reg_check_vmas(mm, e->sec.text_lo, e->sec.text_hi, VM_EXEC) &&
	       !reg_check_vmas(mm, e->sf_lo, e->sf_hi, VM_READ);
}

/*
 * The child, before its first user instruction: a copy of the parent's
 * @set, never @set itself (an unmapping in either would hide entries in
 * both).  @dead: the entries already dead at fork (whatever is mapped
 * there now is not what was registered).  Entries the parent unmapped
 * since the fork are still the child's: its mappings decide
 * (MADV_DONTFORK ranges are not in the child).
 */
static void reg_inherit(struct mm_struct *mm, struct reg_set *set,
			const unsigned long *dead)
{
	struct reg_set *s, *old;
	struct reg_mm *um;
	u32 i, ok = 0;

	if (mmap_write_lock_killable(mm))
		return;
	for (i = 0; i < min_t(u32, set->nr, REG_MAX_ENTRIES); i++)
		ok += !test_bit(i, dead) && reg_inherited(mm, &set->ent[i]);
	if (!ok)
		goto unlock;
	s = reg_set_alloc(ok, GFP_KERNEL);
	if (!s)
		goto unlock;
	for (i = 0; i < set->nr && s->nr < ok; i++)
		if (!test_bit(i, dead) && reg_inherited(mm, &set->ent[i]))
			reg_set_add(s, &set->ent[i]);
	um = reg_get_mm(mm);
	if (IS_ERR(um)) {
		reg_set_free(s);
		goto unlock;
	}
	raw_spin_lock(&um->lock);
	old = rcu_dereference_protected(um->set, lockdep_is_held(&um->lock));
	if (!old) {
		rcu_assign_pointer(um->set, s);
		reg_changed(um);
	}
	raw_spin_unlock(&um->lock);
	if (old)
		reg_set_free(s);	/* cannot happen before user code */
unlock:
	mmap_write_unlock(mm);
}

static void ufork_run(struct callback_head *cb)
{
	struct ufork *f = container_of(cb, struct ufork, cb);

	if (current->mm && !(current->flags & PF_EXITING))
		reg_inherit(current->mm, f->set, f->dead);
	reg_set_put(f->set);
	kfree(f);
	module_put(THIS_MODULE);
}

static void ufork_probe(void *data, struct task_struct *parent,
			struct task_struct *child)
{
	struct reg_set *set = NULL;
	struct reg_mm *um;
	struct ufork *f = NULL;
	u32 i;

	/* the tracepoint runs with preemption off: no sleeping allocation */
	lockdep_assert_preemption_disabled();
	if (!child->mm || child->mm == parent->mm ||
	    (child->flags & PF_KTHREAD) || hash_empty(reg_hash))
		return;
	rcu_read_lock();
	um = reg_find_mm(parent->mm);
	if (um)
		set = rcu_dereference(um->set);
	if (set && !refcount_inc_not_zero(&set->ref))
		set = NULL;
	rcu_read_unlock();
	if (!set)
		return;
	scoped_guard(raw_spinlock_irqsave, &ufork_lock) {
		if (ufork_nr)
			f = ufork_pool[--ufork_nr];
	}
	schedule_work(&ufork_refill_work);
	/* A burst of forks: atomic allocation where that is allowed. */
	if (!f && !IS_ENABLED(CONFIG_PREEMPT_RT))
		f = kmalloc(sizeof(*f), GFP_ATOMIC | __GFP_NOWARN);
	if (!f) {
		pr_warn_ratelimited("pid %d: fork: no memory to copy SFrame registrations\n",
				    task_tgid_nr(child));
		reg_set_put(set);
		return;
	}
	if (!try_module_get(THIS_MODULE))
		goto undo;
	f->set = set;
	/*
	 * Dead now: unmapped before the fork (or by another thread since
	 * dup_mmap(): then the child loses an entry, never gains a stale one).
	 */
	bitmap_zero(f->dead, REG_MAX_ENTRIES);
	for (i = 0; i < min_t(u32, set->nr, REG_MAX_ENTRIES); i++)
		if (READ_ONCE(set->ent[i].dead))
			__set_bit(i, f->dead);
	init_task_work(&f->cb, ufork_run);
	if (!task_work_add(child, &f->cb, TWA_RESUME))
		return;
	module_put(THIS_MODULE);
undo:
	reg_set_put(set);
	ufork_pool_put(f);
}

/* ---- init/exit ----------------------------------------------------- */

static struct tracepoint *reg_exit_tp;

static void reg_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_fork"))
		ufork_tp = tp;
	else if (!strcmp(tp->name, "exit_mmap"))
		reg_exit_tp = tp;
}

/**
 * ustack_registry_init() - set up the probes that keep registrations true
 *
 * Without the tracepoints the module does not load; without the kprobes
 * (a kernel that cannot probe those functions) it loads, but refuses
 * registrations.
 *
 * Return: 0 or a negative errno.
 */
int ustack_registry_init(void)
{
	unsigned int i;
	int err;

	ufork_refill(NULL);
	for_each_kernel_tracepoint(reg_find_tp, NULL);
	if (!ufork_tp || !reg_exit_tp) {
		pr_err("no sched_process_fork or exit_mmap tracepoint\n");
		err = -ENOENT;
		goto fail;
	}
	err = tracepoint_probe_register(reg_exit_tp, reg_tp_exit_mmap, NULL);
	if (err)
		goto fail;
	err = tracepoint_probe_register(ufork_tp, ufork_probe, NULL);
	if (err)
		goto fail_exit;
	for (i = 0; i < ARRAY_SIZE(reg_kps); i++)
		reg_kpp[i] = &reg_kps[i];
	err = USTACK_REG_FOLLOW_UNMAP ?
	      register_kprobes(reg_kpp, ARRAY_SIZE(reg_kpp)) : -EOPNOTSUPP;
	if (err)
		pr_warn("cannot probe %s (%d): SFrame registration is off\n",
			reg_kps[0].symbol_name, err);
	WRITE_ONCE(reg_kp_on, !err);
	return 0;
fail_exit:
	tracepoint_probe_unregister(reg_exit_tp, reg_tp_exit_mmap, NULL);
	tracepoint_synchronize_unregister();
fail:
	while (ufork_nr)
		kfree(ufork_pool[--ufork_nr]);
	return err;
}

/**
 * ustack_registry_exit() - drop every registry
 *
 * Called after /dev/sframe is gone (no ioctl can run) and after the walks
 * have stopped.  Pending fork works hold module references, so they are
 * done.  With the probes gone, drops the registry of every live mm and
 * waits for the frees.
 */
void ustack_registry_exit(void)
{
	struct reg_mm *um;
	int bkt;

	if (READ_ONCE(reg_kp_on))
		unregister_kprobes(reg_kpp, ARRAY_SIZE(reg_kpp));
	WRITE_ONCE(reg_kp_on, false);
	tracepoint_probe_unregister(ufork_tp, ufork_probe, NULL);
	tracepoint_probe_unregister(reg_exit_tp, reg_tp_exit_mmap, NULL);
	tracepoint_synchronize_unregister();
	cancel_work_sync(&ufork_refill_work);
	while (ufork_nr)
		kfree(ufork_pool[--ufork_nr]);

	rcu_read_lock();
	hash_for_each_rcu(reg_hash, bkt, um, node)
		if (!atomic_xchg(&um->dropped, 1))
			reg_mm_drop(um);
	rcu_read_unlock();
	WARN_ON(atomic_read(&reg_nr_mm));
	rcu_barrier();
}
