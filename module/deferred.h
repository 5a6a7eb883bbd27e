/* SPDX-License-Identifier: GPL-2.0 */
/* The deferred unwind engine's client interface (task_pool.h: its per-task state). */
#ifndef USTACK_DEFERRED_H
#define USTACK_DEFERRED_H

#include <linux/atomic.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/percpu.h>
#include <linux/types.h>
#include <linux/user-return-notifier.h>
#include <uapi/ustack.h>
#include "arch.h"
#include "compat.h"
#include "task_pool.h"

/* Clients of the engine: each gets one delivery per stay it asked in. */
enum {
	USTACK_CLIENT_STREAM,		/* the user records of /dev/ustack */
	USTACK_CLIENT_COOP,		/* cooperative unwinding (coop.c) */
	USTACK_CLIENT_MAX = 8,
	USTACK_CLIENT_NONE = USTACK_CLIENT_MAX,	/* only the cookie */
};

struct ustack_client {
	/* In task context (faultable), current == st->task. */
	void (*deliver)(const struct ustack_task *st);
	/*
	 * Optional, IRQs off, current == st->task: the stay ended (the real
	 * return to user space) after a delivery to this client.
	 */
	void (*stay_end)(const struct ustack_task *st);
	/* Delivered every walk, asked for or not (after those who asked). */
	bool every_walk;
};

/*
 * A task that runs user code: not a kernel thread, not an io_uring or other
 * user worker.  An io-wq worker clears PF_IO_WORKER in its exit (6.1), so
 * its registers tell too (ustack_arch_user_regs_set()).
 */
static inline bool ustack_runs_user_code(struct task_struct *t)
{
	struct pt_regs *regs = task_pt_regs(t);

	return t->mm && !(t->flags & (PF_KTHREAD | USTACK_PF_WORKERS)) &&
	       user_mode(regs) && ustack_arch_user_regs_set(regs);
}

int ustack_deferred_init(void);
void ustack_deferred_exit(void);
int ustack_deferred_enable(void);
void ustack_deferred_client_register(unsigned int id,
				     const struct ustack_client *c);
void ustack_deferred_client_unregister(unsigned int id);
int ustack_deferred_request(unsigned int client, struct pt_regs *regs,
			    u64 *cookie);
struct seq_file;
int ustack_deferred_pending_show(struct seq_file *m, void *v);
void ustack_deferred_counters(int *tasks, bool *on);

/*
 * The engine's counters, per CPU so that no sample writes a line another
 * CPU writes too; summed for debugfs (stats.c) by ustack_stats_sum().
 * Counted with ustack_stat_inc()/_add(), NMI-safe where this_cpu ops are
 * single instructions (arch.h's CPUs).
 */
struct ustack_stats {
	unsigned long requests, coalesced, walks, deliveries, stays;
	unsigned long stays_at_walk;	/* ended by their walk (stay.c) */
	unsigned long nomem, regs_mismatch, walk_ns;
	unsigned long nmi_requests, nmi_refused, regs_signal, regs_restart;
	unsigned long regs_sigreturn;
	unsigned long share_refused;
	unsigned long methods[USTACK_METHOD_MAX];
	unsigned long ends[USTACK_END_MAX];
};

DECLARE_PER_CPU(struct ustack_stats, ustack_stats);
#define ustack_stat_inc(f)	this_cpu_inc(ustack_stats.f)
#define ustack_stat_add(f, n)	this_cpu_add(ustack_stats.f, n)
void ustack_stats_sum(struct ustack_stats *sum);
/* the deepest walk yet: a maximum, not a sum */
long ustack_stats_max_depth(void);

#endif /* USTACK_DEFERRED_H */
