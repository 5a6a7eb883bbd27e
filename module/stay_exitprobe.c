// SPDX-License-Identifier: GPL-2.0
/*
 * The stay's end on a kernel without user-return notifiers (arm64).  The
 * exit path runs its work (rescheduling, signals, task_work) in a loop,
 * USTACK_EXIT_WORK (compat.h), entered with IRQs masked whenever a
 * work flag is set and left with them masked once none is: what follows
 * its return is the restore of the user's registers, so that return is
 * the real return to user space.  A stay always passes through it: its
 * walk's task_work sets TIF_NOTIFY_RESUME.
 *
 * A return probe on that function: its entry handler keeps an instance
 * only for a task whose stay has begun, which it marks seen; the return
 * handler ends that stay.  A stay that begins inside the loop (a request
 * at a switch-out while the exit work reschedules, a tick meanwhile)
 * was not there at the entry: its walk, which runs in the same loop,
 * ends it (ustack_return_watched()), without the clients' end of stay.
 * So does a walk that runs in a system call (io_uring's task_work) before
 * the exit work.  A request after such a walk, before the return, gets a
 * stay and a walk of its own: the one difference from x86, where one
 * kernel stay always has one cookie.
 *
 * Instances: a task holds one only while in the loop with a stay open,
 * which keeps its pool entry; maxactive covers the pool.  A miss
 * (nmissed, counted) is a stay its walk ends.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include "arch.h"
#include "compat.h"
#include "nmi_excl.h"
#include "stay_return.h"
#include "task_pool.h"

static void (*return_fired)(struct ustack_task *st);
static bool probed;

/* Entering the exit work: keep an instance for a task in a stay. */
static int exit_work_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ustack_task *st;

	lockdep_assert_irqs_disabled();
	guard(ustack_nmi_excl)();
	st = ustack_task_lookup(current);
	if (!st || !st->cookie)
		return 1;
	st->ret.seen = true;
	return 0;
}

/* Its return: the real return to user space. */
static int exit_work_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct ustack_task *st;

	lockdep_assert_irqs_disabled();
	st = ustack_task_lookup(current);
	if (st && st->ret.seen) {
		scoped_guard(ustack_nmi_excl)
			st->ret.seen = false;
		return_fired(st);
	}
	return 0;
}

static struct kretprobe exit_work_probe = {
	.kp.symbol_name = USTACK_EXIT_WORK,
	.entry_handler = exit_work_entry,
	.handler = exit_work_return,
};

void ustack_return_unwatch(struct ustack_task *st)
{
	st->ret.seen = false;
}

void ustack_return_init(void (*fired)(struct ustack_task *st))
{
	return_fired = fired;
}

/**
 * ustack_return_enable - put the return probe on the exit work, once
 *
 * Return: 0, or register_kretprobe()'s error (said once: without it a
 * stay cannot end, and no request is taken).
 */
int ustack_return_enable(void)
{
	int ret;

	might_sleep();
	if (probed)
		return 0;
	exit_work_probe.maxactive = min_t(int, ustack_deferred_max_tasks +
					  2 * num_possible_cpus(), 4096);
	ret = register_kretprobe(&exit_work_probe);
	if (ret) {
		pr_err("no return probe on %s (%d): stays cannot end\n",
		       USTACK_EXIT_WORK, ret);
		return ret;
	}
	probed = true;
	return 0;
}

void ustack_return_exit(void)
{
	if (!probed)
		return;
	unregister_kretprobe(&exit_work_probe);
	if (exit_work_probe.nmissed)
		pr_info("%d exits to user space missed by the return probe\n",
			exit_work_probe.nmissed);
	probed = false;
}
