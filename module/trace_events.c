// SPDX-License-Identifier: GPL-2.0
/*
 * The trace events ustack:sample and ustack:user_stack (ustack_trace.h):
 * a consumer of the sources beside /dev/ustack.  While either event is
 * enabled (by ftrace, perf or BPF), the sources run as they do while
 * /dev/ustack is open, with or without a reader there.
 *
 * An event's reg/unreg callbacks run under the kernel's tracepoints_mutex,
 * which starting the sources takes again (they register tracepoint
 * probes): the callbacks only count and leave the start or stop to a work
 * item.  The first events after enabling may come before the sources run.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include "sources.h"
#include "trace_events.h"

#define CREATE_TRACE_POINTS
#include "ustack_trace.h"

static atomic_t enabled;	/* ustack events enabled */
static DEFINE_MUTEX(sync_lock);
static bool started;		/* under sync_lock: the sources run for them */
static DEFINE_SPINLOCK(closing_lock);
static bool closing;		/* module exit: no more work */

static void sync_sources(struct work_struct *work)
{
	bool want = atomic_read(&enabled) > 0;
	int ret;

	guard(mutex)(&sync_lock);
	if (READ_ONCE(closing) || want == started)
		return;
	if (want) {
		ret = ustack_sources_start();
		if (ret) {
			pr_warn("trace events: cannot start the sources: %d\n",
				ret);
			return;
		}
	} else {
		ustack_sources_stop();
	}
	started = want;
}

static DECLARE_WORK(sync_work, sync_sources);

/* A ustack event was enabled.  Under tracepoints_mutex. */
int ustack_trace_events_reg(void)
{
	guard(spinlock)(&closing_lock);
	if (closing)
		return -ENODEV;
	atomic_inc(&enabled);
	schedule_work(&sync_work);
	return 0;
}

/*
 * A ustack event was disabled.  Under tracepoints_mutex; also after our
 * exit, when the kernel removes the module's events.
 */
void ustack_trace_events_unreg(void)
{
	guard(spinlock)(&closing_lock);
	atomic_dec(&enabled);
	if (!closing)
		schedule_work(&sync_work);
}

/* Module exit: the sources stop even if an event is still enabled. */
void ustack_trace_events_exit(void)
{
	scoped_guard(spinlock, &closing_lock)
		closing = true;
	cancel_work_sync(&sync_work);
	guard(mutex)(&sync_lock);
	if (started)
		ustack_sources_stop();
	started = false;
}
