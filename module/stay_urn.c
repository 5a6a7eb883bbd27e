// SPDX-License-Identifier: GPL-2.0
/*
 * The stay's end on a kernel with user-return notifiers (x86): the
 * notifier fires last on the exit path, IRQs off.  It is armed on the CPU
 * where the task runs, parked when the task is switched out and re-armed
 * on the CPU it is switched in on, so that migration while in the kernel
 * is covered too.  The notifier lists are per CPU and unlocked: only
 * their own CPU edits them, with IRQs off and NMI requests on this CPU
 * refused meanwhile (nmi_excl.h).  An NMI cannot edit them at all: the
 * request's irq_work arms the notifier instead (ustack_return_kick()).
 */
#include <linux/lockdep.h>
#include <linux/smp.h>
#include <linux/user-return-notifier.h>
#include "nmi_excl.h"
#include "stay_return.h"
#include "task_pool.h"

static void (*return_fired)(struct ustack_task *st);

static void on_user_return(struct user_return_notifier *urn)
{
	return_fired(container_of(urn, struct ustack_task, ret.urn));
}

static void urn_disarm(struct ustack_task *st)
{
	lockdep_assert_irqs_disabled();
	/* The notifier list is per CPU, with no lock: only its CPU edits it. */
	WARN_ON_ONCE(st->ret.on && st->ret.cpu != smp_processor_id());
	if (st->ret.on) {
		user_return_notifier_unregister(&st->ret.urn);
		st->ret.on = false;
	}
}

static void urn_arm(struct ustack_task *st)
{
	lockdep_assert_irqs_disabled();
	if (st->ret.on)
		return;
	st->ret.parked = false;
	st->ret.on = true;
	st->ret.cpu = smp_processor_id();
	st->ret.urn.on_user_return = on_user_return;
	user_return_notifier_register(&st->ret.urn);
}

void ustack_return_watch(struct ustack_task *st, bool nmi)
{
	if (!nmi)
		urn_arm(st);
	else if (!st->ret.on)
		st->ret.parked = true;
}

void ustack_return_unwatch(struct ustack_task *st)
{
	urn_disarm(st);
	st->ret.parked = false;
}

void ustack_return_switch_out(struct ustack_task *st)
{
	if (st->ret.on) {
		urn_disarm(st);
		st->ret.parked = true;
	}
}

void ustack_return_switch_in(struct ustack_task *st)
{
	if (st->ret.parked)
		urn_arm(st);
}

/* Still current: arm what the NMI parked (else the next switch-in does). */
void ustack_return_kick(struct ustack_task *st)
{
	ustack_return_switch_in(st);
}

void ustack_return_init(void (*fired)(struct ustack_task *st))
{
	return_fired = fired;
}

/* The notifier needs nothing put in. */
int ustack_return_enable(void)
{
	return 0;
}

static void disarm_this_cpu(void *unused)
{
	int cpu = smp_processor_id();
	u32 i;

	guard(ustack_nmi_excl)();
	for (i = 0; i < ustack_deferred_max_tasks; i++) {
		struct ustack_task *st = ustack_task_at(i);

		if (st->ret.on && st->ret.cpu == cpu)
			urn_disarm(st);
	}
}

void ustack_return_exit(void)
{
	on_each_cpu(disarm_this_cpu, NULL, 1);
}
