// SPDX-License-Identifier: GPL-2.0
/*
 * The deferred unwind engine.
 *
 * A request for the current task's user stack (from a sampling interrupt, a
 * tracepoint, or process context) returns at once with the cookie of the
 * current kernel stay and queues one task_work; the walk runs in that
 * task_work, on the task's way back to user space, where faults are fine.
 * Every request of one stay, from any client, shares that cookie and that
 * one walk; each client that asked gets exactly one delivery of it, with an
 * empty stack and an end reason when the walk could not run.
 *
 * The stay and its cookie (stay.c) end at the real return to user space:
 * until then, later requests reuse the cookie and the cached walk.
 *
 * Per-task state lives in a fixed pool (task_pool.c: max_tasks entries
 * with max_frames slots each, allocated at load) found through an RCU hash
 * keyed by the task; nothing is allocated on the request path, so
 * requests are safe in hard-IRQ context on PREEMPT_RT too.  A task keeps its state from its
 * first request until it dies (its last switch-out), when the state goes
 * back to the pool after an RCU grace period; recycling at every stay's
 * end would leave the pool waiting on grace periods under a request
 * storm.  When the pool is empty a request fails (-ENOMEM, counted): its
 * sample goes out with cookie 0, kernel stack only.  Every queued task_work
 * holds a module reference, so rmmod is refused while walks are pending.
 *
 * NMI requests (hardware-cycle sampling) follow upstream's shape: the
 * task_work goes on the list with a cmpxchg (USTACK_TWA_NMI, compat.h),
 * TIF_NOTIFY_RESUME is set on the task in the NMI itself, and a per-CPU
 * irq_work raises an interrupt right after the NMI, so that a task the NMI
 * caught in user space goes through the exit path (and the walk) before its
 * next user instruction.  That irq_work also arms the stay's watch for the
 * return (x86's user-return notifier, whose per-CPU list must not be
 * touched in NMI).  The per-task state is
 * written with IRQs off on its own CPU; an NMI that lands inside such a
 * section (nmi_excl.h) is refused, so NMI and non-NMI code never update
 * it at once.  The pool's lock is only tried in NMI.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <linux/task_work.h>
#include "arch.h"
#include "deferred.h"
#include "ustack_limits.h"
#include "nmi_excl.h"
#include "stage_times.h"
#include "stay.h"
#include "task_pool.h"
#include "user_walk.h"


static const struct ustack_client *clients[USTACK_CLIENT_MAX];

DEFINE_PER_CPU(struct ustack_stats, ustack_stats);
static atomic_long_t max_depth;

/**
 * ustack_stats_sum() - the engine's counters, summed over every CPU
 * @sum: filled in
 *
 * Each CPU's counters move on meanwhile: the sums are of a moment each.
 */
void ustack_stats_sum(struct ustack_stats *sum)
{
	unsigned long *d = (unsigned long *)sum;
	const unsigned long *s;
	size_t i;
	int cpu;

	BUILD_BUG_ON(sizeof(*sum) % sizeof(*d));
	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		s = (const unsigned long *)per_cpu_ptr(&ustack_stats, cpu);
		for (i = 0; i < sizeof(*sum) / sizeof(*d); i++)
			d[i] += READ_ONCE(s[i]);
	}
}

long ustack_stats_max_depth(void)
{
	return atomic_long_read(&max_depth);
}

/*
 * Per-task state is updated with IRQs off, and NMI requests on this CPU
 * are refused meanwhile (nmi_excl.h).
 */

/* The end of a stay (stay.c): the clients that had a delivery hear of it. */
static void stay_ended(const struct ustack_task *st)
{
	unsigned int i;

	for (i = 0; i < USTACK_CLIENT_MAX; i++) {
		const struct ustack_client *c = READ_ONCE(clients[i]);

		if (c && c->stay_end && (st->delivered & BIT(i)))
			c->stay_end(st);
	}
	ustack_stat_inc(stays);
}

/* ---- requests ----------------------------------------------------------- */

