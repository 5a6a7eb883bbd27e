/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sections an NMI on the same CPU must not enter.
 *
 * The engine's per-task state and the record ring are updated both from
 * NMI (hardware-cycle samples) and from ordinary context.  Ordinary
 * context updates them with IRQs off inside such a section; an NMI that
 * lands in one cannot wait for it to end (it runs on top of it), so it
 * backs off: the engine refuses the request, the ring counts a loss.
 * One per-CPU depth serves every such section of the module.
 */
#ifndef USTACK_NMI_EXCL_H
#define USTACK_NMI_EXCL_H

#include <linux/cleanup.h>
#include <linux/lockdep.h>
#include <linux/percpu.h>

DECLARE_PER_CPU(int, ustack_nmi_excl_depth);

static __always_inline void ustack_nmi_excl_enter(void)
{
	lockdep_assert_irqs_disabled();
	__this_cpu_inc(ustack_nmi_excl_depth);
	barrier();
}

static __always_inline void ustack_nmi_excl_leave(void)
{
	barrier();
	__this_cpu_dec(ustack_nmi_excl_depth);
}

/* In NMI: did we interrupt a section of this CPU? */
static __always_inline bool ustack_nmi_excl_busy(void)
{
	return __this_cpu_read(ustack_nmi_excl_depth);
}

/* guard(ustack_nmi_excl)(): the rest of the scope is such a section. */
DEFINE_LOCK_GUARD_0(ustack_nmi_excl, ustack_nmi_excl_enter(),
		    ustack_nmi_excl_leave())

#endif /* USTACK_NMI_EXCL_H */
