// SPDX-License-Identifier: GPL-2.0
/*
 * The life of a registered mm.  Two probes keep the registry true,
 * neither taking a global lock:
 *   kprobes on unmap_vmas() (7.2: remove_vma()) and move_page_tables()
 *                          every unmapping of a range (munmap, MAP_FIXED
 *                          over, mremap's old range, also with
 *                          MREMAP_DONTUNMAP; exit): hide the entries whose
 *                          text or SFrame range overlaps it.  Which
 *                          functions, and what they are passed, differs
 *                          by kernel (compat.h).
 *   the exit_mmap tracepoint the mm is torn down: drop the reg_mm before
 *                          the mm_struct can be freed (and its address
 *                          reused by a new mm).
 * An mmu_notifier would do the same, but registering one calls
 * mm_take_all_locks(): the global mm_all_locks_mutex and every anon_vma
 * and i_mmap lock of the address space, per registering process and per
 * fork of one (seconds for 60000 VMAs).  Should a probe ever be missed
 * (kprobe recursion) or be passed what it does not expect, no
 * registration is served or accepted any more.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cleanup.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include "compat.h"
#include "registry_mm.h"

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

	if (!mm || lo >= hi || ustack_reg_none())
		return;
	guard(rcu)();
	um = ustack_reg_find_mm(mm);
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
	ustack_reg_changed(um);
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

/* A move_page_tables() argument not of the layout compat.h knows. */
static bool reg_kp_confused;

/*
 * move_page_tables(pmc) (7.2): mremap moves the pages of [old_addr,
 * old_end) of pmc->old away; with MREMAP_DONTUNMAP the range stays mapped
 * but empty, and remove_vma() never sees it.  The struct is mm/'s own
 * (compat.h has its opening): its VMA is read without faulting and must
 * be current's and hold the range, else the registry stops trusting its
 * probes, as if one had been missed.
 */
static int reg_kp_move(struct kprobe *kp, struct pt_regs *regs)
{
	struct ustack_pagetable_move_control pmc;
	struct vm_area_struct *vma;
	struct mm_struct *mm;
	unsigned long start, end;

	if (copy_from_kernel_nofault(&pmc, (void *)regs_get_kernel_argument(regs, 0),
				     sizeof(pmc)))
		goto confused;
	vma = pmc.old;
	if (copy_from_kernel_nofault(&mm, &vma->vm_mm, sizeof(mm)) ||
	    copy_from_kernel_nofault(&start, &vma->vm_start, sizeof(start)) ||
	    copy_from_kernel_nofault(&end, &vma->vm_end, sizeof(end)) ||
	    mm != current->mm || pmc.old_addr < start ||
	    pmc.old_addr > pmc.old_end || pmc.old_end > end)
		goto confused;
	reg_unmapped(mm, pmc.old_addr, pmc.old_end);
	return 0;
confused:
	WRITE_ONCE(reg_kp_confused, true);
	return 0;
}

static struct kprobe reg_kps[] = {
	{ .symbol_name = "remove_vma", .pre_handler = reg_kp_remove },
	{ .symbol_name = "move_page_tables", .pre_handler = reg_kp_move },
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

static const bool reg_kp_confused;
#endif

static struct kprobe *reg_kpp[ARRAY_SIZE(reg_kps)];
static bool reg_kp_on;

/*
 * The probes are in place and none was ever missed: only then is an entry
 * known to be still mapped.
 */
bool ustack_reg_sighted(void)
{
	unsigned int i;

	if (!READ_ONCE(reg_kp_on) || READ_ONCE(reg_kp_confused))
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

	if (ustack_reg_none())
		return;
	guard(rcu)();
	um = ustack_reg_find_mm(mm);
	/* Only this probe and module exit drop, never both. */
	if (um && !atomic_xchg(&um->dropped, 1))
		ustack_reg_mm_drop(um);
}


static void reg_find_exit_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "exit_mmap"))
		*(struct tracepoint **)priv = tp;
}

static struct tracepoint *reg_exit_tp;

/**
 * ustack_reg_probes_init() - put in the probes that follow registered mms
 *
 * Without the exit_mmap tracepoint the module does not load; without the
 * kprobes (a kernel that cannot probe those functions) it loads, but
 * refuses registrations.
 *
 * Return: 0 or a negative errno.
 */
int ustack_reg_probes_init(void)
{
	unsigned int i;
	int err;

	for_each_kernel_tracepoint(reg_find_exit_tp, &reg_exit_tp);
	if (!reg_exit_tp) {
		pr_err("no exit_mmap tracepoint\n");
		return -ENOENT;
	}
	err = tracepoint_probe_register(reg_exit_tp, reg_tp_exit_mmap, NULL);
	if (err)
		return err;
	for (i = 0; i < ARRAY_SIZE(reg_kps); i++)
		reg_kpp[i] = &reg_kps[i];
	err = USTACK_REG_FOLLOW_UNMAP ?
	      register_kprobes(reg_kpp, ARRAY_SIZE(reg_kpp)) : -EOPNOTSUPP;
	if (err)
		pr_warn("cannot probe %s (%d): SFrame registration is off\n",
			reg_kps[0].symbol_name, err);
	WRITE_ONCE(reg_kp_on, !err);
	return 0;
}

/**
 * ustack_reg_probes_exit() - take the probes out
 *
 * No probe runs after it returns.
 */
void ustack_reg_probes_exit(void)
{
	if (READ_ONCE(reg_kp_on))
		unregister_kprobes(reg_kpp, ARRAY_SIZE(reg_kpp));
	WRITE_ONCE(reg_kp_on, false);
	tracepoint_probe_unregister(reg_exit_tp, reg_tp_exit_mmap, NULL);
	tracepoint_synchronize_unregister();
}