static bool may_request(struct task_struct *t)
{
	return ustack_runs_user_code(t) && !(t->flags & PF_EXITING);
}

static void task_work_fn(struct callback_head *head);

/* The request, IRQs off, NMIs on this CPU backing off. */
static int request_locked(struct task_struct *t, unsigned int client,
			  bool nmi, u64 *cookie)
{
	struct ustack_task *st;
	int ret = 0;

	lockdep_assert_irqs_disabled();
	/*
	 * The cookie alone costs no pool entry: a task with none yet gets
	 * a fresh cookie, so that threads asking for their own stack and
	 * then sleeping cannot drain the pool.
	 */
	if (client >= USTACK_CLIENT_MAX && !ustack_task_lookup(t)) {
		*cookie = ustack_cookie_new();
		return 0;
	}
	st = ustack_task_get(t, nmi);
	if (IS_ERR_OR_NULL(st)) {
		if (st == ERR_PTR(-EDQUOT))
			ustack_stat_inc(share_refused);
		else if (st)
			ustack_stat_inc(nomem);
		if (nmi)
			ustack_stat_inc(nmi_refused);
		return nmi ? -EBUSY : -ENOMEM;
	}
	if (!st->cookie)
		ustack_stay_begin(st, t, nmi);
	*cookie = st->cookie;
	if (client >= USTACK_CLIENT_MAX)
		goto out;
	if (st->clients & BIT(client)) {
		ustack_stat_inc(coalesced);
		ret = 1;
		goto out;
	}
	st->clients |= BIT(client);
	if (st->pending)
		goto out;
	/*
	 * The work holds the module until it has run.  Once unloading has
	 * begun no reference is to be had: a work queued then would run
	 * after our text and its pool entry are freed.
	 */
	if (!try_module_get(THIS_MODULE)) {
		st->clients &= ~BIT(client);
		ret = -EAGAIN;
		goto out;
	}
	st->pending = true;
	init_task_work(&st->work, task_work_fn);
	if (task_work_add(t, &st->work, nmi ? USTACK_TWA_NMI : TWA_RESUME)) {
		/* The task is exiting: nothing will run the work. */
		st->pending = false;
		st->clients &= ~BIT(client);
		module_put(THIS_MODULE);
		ret = -ESRCH;
	} else if (nmi) {
		/* On this task, whatever runs when the irq_work does. */
		set_tsk_thread_flag(t, TIF_NOTIFY_RESUME);
	}
out:
	if (nmi)
		ustack_stay_nmi_kick();
	return ret;
}

/**
 * ustack_deferred_request - ask for the current task's user stack
 * @client: USTACK_CLIENT_*, or USTACK_CLIENT_NONE for the cookie alone
 * @regs: the registers the interrupt or NMI saved; NULL elsewhere (an
 *	NMI request needs them)
 * @cookie: set to the stay's cookie, or 0 on error
 *
 * Callable from NMI, hard IRQ, tracepoints (preemption off) and process
 * context.  The walk runs once per stay, at the task's return to user
 * space; @client's deliver() is called then, once per stay it asked in.
 *
 * Return: 0 when this request queued the walk's delivery, 1 when the
 * client had already asked in this stay (coalesced), or -EINVAL (not a
 * user task), -ENOMEM (the pool is exhausted), -EBUSY (an NMI that
 * interrupted the engine itself, found the pool locked or the user
 * registers half saved), -EAGAIN (the engine is off, or NMI requests are
 * impossible on this kernel, see compat.h, or the module is unloading),
 * -ESRCH (the task is exiting).
 */
