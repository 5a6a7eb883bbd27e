// SPDX-License-Identifier: GPL-2.0
/*
 * The trace events ustack:sample and ustack:user_stack (ustack_trace.h),
 * below the sources that emit them.  Whether a consumer entitled to
 * system-wide stacks has them enabled is told upward through a hook that
 * their consumer (trace_consumer.c) registers: this file never calls the
 * layers above it.
 *
 * Entitled are ftrace (tracefs: root, or whom root gave the files) and a
 * perf event that is CPU-wide (the kernel's perf_event_paranoid already
 * decided that its opener may see every task) or opened by a
 * perfmon_capable() task.  A per-task perf event of an unprivileged user
 * (allowed to count tracepoints where perf_event_paranoid <= 2) does not
 * start the sources, which would walk and signal every process.  BPF
 * attaches through perf (counted so) or as a raw tracepoint, which starts
 * nothing: /dev/ustack or a perf event does.  The events' class callback
 * is where each consumer is seen, with its perf event: it is wrapped.
 *
 * The callback runs under event_mutex; the hook must only note the change
 * and act later (starting the sources takes tracepoints_mutex and more).
 */
#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include "trace_events.h"

#define CREATE_TRACE_POINTS
#include "ustack_trace.h"

static atomic_t entitled;	/* entitled consumers of the events */
/* The entitled perf events counted in it: a close uncounts only those. */
static DEFINE_XARRAY(perf_counted);
static DEFINE_SPINLOCK(hook_lock);
static void (*changed_hook)(void);	/* under hook_lock */

/*
 * ustack_trace_events_set_hook - be told when the events are enabled or
 * disabled.  The hook runs in atomic context, under event_mutex.
 * NULL removes it: once this returns, it is not called any more.
 */
void ustack_trace_events_set_hook(void (*changed)(void))
{
	guard(spinlock)(&hook_lock);
	changed_hook = changed;
}

/* Whether an entitled consumer has a ustack event enabled. */
bool ustack_trace_events_wanted(void)
{
	return atomic_read(&entitled) > 0;
}

static void consumers_add(int delta)
{
	guard(spinlock)(&hook_lock);
	if (delta > 0)
		atomic_inc(&entitled);
	else if (atomic_dec_if_positive(&entitled) < 0)
		return;	/* enabled before the callback was wrapped: uncounted */
	if (changed_hook)
		changed_hook();
}

/* A CPU-wide event, or a privileged opener's (we run in its context). */
static bool perf_entitled(struct perf_event *event)
{
	return !(event->attach_state & PERF_ATTACH_TASK) || perfmon_capable();
}

static int ustack_event_reg(struct trace_event_call *call,
			    enum trace_reg type, void *data)
{
	int ret = trace_event_reg(call, type, data);

	switch (type) {
	case TRACE_REG_REGISTER:
		if (!ret)
			consumers_add(1);
		break;
	case TRACE_REG_UNREGISTER:
		consumers_add(-1);
		break;
	case TRACE_REG_PERF_OPEN:
		if (!ret && perf_entitled(data) &&
		    !xa_insert(&perf_counted, (unsigned long)data, data,
			       GFP_KERNEL))
			consumers_add(1);
		break;
	case TRACE_REG_PERF_CLOSE:
		if (xa_erase(&perf_counted, (unsigned long)data))
			consumers_add(-1);
		break;
	default:
		break;
	}
	return ret;
}

/**
 * ustack_trace_events_init - see each consumer of the events as it comes
 *
 * The events exist from the module's loading (their class calls
 * trace_event_reg()); from now on each enabling and perf event passes
 * through ustack_event_reg() first.
 */
void ustack_trace_events_init(void)
{
	event_class_sample.reg = ustack_event_reg;
	event_class_user_stack.reg = ustack_event_reg;
}
