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
#include <linux/stacktrace.h>
#include "deferred.h"
#include "ustack_limits.h"
#include "render.h"
#include "ring.h"
#include "source.h"
#include "ustack_trace.h"

int ustack_sources_pid;
bool ustack_sources_offcpu;
unsigned int ustack_sources_hz = 99;


DEFINE_MUTEX(ustack_sources_lock);
static unsigned int users;	/* /dev/ustack's session, the trace events */
static bool running;

bool ustack_sources_wanted(struct task_struct *t)
{
	int pid = READ_ONCE(ustack_sources_pid);

	if (!ustack_runs_user_code(t))
		return false;
	return !pid || task_tgid_nr(t) == pid;
}

struct sample_buf {
	struct ustack_rec_sample rec;
	u64 ips[USTACK_KSTACK_MAX];
	char arg[USTACK_SOURCES_NAME_LEN];	/* tp, kprobe: its name */
};

/*
 * One buffer per CPU keeps ~600 bytes off the NMI stack.  NMIs do not
 * nest, but an int3 kprobe counts as NMI too and a real NMI may land in
 * it: the later one goes without a sample.
 */
static DEFINE_PER_CPU(struct sample_buf, nmi_sample_buf);
static DEFINE_PER_CPU(int, nmi_sample_busy);

#define RECORD_IP_SLACK	16	/* bytes; see record() */

/* The sample as a trace event (the name as the text record says it). */
static void trace_one(const struct sample_buf *bp)
{
	char name[USTACK_TRACE_EVENT_LEN];

	ustack_render_event(&bp->rec, name, sizeof(name));
	trace_sample(bp->rec.cookie, name, bp->ips, bp->rec.nr_kernel);
}

/*
 * The kernel stack of the event into bp->ips: the frames from the
 * interrupted or probed function on (@regs), or from our caller's caller
 * (less @skip).  None for an event in user mode.  Return: the frames.
 * Inline: @skip counts the frames above ustack_sources_record().
 */
static __always_inline unsigned int record_kstack(struct sample_buf *bp,
						  struct pt_regs *regs,
						  unsigned int skip)
{
	unsigned long *entries = (unsigned long *)bp->ips;
	unsigned int nr, first = 0, i;

	BUILD_BUG_ON(sizeof(unsigned long) != sizeof(u64));
	if (regs && user_mode(regs))
		return 0;
	nr = stack_trace_save(entries, USTACK_KSTACK_MAX, skip);
	/*
	 * From a tick or a kprobe: start at the interrupted or probed
	 * function.  A kprobe's IP is past its int3, and the function
	 * appears as the return address of its fentry call (ftrace-based
	 * kprobes): a few bytes after.
	 */
	for (i = 0; regs && i < nr; i++) {
		if (entries[i] - instruction_pointer(regs) < RECORD_IP_SLACK) {
			first = i;
			break;
		}
	}
	/*
	 * Not found: the unwinder stopped short of it (an optimized kprobe's
	 * trampoline has no unwind data).  The function itself, then, not
	 * our own frames.
	 */
	if (regs && i == nr) {
		entries[0] = instruction_pointer(regs);
		nr = 1;
	}
	nr -= first;
	memmove(bp->ips, bp->ips + first, nr * sizeof(u64));
	return nr;
}

/*
 * Record one event of the current task: request its user stack and write
 * the sample with its kernel stack.  @regs: the interrupted registers (a
 * sampling tick, a kprobe), or NULL (the kernel stack is where we are,
 * less @skip).  @arg: the name of a tp or kprobe event, else NULL.
 */
u64 ustack_sources_record(u16 event, int syscall_nr, struct pt_regs *regs,
		  unsigned int skip, const char *arg)
{
	u32 arg_len = 0;
	struct sample_buf stack_buf, *bp = &stack_buf;
	unsigned int nr;
	u64 cookie;

	if (in_nmi()) {
		if (this_cpu_inc_return(nmi_sample_busy) > 1) {
			this_cpu_dec(nmi_sample_busy);
			return 0;
		}
		bp = this_cpu_ptr(&nmi_sample_buf);
	}
	ustack_deferred_request(USTACK_CLIENT_STREAM, regs, &cookie);
	nr = record_kstack(bp, regs, skip);
	if (arg) {
		/* Right after the frames, as the record carries it. */
		arg_len = strscpy((char *)(bp->ips + nr), arg,
				  sizeof(bp->arg)) + 1;
	}

	bp->rec = (struct ustack_rec_sample) {
		.hdr = {
			.type = USTACK_REC_SAMPLE,
			.size = ALIGN(sizeof(bp->rec) + nr * sizeof(u64) +
				      arg_len, 8),
		},
		.cookie = cookie,
		.time_ns = ktime_get_mono_fast_ns(),	/* NMI-safe */
		.pid = task_tgid_nr(current),
		.tid = task_pid_nr(current),
		.cpu = raw_smp_processor_id(),
		.event = event,
		.nr_kernel = nr,
		.syscall_nr = syscall_nr,
	};
	/* No task_lock: we may have interrupted its holder (exec). */
	strscpy_pad(bp->rec.comm, current->comm, sizeof(bp->rec.comm));
	if (trace_sample_enabled())
		trace_one(bp);
	if (ustack_ring_active())
		ustack_ring_write(bp, sizeof(bp->rec) + nr * sizeof(u64) +
				  arg_len, NULL, 0);
	if (bp != &stack_buf)
		this_cpu_dec(nmi_sample_busy);
	return cookie;
}

/**
 * ustack_sources_sample - a sample of the interrupted task
 * @event: enum ustack_event
 * @regs: the registers the interrupt or NMI saved
 *
 * From a sampling interrupt or an NMI.
 */
void ustack_sources_sample(u16 event, struct pt_regs *regs)
{
	if (ustack_sources_running() && ustack_sources_wanted(current))
		ustack_sources_record(event, -1, regs, 0, NULL);
}

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
	WRITE_ONCE(running, true);
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
	WRITE_ONCE(running, false);
	ustack_source_any_stop();
	ustack_source_offcpu_stop();
	ustack_source_syscalls_stop();
	ustack_source_perf_stop();
}

/* sample_hz: restart the counters at the new rate. */
void ustack_sources_set_hz(unsigned int hz)
{
	WRITE_ONCE(ustack_sources_hz, hz);
	guard(mutex)(&ustack_sources_lock);
	if (running) {
		ustack_source_perf_stop();
		if (ustack_source_perf_start())
			pr_warn_ratelimited("cannot restart sampling\n");
	}
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

/* Between a start's end and the next stop (stats: active). */
bool ustack_sources_running(void)
{
	return READ_ONCE(running);
}

/* Module exit, after the last stop (or a failed init: twice is fine). */
void ustack_sources_exit(void)
{
	ustack_source_any_exit();
	ustack_source_tp_exit();
}
