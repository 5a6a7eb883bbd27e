// SPDX-License-Identifier: GPL-2.0
/*
 * The trace events as a consumer of the sources, beside /dev/ustack: while
 * ustack:sample or ustack:user_stack is enabled by a consumer entitled to
 * system-wide stacks (trace_events.c: ftrace, a CPU-wide or privileged
 * perf event, BPF through perf), the sources run as they do while /dev/ustack is open, with or without a
 * reader there.
 *
 * The events' hook runs under the kernel's event_mutex, and starting the
 * sources takes tracepoints_mutex: it only schedules a work item that
 * starts or stops them.  The first events after enabling may come before
 * the sources run.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mutex.h>
#include <linux/workqueue.h>
#include "sources.h"
#include "trace_consumer.h"
#include "trace_events.h"

static DEFINE_MUTEX(sync_lock);
static bool started;		/* under sync_lock: the sources run for them */
static bool closing;		/* under sync_lock: module exit, no more work */

static void sync_sources(struct work_struct *work)
{
	bool want = ustack_trace_events_wanted();
	int ret;

	guard(mutex)(&sync_lock);
	if (closing || want == started)
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

/* The events' hook: atomic, under event_mutex. */
static void events_changed(void)
{
	schedule_work(&sync_work);
}

void ustack_trace_consumer_init(void)
{
	ustack_trace_events_init();
	ustack_trace_events_set_hook(events_changed);
	/* An event enabled between the module's loading and now. */
	schedule_work(&sync_work);
}

/* Module exit: the sources stop even if an event is still enabled. */
void ustack_trace_consumer_exit(void)
{
	ustack_trace_events_set_hook(NULL);
	scoped_guard(mutex, &sync_lock)
		closing = true;
	cancel_work_sync(&sync_work);
	guard(mutex)(&sync_lock);
	if (started)
		ustack_sources_stop();
	started = false;
}
