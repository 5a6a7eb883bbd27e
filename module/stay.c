// SPDX-License-Identifier: GPL-2.0
/*
 * The stay: a task's time in the kernel from the first request for its
 * user stack to its real return to user space.  Every request of one stay
 * shares its cookie (the deferred engine, deferred.c, walks once per
 * stay), and the stay ends only at that return, not at an earlier exit of
 * the same system call's task work: a signal, a restart or a second
 * task_work pass in between stays within it.
 *
 * The real return is observed as the kernel allows (stay_return.h): a
 * user-return notifier (x86), a return probe on the exit work (arm64).
 * Until it is, later requests reuse the cookie and the cached walk: no
 * second walk, no livelock.
 *
 * Cookie layout: see include/uapi/ustack.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/tracepoint.h>
#include "nmi_excl.h"
#include "stay.h"
#include "stay_return.h"
#include "task_pool.h"
#include "tracepoint_lookup.h"

static DEFINE_PER_CPU(u32, cookie_counter);

static void nmi_kick_fn(struct irq_work *work);
static DEFINE_PER_CPU(struct irq_work, nmi_kick);

/* The engine's end of a stay, before its state is reset. */
static void (*stay_ended)(const struct ustack_task *st);

static struct tracepoint *tp_sched_switch;
static bool tracked;		/* the sched_switch probe is in */
static DEFINE_MUTEX(tracked_lock);

/* Below TRACEPOINT_DEFAULT_PRIO, the sources' probes: runs after them. */
#define USTACK_STAY_SWITCH_PRIO	(TRACEPOINT_DEFAULT_PRIO - 1)

/* A cookie no other stay on any CPU has had. */
u64 ustack_cookie_new(void)
{
	u32 count = __this_cpu_add_return(cookie_counter, 2) | 1;

	return (u64)count << 32 | (smp_processor_id() + 1);
}

/* Forget the stay; the state stays with its task.  IRQs off. */
static void stay_reset(struct ustack_task *st)
{
	lockdep_assert_irqs_disabled();
	st->cookie = 0;
	st->clients = 0;
	st->delivered = 0;
	st->walked = false;
	st->nr = 0;
}

/**
 * ustack_stay_begin - the first request of @t's stay: its cookie and the
 *	user registers and mm its walk will start from
 * @st: @t's state, with no cookie yet
 * @t: current
 * @nmi: in NMI, where the return may not be watched yet: the irq_work
 *	that ustack_stay_nmi_kick() raises does what the NMI could not
 *
 * IRQs off, NMIs on this CPU backing off.
 */
void ustack_stay_begin(struct ustack_task *st, struct task_struct *t, bool nmi)
{
	lockdep_assert_irqs_disabled();
	st->cookie = ustack_cookie_new();
	st->mm = t->mm;
	st->regs = *task_pt_regs(t);
	st->in_exec = t->in_execve;
	ustack_return_watch(st, nmi);
}

/**
 * ustack_stay_end - end @st's stay without a return to user space (a
 *	dying task never returns)
 * @st: current's state
 *
 * IRQs off, NMIs on this CPU backing off.
 */
void ustack_stay_end(struct ustack_task *st)
{
	ustack_return_unwatch(st);
	stay_reset(st);
}

/**
 * ustack_stay_returns - will the end of @st's stay be seen?
 * @st: current's state, its walk delivered
 *
 * Else (stay_return.h: a stay the return probe did not see begin) the
 * engine ends it after its walk.  IRQs off, NMIs on this CPU backing off.
 */
bool ustack_stay_returns(const struct ustack_task *st)
{
	lockdep_assert_irqs_disabled();
	return ustack_return_watched(&st->ret);
}

/* The real return to user space of current, whose state @st may be. */
static void on_return(struct ustack_task *st)
{
	if (st->task != current || st->pending)
		return;
	stay_ended(st);
	scoped_guard(ustack_nmi_excl)
		ustack_stay_end(st);
}

