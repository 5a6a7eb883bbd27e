// SPDX-License-Identifier: GPL-2.0
/*
 * Event sources: what asks for stacks.  Each event writes a "sample" record
 * with its kernel stack and the cookie of the current kernel stay at once,
 * and requests the deferred user stack (one "user" record per stay).
 * This file holds the record, the self event and the start and stop of
 * them all; each source is in its file:
 *
 *   cycles      a perf kernel counter per online CPU at sample_hz: hardware
 *               cycles (its overflow is an NMI) where the PMU has them,
 *   cpu-clock   else the cpu-clock software counter (an hrtimer
 *               interrupt): source_perf.c
 *   syscall:X   raw_syscalls:sys_enter for the syscalls in `syscalls`
 *   offcpu      sched_switch when a user task blocks: both source_tp.c
 *   self        SFRAME_IOC_SELF_STACK on /dev/sframe: here
 *   nmi-test    NMI IPIs on demand (nmi_test.c), for machines without a PMU
 *   tp:S:N      any kernel tracepoint of `tracepoints` (system S, name N)
 *   kprobe:F    any kprobe-able kernel function of `kprobes`: source_any.c
 *
 * They run from the first ustack_sources_start() to the last
 * ustack_sources_stop() (while /dev/ustack is open or a ustack trace event
 * is enabled); parameter changes apply at once.  Each sample also goes to
 * the trace event ustack:sample.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mutex.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include "deferred.h"
#include "source.h"
#include "sources.h"

/*
 * Any user may ask for its own stack, as often as it likes: unless root
 * targets that process (`pid`), its self events reach the ring at a
 * bounded rate, so that no user can fill root's ring with them and push
 * everyone else's records out.  The ones held back are counted.
 */
#define SELF_BURST	100	/* self events a second, untargeted */
static DEFINE_RATELIMIT_STATE(self_rs, HZ, SELF_BURST);
static atomic_long_t self_limited;

static bool self_allowed(void)
{
	int pid = READ_ONCE(ustack_sources_pid);

	if (pid && task_tgid_nr(current) == pid)
		return true;
	if (__ratelimit(&self_rs))
		return true;
	atomic_long_inc(&self_limited);
	return false;
}

/**
 * ustack_sources_self - the "self" event of SFRAME_IOC_SELF_STACK
 *
 * Process context.  Recorded only while /dev/ustack is open.
 *
 * Return: the cookie of the current kernel stay, or 0.
 */
u64 ustack_sources_self(void)
{
	u64 cookie;

	might_sleep();
	/*
	 * Recording means the sources run, the engine with them; without a
	 * reader the engine is not switched on for a self request: no user
	 * can make every context switch of the machine pay for the probe.
	 */
	if (ustack_sources_running() && ustack_sources_wanted(current) && self_allowed()) {
		cookie = ustack_sources_record(USTACK_EVENT_SELF, -1, NULL, 1, NULL);
		/*
		 * The pool (or this user's share of it) had no room for
		 * the walk: the sample says so with cookie 0, but the
		 * caller still gets the stay's cookie.
		 */
		if (cookie)
			return cookie;
	}
	ustack_deferred_request(USTACK_CLIENT_NONE, NULL, &cookie);
	return cookie;
}
static unsigned int users;	/* /dev/ustack's session, the trace events */

/* ---- start and stop --------------------------------------------------------- */

/**
 * ustack_sources_start - start every source that its parameters ask for
 *
 * Process context.  The engine must be enabled.
 *
 * Return: 0 or a negative errno, with nothing started.
 */
int ustack_sources_start(void)
{
	int ret;

	guard(mutex)(&ustack_sources_lock);
	if (users) {
		users++;
		return 0;
	}
	ret = ustack_deferred_enable();
	if (ret)
		return ret;
	ret = ustack_source_perf_start();
	if (ret)
		return ret;
	ret = ustack_source_syscalls_start();
	if (ret)
		goto err_sampling;
	ret = ustack_source_any_start();
	if (ret)
		goto err_syscalls;
	ret = ustack_source_offcpu_start();
	if (ret)
		goto err_any;
	ustack_sources_set_running(true);
	users = 1;
	return 0;

err_any:
	ustack_source_any_stop();
err_syscalls:
	ustack_source_syscalls_stop();
err_sampling:
	ustack_source_perf_stop();
	return ret;
}

/* The last user stops them all; no probe runs after it returns. */
void ustack_sources_stop(void)
{
	guard(mutex)(&ustack_sources_lock);
	if (WARN_ON_ONCE(!users) || --users)
		return;
	ustack_sources_set_running(false);
	ustack_source_any_stop();
	ustack_source_offcpu_stop();
	ustack_source_syscalls_stop();
	ustack_source_perf_stop();
}

/**
 * ustack_sources_set_hz - sample_hz: sample at @hz from now on
 * @hz: the rate per CPU (0: no sampling)
 *
 * Process context.  Takes effect whole or not at all.
 *
 * Return: 0, or the errno of a counter that could not be made, with the
 * old rate still sampling and still read from the parameter.
 */
int ustack_sources_set_hz(unsigned int hz)
{
	guard(mutex)(&ustack_sources_lock);
	return ustack_source_perf_set_hz(hz);
}

/* For the stats: which counters sample, on how many CPUs; self events held back. */
void ustack_sources_counters(int *cycles, int *cpu_clock, long *limited)
{
	*limited = atomic_long_read(&self_limited);
	ustack_source_perf_counters(cycles, cpu_clock);
}

int ustack_sources_init(void)
{
	/* Say how many were held back only at exit, not once a second. */
	ratelimit_set_flags(&self_rs, RATELIMIT_MSG_ON_RELEASE);
	return ustack_source_tp_init();
}

/* Module exit, after the last stop (or a failed init: twice is fine). */
void ustack_sources_exit(void)
{
	ustack_source_any_exit();
	ustack_source_tp_exit();
}
