// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own deferred unwinder, fed by ustack's walk.
 *
 * Kernels with CONFIG_UNWIND_USER (6.17 and later) defer user stacks
 * themselves: perf's deferred callchains (perf record --call-graph
 * fp,defer) ask kernel/unwind/deferred.c for the user stack, which walks
 * it in task context at the return to user space with unwind_user() --
 * frame pointers only.  While the parameter kernel_unwinder is 1, that
 * walk is ustack's: an ftrace_ops with IPMODIFY on unwind_user()'s entry
 * (the mechanism livepatch uses; IPMODIFY is exclusive, so a livepatch
 * or another module on it makes ours fail with EBUSY) sends every call on
 * to ku_unwind_user(), same prototype, which writes ustack_walk_user()'s
 * frames (SFrame from registrations, ELF discovery and the store, then
 * frame pointers, then the stack scan with guess=1) into the caller's
 * struct unwind_stacktrace as unwind_user() would.  Turned off, the
 * kernel's own walk is back.
 *
 * Our code must outlive every walk it runs, and turning the redirect off
 * or unloading must never wait for one: a walk may wait as long as the
 * user likes in a page fault (a FUSE file that never answers, a
 * userfaultfd nobody serves).  So each walk holds a module reference,
 * taken by the ftrace handler before it redirects (where preemption is
 * off and nothing sleeps; refused once unloading has begun: the kernel's
 * own walk answers then) and put by ku_unwind_user() at its end.  The
 * turn-off only unregisters the ftrace_ops: the ops is in module memory
 * (FTRACE_OPS_FL_DYNAMIC), so unregister_ftrace_function() ends with
 * synchronize_rcu_tasks(), which a task asleep in a fault does not hold
 * up.  A walk still running finishes later, in text its reference keeps;
 * an unload meanwhile is refused (the module is in use), not blocked.
 * The return from ku_unwind_user() after its module_put() is in our text
 * too, and ustack_exit()'s ustack_sync_tasks() lets such tasks leave it,
 * as for our task_works.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cleanup.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include "arch.h"
#include "compat.h"
#include "deferred.h"
#include "kernel_unwinder.h"
#include "render.h"
#include "user_walk.h"

/* What the parameter says; on while ku_on (under ku_lock). */
static DEFINE_MUTEX(ku_lock);
static bool ku_want, ku_on, ku_ready;

static atomic_long_t ku_walks, ku_frames, ku_declined;
static atomic_long_t ku_ends[USTACK_END_MAX];

#ifdef USTACK_KERNEL_UNWINDER

/* The kernel's function we stand in for. */
#define KU_FUNC		"unwind_user"

/* The walk writes u64 frames: the kernel's trace holds unsigned longs. */
static_assert(sizeof(*((struct unwind_stacktrace *)NULL)->entries) ==
	      sizeof(u64));

/**
 * ku_unwind_user() - unwind_user(), ustack's walk
 * @trace: the caller's trace: @trace->entries has room for @max_entries
 * @max_entries: the most frames to store
 *
 * Entered from unwind_user()'s entry, redirected: as unwind_user() does,
 * sets @trace->nr to the frames stored, the interrupted user IP first.
 * In task context, faultable, for a task running native user code
 * (ku_redirect() checked).
 *
 * Return: 0, or -EINVAL without room.
 */
static int ku_unwind_user(struct unwind_stacktrace *trace,
			  unsigned int max_entries)
{
	u8 end;

	might_sleep();
	might_fault();
	lockdep_assert_irqs_enabled();
	trace->nr = 0;
	if (max_entries) {
		trace->nr = ustack_walk_user(task_pt_regs(current),
					     (u64 *)trace->entries, NULL,
					     max_entries, &end);
		atomic_long_inc(&ku_walks);
		atomic_long_add(trace->nr, &ku_frames);
		if (end < USTACK_END_MAX)
			atomic_long_inc(&ku_ends[end]);
	}
	/* the reference ku_ftrace() took for this walk */
	module_put(THIS_MODULE);
	return max_entries ? 0 : -EINVAL;
}

/*
 * Whether this call of unwind_user() may be ours: a walk that may fault,
 * of a task's own native user stack.  The kernel calls it only so; should
 * another caller ever walk from where faults are off, or a compat task
 * (whose 4-byte frame pointers only the kernel's walk follows) ask, the
 * kernel's own walk answers.
 */
static bool ku_redirect(void)
{
	return in_task() && !irqs_disabled() && !pagefault_disabled() &&
	       ustack_runs_user_code(current) &&
	       ustack_arch_user_native(task_pt_regs(current));
}

static void notrace ku_ftrace(unsigned long ip, unsigned long parent_ip,
			      struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	int bit = ftrace_test_recursion_trylock(ip, parent_ip);

	if (bit < 0)
		return;
	if (ku_redirect() && try_module_get(THIS_MODULE))
		ftrace_regs_set_instruction_pointer(fregs,
						    (unsigned long)ku_unwind_user);
	else
		atomic_long_inc(&ku_declined);
	ftrace_test_recursion_unlock(bit);
}