/*
 * The return's watch follows the task (a per-CPU notifier is parked when
 * it is switched out, re-armed where it is switched in).  The state of a
 * task that dies, or that goes to sleep between stays (no request in
 * this one yet), goes back to the pool: only running tasks and tasks with
 * a request in their current stay hold one, so a pool of max_tasks serves
 * any number of threads.  Runnable tasks keep theirs: giving it back at
 * every preemption would keep a storm of requests waiting on grace
 * periods for entries.  Runs with IRQs off and the rq lock held.
 */
static void probe_sched_switch(void *data, bool preempt,
			       struct task_struct *prev,
			       struct task_struct *next,
			       unsigned int prev_state)
{
	struct ustack_task *st;

	if (!ustack_task_pool_live())
		return;
	guard(ustack_nmi_excl)();
	st = ustack_task_lookup(prev);
	if (st) {
		ustack_return_switch_out(st);
		if (!st->pending && ((prev_state & TASK_DEAD) ||
				     (prev_state != TASK_RUNNING && !st->cookie)))
			ustack_task_put(st);
	}
	st = ustack_task_lookup(next);
	if (st)
		ustack_return_switch_in(st);
}

/*
 * Raised by an NMI request, runs on the same CPU as soon as IRQs are on:
 * the interrupt itself sends a task the NMI caught in user space through
 * the exit path; and what the NMI could not do for the return's watch is
 * done here, if the task is still current (else at its next switch-in).
 */
static void nmi_kick_fn(struct irq_work *work)
{
	struct ustack_task *st;

	guard(ustack_nmi_excl)();
	st = ustack_task_lookup(current);
	if (st)
		ustack_return_kick(st);
}

/* After an NMI request: the irq_work above, on this CPU. */
void ustack_stay_nmi_kick(void)
{
	irq_work_queue(this_cpu_ptr(&nmi_kick));
}

/* Whether stays are tracked (ustack_stay_enable() has run). */
bool ustack_stay_tracked(void)
{
	return READ_ONCE(tracked);
}

/**
 * ustack_stay_init - the task pool and the stay's hooks, not yet in
 * @ended: called at the end of a stay (IRQs off, current's state), before
 *	its state is reset
 */
int ustack_stay_init(void (*ended)(const struct ustack_task *st))
{
	int cpu, ret;

	stay_ended = ended;
	ustack_return_init(on_return);
	ret = ustack_task_pool_init();
	if (ret)
		return ret;
	for_each_possible_cpu(cpu)
		per_cpu(nmi_kick, cpu) = IRQ_WORK_INIT_HARD(nmi_kick_fn);

	tp_sched_switch = ustack_tp_find("sched_switch");
	if (!tp_sched_switch) {
		pr_err("no sched_switch tracepoint\n");
		ustack_task_pool_free();
		return -ENOENT;
	}
	return 0;
}

/**
 * ustack_stay_enable - put the sched_switch probe in, once
 *
 * At the first use (an open of /dev/ustack or a self request): a module
 * that is only loaded and unloaded never patches the scheduler.  Process
 * context.
 */
int ustack_stay_enable(void)
{
	int ret;

	might_sleep();
	if (READ_ONCE(tracked))
		return 0;
	guard(mutex)(&tracked_lock);
	if (tracked)
		return 0;
	ret = ustack_return_enable();
	if (ret)
		return ret;
	/*
	 * Last of sched_switch's probes: an off-CPU request (a source's
	 * probe on the same switch) may arm the notifier of the task being
	 * switched out, on this CPU; this probe must then park it, or it
	 * stays on this CPU's list while the task runs and is unregistered
	 * on another CPU, corrupting both lists.
	 */
	ret = tracepoint_probe_register_prio(tp_sched_switch,
					     probe_sched_switch, NULL,
					     USTACK_STAY_SWITCH_PRIO);
	if (!ret)
		WRITE_ONCE(tracked, true);
	return ret;
}

/* Module exit: no walk is pending (each holds a module reference). */
void ustack_stay_exit(void)
{
	int cpu;

	if (tracked) {
		tracepoint_probe_unregister(tp_sched_switch, probe_sched_switch, NULL);
		tracepoint_synchronize_unregister();
	}
	for_each_possible_cpu(cpu)
		irq_work_sync(per_cpu_ptr(&nmi_kick, cpu));
	ustack_return_exit();
	rcu_barrier();
	ustack_task_pool_free();
}
