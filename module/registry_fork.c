// SPDX-License-Identifier: GPL-2.0
/*
 * Registrations across fork.  An array of entries belongs to one mm: fork
 * copies the parent's into the child (a task_work queued on the child
 * from the sched_process_fork tracepoint, run before the child's first
 * user instruction), so that one's unmapping never hides an entry of the
 * other; exec gets a new mm, which has no registry.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/cleanup.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include "registry_mm.h"

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
	return !ustack_reg_check_vmas(mm, e->sec.text_lo, e->sec.text_hi, VM_EXEC) &&
	       !ustack_reg_check_vmas(mm, e->sf_lo, e->sf_hi, VM_READ);
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
	s = ustack_reg_set_alloc(ok, GFP_KERNEL);
	if (!s)
		goto unlock;
	for (i = 0; i < set->nr && s->nr < ok; i++)
		if (!test_bit(i, dead) && reg_inherited(mm, &set->ent[i]))
			reg_set_add(s, &set->ent[i]);
	um = ustack_reg_get_mm(mm);
	if (IS_ERR(um)) {
		ustack_reg_set_free(s);
		goto unlock;
	}
	raw_spin_lock(&um->lock);
	old = rcu_dereference_protected(um->set, lockdep_is_held(&um->lock));
	if (!old) {
		rcu_assign_pointer(um->set, s);
		ustack_reg_changed(um);
	}
	raw_spin_unlock(&um->lock);
	if (old)
		ustack_reg_set_free(s);	/* cannot happen before user code */
unlock:
	mmap_write_unlock(mm);
}

static void ufork_run(struct callback_head *cb)
{
	struct ufork *f = container_of(cb, struct ufork, cb);

	if (current->mm && !(current->flags & PF_EXITING))
		reg_inherit(current->mm, f->set, f->dead);
	ustack_reg_set_put(f->set);
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
	    (child->flags & PF_KTHREAD) || ustack_reg_none())
		return;
	rcu_read_lock();
	um = ustack_reg_find_mm(parent->mm);
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
		ustack_reg_set_put(set);
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
	ustack_reg_set_put(set);
	ufork_pool_put(f);
}


static void ufork_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_fork"))
		ufork_tp = tp;
}

/**
 * ustack_reg_fork_init() - follow forks of registered processes
 *
 * Return: 0, or a negative errno (no sched_process_fork tracepoint).
 */
int ustack_reg_fork_init(void)
{
	int err;

	ufork_refill(NULL);
	for_each_kernel_tracepoint(ufork_find_tp, NULL);
	err = ufork_tp ? tracepoint_probe_register(ufork_tp, ufork_probe, NULL) :
			 -ENOENT;
	if (err) {
		if (!ufork_tp)
			pr_err("no sched_process_fork tracepoint\n");
		while (ufork_nr)
			kfree(ufork_pool[--ufork_nr]);
	}
	return err;
}

/**
 * ustack_reg_fork_exit() - stop following forks
 *
 * Pending fork works hold module references: none is left at module exit.
 */
void ustack_reg_fork_exit(void)
{
	tracepoint_probe_unregister(ufork_tp, ufork_probe, NULL);
	tracepoint_synchronize_unregister();
	cancel_work_sync(&ufork_refill_work);
	while (ufork_nr)
		kfree(ufork_pool[--ufork_nr]);
}
