// SPDX-License-Identifier: GPL-2.0
/*
 * What every event source shares: the lock of their starts and stops,
 * whether they run, which tasks are recorded (`pid`), and the sample
 * record each event writes at once, with its kernel stack and the cookie
 * of the current kernel stay, after requesting the deferred user stack
 * (one "user" record per stay).  Any context, NMI included.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>
#include "deferred.h"
#include "render.h"
#include "ring.h"
#include "source.h"
#include "stage_times.h"
#include "ustack_limits.h"
#include "ustack_trace.h"

int ustack_sources_pid;

DEFINE_MUTEX(ustack_sources_lock);
static bool running;

/* Set by the first start and the last stop, under ustack_sources_lock. */
void ustack_sources_set_running(bool on)
{
	lockdep_assert_held(&ustack_sources_lock);
	WRITE_ONCE(running, on);
}

/* Between a start's end and the next stop (stats: active). */
bool ustack_sources_running(void)
{
	return READ_ONCE(running);
}

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
	u64 cookie, t0 = ustack_stage_begin();

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
	ustack_stage_end(USTACK_STAGE_REQUEST, t0);
	if (ustack_ring_active())
		ustack_ring_write(bp, sizeof(bp->rec) + nr * sizeof(u64) +
				  arg_len, NULL, 0);
	if (bp != &stack_buf)
		this_cpu_dec(nmi_sample_busy);
	ustack_stage_mark_set(cookie);
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