int ustack_deferred_request(unsigned int client, struct pt_regs *regs,
			    u64 *cookie)
{
	struct task_struct *t = current;
	bool nmi = in_nmi();

	*cookie = 0;
	if (!may_request(t))
		return -EINVAL;
	if (!ustack_stay_tracked()) {
		/* No stay is tracked: any fresh cookie is this stay's alone. */
		if (client < USTACK_CLIENT_MAX || nmi)
			return -EAGAIN;
		guard(preempt)();
		*cookie = ustack_cookie_new();
		return 0;
	}
	ustack_stat_inc(requests);
	if (nmi) {
		ustack_stat_inc(nmi_requests);
		if (!USTACK_NMI_REQUESTS) {
			ustack_stat_inc(nmi_refused);
			return -EAGAIN;
		}
		if (ustack_nmi_excl_busy() || !ustack_arch_nmi_regs_ok(t, regs)) {
			ustack_stat_inc(nmi_refused);
			return -EBUSY;
		}
	}
	guard(irqsave)();
	guard(ustack_nmi_excl)();
	return request_locked(t, client, nmi, cookie);
}

/* ---- the walk and its delivery ----------------------------------------- */

/*
 * Exec between the request and the walk: the mm changed, or the request
 * came inside execve() after the new mm was in (the registers were still
 * the old image's) and the new image's registers are there now.
 */
static bool exec_since_request(const struct ustack_task *st, bool regs_moved)
{
	return current->mm != st->mm || (st->in_exec && regs_moved);
}

/* Counted, and said with both register sets: a bug here or a new case. */
static void regs_mismatch(struct ustack_task *st, struct pt_regs *live)
{
	ustack_stat_inc(regs_mismatch);
	pr_info_ratelimited("pid %d (%s): user registers moved between request and walk: ip %lx -> %lx, sp %lx -> %lx, ret %lx -> %lx\n",
			    task_pid_nr(current), current->comm,
			    instruction_pointer(&st->regs),
			    instruction_pointer(live),
			    user_stack_pointer(&st->regs),
			    user_stack_pointer(live),
			    regs_return_value(&st->regs),
			    regs_return_value(live));
}

/*
 * The walk in the stats.  A frame is tallied here first, so that a walk
 * adds to each method's counter once, not once per frame.
 */
static void count_walk(const struct ustack_task *st, u64 ns)
{
	u32 by_method[USTACK_METHOD_MAX] = { 0 };
	u32 i;

	ustack_stat_inc(walks);
	ustack_stat_add(walk_ns, ns);
	if (st->end < USTACK_END_MAX)
		ustack_stat_inc(ends[st->end]);
	for (i = 0; i < st->nr; i++)
		if (st->methods[i] < USTACK_METHOD_MAX)
			by_method[st->methods[i]]++;
	for (i = 0; i < USTACK_METHOD_MAX; i++)
		if (by_method[i])
			ustack_stat_add(methods[i], by_method[i]);
	if (st->nr > atomic_long_read(&max_depth))
		atomic_long_set(&max_depth, st->nr);
}

static void walk(struct ustack_task *st)
{
	struct pt_regs *live = task_pt_regs(current);
	bool moved = instruction_pointer(live) != instruction_pointer(&st->regs) ||
		     user_stack_pointer(live) != user_stack_pointer(&st->regs);
	u64 t0 = ktime_get_ns();

	might_fault();

	if ((current->flags & PF_EXITING) || !current->mm) {
		st->nr = 0;
		st->end = USTACK_END_EXIT;
	} else if (exec_since_request(st, moved)) {
		st->nr = 0;
		st->end = USTACK_END_EXEC;
	} else {
		/*
		 * The walk starts from the registers of the request.  Besides
		 * a bug, only the kernel changes them meanwhile: a signal
		 * frame set up after the request (a tick during the frame's
		 * setup, once get_signal() had run the pending task_work), a
		 * system call restart (a tick between get_signal() and the
		 * restart on the way out), a request inside rt_sigreturn, all
		 * counted apart; ptrace.
		 */
		if (moved && ustack_arch_entering_handler(live))
			ustack_stat_inc(regs_signal);
		else if (moved && ustack_arch_syscall_restarted(&st->regs, live))
			ustack_stat_inc(regs_restart);
		else if (moved && ustack_arch_in_sigreturn(&st->regs))
			ustack_stat_inc(regs_sigreturn);
		else if (moved)
			regs_mismatch(st, live);
		st->nr = ustack_walk_user(&st->regs, st->ips, st->methods,
					  ustack_deferred_max_frames, &st->end);
	}
	count_walk(st, ktime_get_ns() - t0);
}

