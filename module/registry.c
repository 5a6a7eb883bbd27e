// SPDX-License-Identifier: GPL-2.0
/*
 * The per-mm SFrame registry: registration, unregistration and lookup of
 * the SFrame sections a process says cover its text (/dev/sframe).
 *
 * A registration is checked against the caller's mappings (text
 * executable, SFrame readable, no overlap) and its section validated
 * whole, in the caller's context; a lookup (the walk) binary-searches the
 * mm's set under RCU and copies the entry out.  The sets and their table
 * are registry_mm.c's, the probes that hide unmapped entries and drop a
 * torn-down mm's registry_probes.c's, a child's copy registry_fork.c's.
 *
 * The SFrame bytes stay in user memory: they are read at walk time and
 * never pinned.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cleanup.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include "ustack_limits.h"
#include "registry.h"
#include "registry_mm.h"

/* ---- registration -------------------------------------------------- */

#define reg_refuse(err, why)						\
	({								\
		pr_info_ratelimited("pid %d (%s): sframe register refused: %s\n", \
				    task_tgid_nr(current), current->comm, why); \
		(err);							\
	})

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
	err = ustack_reg_check_vmas(mm, lo, hi, VM_EXEC);
	if (!err)
		err = ustack_reg_check_vmas(mm, sf, sf + sf_len, VM_READ);
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
	err = ustack_reg_check_vmas(mm, e->sec.text_lo, e->sec.text_hi, VM_EXEC);
	if (err)
		return reg_refuse(err, err == -ENXIO ? "text range not mapped" :
				   "text range not executable");
	err = ustack_reg_check_vmas(mm, e->sf_lo, e->sf_hi, VM_READ);
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
	s = ustack_reg_set_alloc(want, GFP_KERNEL);
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
	ustack_reg_changed(um);
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
	if (!ustack_reg_sighted())
		return reg_refuse(-EOPNOTSUPP, "unmappings cannot be followed");
	err = reg_check(mm, sf, sf_len, lo, hi, &e);
	if (err)
		return err;
	if (mmap_write_lock_killable(mm))
		return -EINTR;
	err = reg_check_mapped(mm, &e);
	if (err)
		goto unlock;
	um = ustack_reg_get_mm(mm);
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
			ustack_reg_set_free(s);
	} while (err == -EAGAIN);
	if (!err)
		ustack_reg_set_put(old);
	else if (err == -EEXIST)
		reg_refuse(err, "overlaps an existing registration");
	else if (err == -EDQUOT)
		reg_refuse(err, "byte cap exceeded");
unlock:
	mmap_write_unlock(mm);
	ustack_reg_throttle();
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
	um = ustack_reg_find_mm(mm);
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
			ustack_reg_set_free(s);
			return -ENOENT;
		}
		if (reg_live(old) == 1 || (s && want == reg_live(old) - 1))
			break;
		want = reg_live(old) - 1;
		raw_spin_unlock(&um->lock);
		ustack_reg_set_free(s);
		s = ustack_reg_set_alloc(want, GFP_KERNEL);
		if (!s)
			return -ENOMEM;
	}
	if (reg_live(old) == 1) {
		ustack_reg_set_free(s);
		s = NULL;
	} else {
		for (i = 0; i < old->nr; i++)
			if (i != found && !READ_ONCE(old->ent[i].dead))
				reg_set_add(s, &old->ent[i]);
	}
	rcu_assign_pointer(um->set, s);
	ustack_reg_changed(um);
	raw_spin_unlock(&um->lock);
	ustack_reg_set_put(old);
	ustack_reg_throttle();
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
	if (ustack_reg_none() || !ustack_reg_sighted())
		return false;
	rcu_read_lock();
	um = ustack_reg_find_mm(mm);
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


/**
 * ustack_registry_memory() - bytes of live registry memory
 *
 * Return: the bytes of sets and per-mm state allocated now (stats).
 */
long ustack_registry_memory(void)
{
	return ustack_reg_bytes();
}

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

	if (ustack_reg_none())
		return 0;
	guard(rcu)();
	um = ustack_reg_find_mm(mm);
	/* Acquire: pairs with ustack_reg_changed(); the lookup comes after. */
	return um ? smp_load_acquire(&um->gen) : 0;
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
	if (!mm || lo >= hi || !ustack_reg_sighted())
		return false;
	/* @mm is ours: alive until we are done. */
	um = ustack_reg_mm_of(mm);
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
	ustack_reg_changed(um);
	return false;
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
	int err;

	err = ustack_reg_probes_init();
	if (err)
		return err;
	err = ustack_reg_fork_init();
	if (err)
		ustack_reg_probes_exit();
	return err;
}

/**
 * ustack_registry_exit() - drop every registry
 *
 * Called after /dev/sframe is gone (no ioctl can run) and after the walks
 * have stopped.  With the probes gone, drops the registry of every live
 * mm and waits for the frees.
 */
void ustack_registry_exit(void)
{
	ustack_reg_fork_exit();
	ustack_reg_probes_exit();
	ustack_reg_drop_all();
}