/* IPMODIFY must come with SAVE_REGS (linux/ftrace.h). */
static struct ftrace_ops ku_ops = {
	.func = ku_ftrace,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

/**
 * ustack_kernel_unwinder_ip() - where unwind_user()'s ftrace location is
 * @ip: set to it
 *
 * A disabled kprobe resolves the name (kallsyms_lookup_name() is not
 * exported) and, on x86 with IBT, skips the ENDBR to where the
 * __fentry__ call is.  ku_test.c's hook redirects it too.
 *
 * Return: 0, or the kprobe's error (no such function, not probeable).
 */
int ustack_kernel_unwinder_ip(unsigned long *ip)
{
	struct kprobe kp = {
		.symbol_name = KU_FUNC,
		.flags = KPROBE_FLAG_DISABLED,
	};
	int err = register_kprobe(&kp);

	if (err)
		return err;
	*ip = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return 0;
}

static int ku_start(void)
{
	unsigned long ip;
	int err;

	err = ustack_kernel_unwinder_ip(&ip);
	if (err) {
		pr_warn_ratelimited("kernel_unwinder: cannot find %s() (%d)\n", KU_FUNC, err);
		return -EOPNOTSUPP;
	}
	err = ftrace_set_filter_ip(&ku_ops, ip, 0, 1);
	if (err) {
		pr_warn_ratelimited("kernel_unwinder: %s() is not traceable here (%d)\n",
			KU_FUNC, err);
		return -EOPNOTSUPP;
	}
	err = register_ftrace_function(&ku_ops);
	if (err) {
		ftrace_set_filter_ip(&ku_ops, ip, 1, 0);
		if (err == -EBUSY)
			pr_warn_ratelimited("kernel_unwinder: %s() is redirected already (a livepatch or another module's IPMODIFY ftrace_ops: EBUSY)\n",
				KU_FUNC);
		else
			pr_warn_ratelimited("kernel_unwinder: cannot redirect %s() (%d)\n",
				KU_FUNC, err);
		return -EOPNOTSUPP;
	}
	pr_info("kernel_unwinder: %s() walks with ustack\n", KU_FUNC);
	return 0;
}

static void ku_stop(void)
{
	/* No wait for walks still running: each holds the module. */
	WARN_ON_ONCE(unregister_ftrace_function(&ku_ops));
	ftrace_free_filter(&ku_ops);
	pr_info("kernel_unwinder: %s() walks with frame pointers again\n",
		KU_FUNC);
}

#else /* !USTACK_KERNEL_UNWINDER */

static int ku_start(void)
{
	pr_warn_ratelimited("kernel_unwinder: %s\n", USTACK_KU_MISSING);
	return -EOPNOTSUPP;
}

static void ku_stop(void)
{
}

#endif /* USTACK_KERNEL_UNWINDER */

/* Turn on or off, as asked: whole, or not at all. */
static int ku_apply(bool on)
{
	int err = 0;

	lockdep_assert_held(&ku_lock);
	if (on == ku_on)
		return 0;
	if (on)
		err = ku_start();
	else
		ku_stop();
	if (!err)
		ku_on = on;
	return err;
}

/**
 * ustack_kernel_unwinder_set() - the parameter kernel_unwinder is written
 * @on: 1 to walk for the kernel's deferred unwinder, 0 to give it back
 *
 * Before module init has set up the walk (a value given at load), only
 * remembered; ustack_kernel_unwinder_init() applies it.
 *
 * Return: 0, or -EOPNOTSUPP where the kernel's walk cannot be redirected
 * (a log line says why), the old state left.
 */
int ustack_kernel_unwinder_set(bool on)
{
	int err = 0;

	might_sleep();
	guard(mutex)(&ku_lock);
	if (ku_ready)
		err = ku_apply(on);
	if (!err)
		ku_want = on;
	return err;
}

/**
 * ustack_kernel_unwinder_get() - whose walk the kernel's unwinder uses
 *
 * Return: true while it is ustack's.
 */
bool ustack_kernel_unwinder_get(void)
{
	guard(mutex)(&ku_lock);
	return ku_ready ? ku_on : ku_want;
}

/**
 * ustack_kernel_unwinder_init() - apply the value given at load
 *
 * Called by module init once the walk and its sources are set up.
 *
 * Return: 0 or a negative errno (the module does not load).
 */
int ustack_kernel_unwinder_init(void)
{
	guard(mutex)(&ku_lock);
	ku_ready = true;
	return ku_apply(ku_want);
}

/**
 * ustack_kernel_unwinder_exit() - give the kernel its own walk back
 *
 * Called first by module exit: no walk of ours runs then (each holds the
 * module), and none starts once it returns; but for the return out of
 * ku_unwind_user() (see the top of this file).
 * A write of the parameter after it is only remembered.
 */
void ustack_kernel_unwinder_exit(void)
{
	guard(mutex)(&ku_lock);
	ku_apply(false);
	ku_ready = false;
}

/**
 * ustack_kernel_unwinder_show() - the stats file's lines
 * @m: the stats file
 *
 * Walks done for the kernel's unwinder, their frames, the calls left to
 * the kernel's own walk (not a task's own native user stack), and how the
 * walks ended.
 */
void ustack_kernel_unwinder_show(struct seq_file *m)
{
	int i;

	seq_printf(m, "kernel_unwinder_walks %ld\n", atomic_long_read(&ku_walks));
	seq_printf(m, "kernel_unwinder_frames %ld\n",
		   atomic_long_read(&ku_frames));
	seq_printf(m, "kernel_unwinder_declined %ld\n",
		   atomic_long_read(&ku_declined));
	for (i = 0; i < USTACK_END_MAX; i++)
		seq_printf(m, "kernel_unwinder_end_%s %ld\n",
			   ustack_render_end(i), atomic_long_read(&ku_ends[i]));
}