static void task_work_fn(struct callback_head *head)
{
	struct ustack_task *st = container_of(head, struct ustack_task, work);
	unsigned long todo, sw;
	unsigned int i;
	bool walked;
	u64 t0;

	ustack_stage_end_mark(USTACK_STAGE_DEFERRAL, st->cookie);
	scoped_guard(irq) {
		guard(ustack_nmi_excl)();
		st->pending = false;
		todo = st->clients & ~st->delivered;
		walked = st->walked;
	}

	if (!walked) {
		t0 = ustack_stage_task_begin(&sw);
		walk(st);
		ustack_stage_task_end(USTACK_STAGE_WALK, t0, sw);
		WRITE_ONCE(st->walked, true);
		for (i = 0; i < USTACK_CLIENT_MAX; i++) {
			const struct ustack_client *c = READ_ONCE(clients[i]);

			if (c && c->every_walk)
				todo |= BIT(i);
		}
	}
	for (i = 0; i < USTACK_CLIENT_MAX; i++) {
		const struct ustack_client *c = READ_ONCE(clients[i]);

		if (!(todo & BIT(i)))
			continue;
		if (c)
			c->deliver(st);
		ustack_stat_inc(deliveries);
	}
	scoped_guard(irq) {
		guard(ustack_nmi_excl)();
		st->delivered |= todo;
		/*
		 * A dying task never returns to user space, and a stay whose
		 * return will not be seen (stay.c) ends at its walk too.
		 */
		if (!st->pending && (current->flags & PF_EXITING)) {
			ustack_stay_end(st);
			ustack_stat_inc(stays);
		} else if (!st->pending && !ustack_stay_returns(st)) {
			ustack_stay_end(st);
			ustack_stat_inc(stays);
			ustack_stat_inc(stays_at_walk);
		}
	}
	module_put(THIS_MODULE);
}

/*
 * debugfs "pending": the tasks whose walk is queued, one line each
 * ("tid comm state"), each holding a module reference until it returns
 * to user space or exits.  A task's struct outlives its state's task
 * pointer by an RCU grace period (the pointer is cleared at its last
 * switch-out), so reading it under RCU is safe.
 */
int ustack_deferred_pending_show(struct seq_file *m, void *v)
{
	u32 i;

	guard(rcu)();
	for (i = 0; i < ustack_deferred_max_tasks; i++) {
		struct task_struct *t = READ_ONCE(ustack_task_at(i)->task);

		if (t && READ_ONCE(ustack_task_at(i)->pending))
			seq_printf(m, "%d %s %c\n", task_pid_nr(t), t->comm,
				   task_state_to_char(t));
	}
	return 0;
}

/* For the stats: tasks holding state, and whether the probe is in. */
void ustack_deferred_counters(int *tasks, bool *on)
{
	*tasks = ustack_task_pool_live();
	*on = ustack_stay_tracked();
}

/**
 * ustack_deferred_client_register - a client of the engine
 * @id: its USTACK_CLIENT_* slot
 * @c: its callbacks; deliver() runs in the task's task_work
 */
void ustack_deferred_client_register(unsigned int id,
				     const struct ustack_client *c)
{
	WRITE_ONCE(clients[id], c);
}

/* After it returns, @id's deliver() is not running and will not run. */
void ustack_deferred_client_unregister(unsigned int id)
{
	WRITE_ONCE(clients[id], NULL);
	synchronize_rcu();
}

/* ---- setup -------------------------------------------------------------- */

int ustack_deferred_init(void)
{
	return ustack_stay_init(stay_ended);
}

/* At the first use: stays are tracked from then on (stay.c). */
int ustack_deferred_enable(void)
{
	return ustack_stay_enable();
}

/* Module exit: no walk is pending (each holds a module reference). */
void ustack_deferred_exit(void)
{
	ustack_stay_exit();
}
