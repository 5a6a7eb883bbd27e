// SPDX-License-Identifier: GPL-2.0
/*
 * The trace events ustack:sample and ustack:user_stack (ustack_trace.h),
 * below the sources that emit them.  Whether anyone has them enabled is
 * told upward through a hook that their consumer (trace_consumer.c)
 * registers: this file never calls the layers above it.
 *
 * An event's reg/unreg callbacks run under the kernel's tracepoints_mutex,
 * which starting the sources takes again (they register tracepoint
 * probes): the hook must only note the change and act later.
 */
#include <linux/atomic.h>
#include <linux/spinlock.h>
#include "trace_events.h"

#define CREATE_TRACE_POINTS
#include "ustack_trace.h"

static atomic_t enabled;	/* ustack events enabled */
static DEFINE_SPINLOCK(hook_lock);
static void (*changed_hook)(void);	/* under hook_lock */

/*
 * ustack_trace_events_set_hook - be told when the events are enabled or
 * disabled.  The hook runs in atomic context, under tracepoints_mutex.
 * NULL removes it: once this returns, it is not called any more.
 */
void ustack_trace_events_set_hook(void (*changed)(void))
{
	guard(spinlock)(&hook_lock);
	changed_hook = changed;
}

/* Whether a ustack event is enabled (by ftrace, perf or BPF). */
bool ustack_trace_events_wanted(void)
{
	return atomic_read(&enabled) > 0;
}

/*
 * A ustack event was enabled.  The events exist from the module's
 * loading, before its init registers the hook: the count alone keeps it.
 */
int ustack_trace_events_reg(void)
{
	guard(spinlock)(&hook_lock);
	atomic_inc(&enabled);
	if (changed_hook)
		changed_hook();
	return 0;
}

/* A ustack event was disabled; also after our exit, with no hook. */
void ustack_trace_events_unreg(void)
{
	guard(spinlock)(&hook_lock);
	atomic_dec(&enabled);
	if (changed_hook)
		changed_hook();
}
