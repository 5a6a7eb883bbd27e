// SPDX-License-Identifier: GPL-2.0
/*
 * Event sources: what asks for stacks.  Each event writes a "sample" record
 * with its kernel stack and the cookie of the current kernel stay at once,
 * and requests the deferred user stack (one "user" record per stay).
 *
 *   cycles      a perf kernel counter per online CPU at sample_hz: hardware
 *               cycles (its overflow is an NMI) where the PMU has them,
 *   cpu-clock   else the cpu-clock software counter (an hrtimer interrupt)
 *   syscall:X   raw_syscalls:sys_enter for the syscalls in `syscalls`
 *   offcpu      sched_switch when a user task blocks
 *   self        SFRAME_IOC_SELF_STACK on /dev/sframe
 *   nmi-test    NMI IPIs on demand (nmi_test.c), for machines without a PMU
 *   tp:S:N      any kernel tracepoint of `tracepoints` (system S, name N)
 *   kprobe:F    any kprobe-able kernel function of `kprobes`
 *
 * They run from the first ustack_sources_start() to the last
 * ustack_sources_stop() (while /dev/ustack is open or a ustack trace event
 * is enabled); parameter changes apply at once.  Each sample also goes to
 * the trace event ustack:sample.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>
#include <linux/trace_events.h>
#include <linux/tracepoint.h>
#include "deferred.h"
#include "internal.h"
#include "nmi_excl.h"
#include "render.h"
#include "ring.h"
#include "sources.h"
#include "syscalls.h"
#include "tp.h"
#include "ustack_trace.h"

int ustack_sources_pid;
bool ustack_sources_offcpu;
unsigned int ustack_sources_hz = 99;

static DECLARE_BITMAP(syscall_set, USTACK_SYSCALL_SLOTS);
static DEFINE_MUTEX(sources_lock);
static unsigned int users;	/* /dev/ustack's session, the trace events */
static bool running;
static struct tracepoint *tp_sys_enter, *tp_sched_switch;
static bool sys_enter_on, sched_switch_on, offcpu_live;
static int cpuhp_state = -1;
static DEFINE_PER_CPU(struct perf_event *, sample_event);
static atomic_t sampling_cycles, sampling_clock;	/* CPUs by counter */

static bool wanted(struct task_struct *t)
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
 * Record one event of the current task: request its user stack and write
 * the sample with its kernel stack.  @regs: the interrupted registers (a
 * sampling tick, a kprobe), or NULL (the kernel stack is where we are,
 * less @skip).  @arg: the name of a tp or kprobe event, else NULL.
 */
static u64 record(u16 event, int syscall_nr, struct pt_regs *regs,
		  unsigned int skip, const char *arg)
{
	u32 arg_len = 0;
	struct sample_buf stack_buf, *bp = &stack_buf;
	unsigned long *entries;
	unsigned int nr = 0, first = 0, i;
	u64 cookie;

	BUILD_BUG_ON(sizeof(unsigned long) != sizeof(u64));
	if (in_nmi()) {
		if (this_cpu_inc_return(nmi_sample_busy) > 1) {
			this_cpu_dec(nmi_sample_busy);
			return 0;
		}
		bp = this_cpu_ptr(&nmi_sample_buf);
	}
	entries = (unsigned long *)bp->ips;
	ustack_deferred_request(USTACK_CLIENT_STREAM, regs, &cookie);
	if (!regs || !user_mode(regs)) {
		nr = stack_trace_save(entries, USTACK_KSTACK_MAX, skip);
		/*
		 * From a tick or a kprobe: start at the interrupted or
		 * probed function.  A kprobe's IP is past its int3, and
		 * the function appears as the return address of its
		 * fentry call (ftrace-based kprobes): a few bytes after.
		 */
		for (i = 0; regs && i < nr; i++) {
			if (entries[i] - instruction_pointer(regs) <
			    RECORD_IP_SLACK) {
				first = i;
				break;
			}
		}
		/*
		 * Not found: the unwinder stopped short of it (an optimized
		 * kprobe's trampoline has no unwind data).  The function
		 * itself, then, not our own frames.
		 */
		if (regs && i == nr) {
			entries[0] = instruction_pointer(regs);
			nr = 1;
		}
	}
	nr -= first;
	memmove(bp->ips, bp->ips + first, nr * sizeof(u64));
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
	if (READ_ONCE(running) && wanted(current))
		record(event, -1, regs, 0, NULL);
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
	if (READ_ONCE(running) && wanted(current) && self_allowed()) {
		cookie = record(USTACK_EVENT_SELF, -1, NULL, 1, NULL);
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

/* ---- sampling -------------------------------------------------------------- */

/* Hardware cycles: in NMI.  cpu-clock: in the hrtimer interrupt. */
static void on_sample(struct perf_event *event, struct perf_sample_data *data,
		      struct pt_regs *regs)
{
	ustack_sources_sample(event->attr.type == PERF_TYPE_HARDWARE ?
		      USTACK_EVENT_CYCLES : USTACK_EVENT_CPU_CLOCK, regs);
}

static struct perf_event *sample_counter(unsigned int cpu, u32 type, u64 config)
{
	struct perf_event_attr attr = {
		.type = type,
		.config = config,
		.size = sizeof(attr),
		.freq = 1,
		.sample_freq = READ_ONCE(ustack_sources_hz),
		.pinned = 1,
	};

	return perf_event_create_kernel_counter(&attr, cpu, NULL, on_sample, NULL);
}

static int sample_cpu_online(unsigned int cpu)
{
	struct perf_event *ev;

	if (!READ_ONCE(ustack_sources_hz))
		return 0;
	ev = sample_counter(cpu, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	if (!IS_ERR(ev)) {
		atomic_inc(&sampling_cycles);
	} else {
		ev = sample_counter(cpu, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
		if (IS_ERR(ev)) {
			pr_warn_ratelimited("cpu %u: no cycles or cpu-clock counter: %ld\n",
					    cpu, PTR_ERR(ev));
			return 0;	/* the other CPUs still sample */
		}
		atomic_inc(&sampling_clock);
	}
	per_cpu(sample_event, cpu) = ev;
	return 0;
}

static int sample_cpu_offline(unsigned int cpu)
{
	struct perf_event *ev = per_cpu(sample_event, cpu);

	per_cpu(sample_event, cpu) = NULL;
	if (!ev)
		return 0;
	atomic_dec(ev->attr.type == PERF_TYPE_HARDWARE ?
		   &sampling_cycles : &sampling_clock);
	perf_event_release_kernel(ev);
	return 0;
}

/* For the stats: which counters sample, on how many CPUs; self events held back. */
void ustack_sources_counters(int *cycles, int *cpu_clock, long *limited)
{
	*limited = atomic_long_read(&self_limited);
	*cycles = atomic_read(&sampling_cycles);
	*cpu_clock = atomic_read(&sampling_clock);
}

static int sampling_start(void)
{
	int ret;

	lockdep_assert_held(&sources_lock);
	if (!READ_ONCE(ustack_sources_hz))
		return 0;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "ustack:sample",
				sample_cpu_online, sample_cpu_offline);
	if (ret < 0)
		return ret;
	cpuhp_state = ret;
	pr_info("sampling at %u Hz: cycles on %d CPUs, cpu-clock on %d\n",
		READ_ONCE(ustack_sources_hz), atomic_read(&sampling_cycles),
		atomic_read(&sampling_clock));
	return 0;
}

static void sampling_stop(void)
{
	if (cpuhp_state < 0)
		return;
	cpuhp_remove_state(cpuhp_state);
	cpuhp_state = -1;
}

/* ---- syscalls ------------------------------------------------------------- */

static void probe_sys_enter(void *data, struct pt_regs *regs, long id)
{
	if (id >= 0 && id < USTACK_SYSCALL_SLOTS && test_bit(id, syscall_set) &&
	    wanted(current))
		record(USTACK_EVENT_SYSCALL, id, NULL, 2, NULL);
}

static int syscalls_start(void)
{
	int ret;

	lockdep_assert_held(&sources_lock);
	if (bitmap_empty(syscall_set, USTACK_SYSCALL_SLOTS) || !tp_sys_enter)
		return 0;
	ret = tracepoint_probe_register(tp_sys_enter, probe_sys_enter, NULL);
	if (!ret)
		sys_enter_on = true;
	return ret;
}

static void syscalls_stop(void)
{
	if (!sys_enter_on)
		return;
	tracepoint_probe_unregister(tp_sys_enter, probe_sys_enter, NULL);
	tracepoint_synchronize_unregister();
	sys_enter_on = false;
}

/**
 * ustack_sources_set_syscalls - the system calls that take samples
 * @list: "write,read,openat": names or numbers, comma-separated
 *
 * Nothing is applied unless all of @list is valid.
 *
 * Return: 0, or -EINVAL naming the bad entry in the kernel log.
 */
int ustack_sources_set_syscalls(const char *list)
{
	DECLARE_BITMAP(set, USTACK_SYSCALL_SLOTS);
	char buf[256], *p = buf, *name;
	int nr;

	bitmap_zero(set, USTACK_SYSCALL_SLOTS);
	strscpy(buf, list, sizeof(buf));
	while ((name = strsep(&p, ",\n")) != NULL) {
		name = strim(name);
		if (!*name)
			continue;
		if (kstrtoint(name, 0, &nr))
			nr = ustack_syscalls_nr(name);
		if (nr < 0 || nr >= USTACK_SYSCALL_SLOTS) {
			pr_warn_ratelimited("syscalls: unknown system call '%s'\n", name);
			return -EINVAL;
		}
		__set_bit(nr, set);
	}
	guard(mutex)(&sources_lock);
	if (running)
		syscalls_stop();
	bitmap_copy(syscall_set, set, USTACK_SYSCALL_SLOTS);
	if (running)
		syscalls_start();
	return 0;
}

/* ---- off-CPU -------------------------------------------------------------- */

/* A user task blocks: current == prev, IRQs off, the rq lock held. */
static void probe_sched_switch(void *data, bool preempt,
			       struct task_struct *prev,
			       struct task_struct *next,
			       unsigned int prev_state)
{
	if (!READ_ONCE(offcpu_live) || prev_state == TASK_RUNNING ||
	    (prev_state & TASK_DEAD) || !READ_ONCE(ustack_sources_offcpu) ||
	    !wanted(prev))
		return;
	record(USTACK_EVENT_OFFCPU, -1, NULL, 2, NULL);
}

/*
 * The probe goes in at the first start and stays until module exit,
 * whatever `offcpu` says: putting a probe in or out rewrites the
 * tracepoint's static call, live text patching that every session would
 * otherwise pay twice (and that QEMU's TCG sometimes races).
 */
static int offcpu_start(void)
{
	int ret;

	lockdep_assert_held(&sources_lock);
	if (!sched_switch_on) {
		ret = tracepoint_probe_register(tp_sched_switch,
						probe_sched_switch, NULL);
		if (ret)
			return ret;
		sched_switch_on = true;
	}
	WRITE_ONCE(offcpu_live, true);
	return 0;
}

/* After it returns no probe is still recording into the ring. */
static void offcpu_stop(void)
{
	WRITE_ONCE(offcpu_live, false);
	tracepoint_synchronize_unregister();
}

/* ---- any tracepoint or kprobe --------------------------------------------- */

/*
 * `tracepoints` and `kprobes`: sets of named events, each replaced whole
 * by a parameter write.  A set is checked and, for kprobes, registered
 * (disabled) before it replaces the old one, so a bad name changes
 * nothing; its probes are live only while the sources run.
 */
#define ANY_MAX		16	/* events in one parameter */

struct any_src {
	u16 event;			/* USTACK_EVENT_TP or _KPROBE */
	bool on;			/* probe live */
	struct trace_event_file *file;	/* tp: holds the event (and module) */
	struct tracepoint *tp;
	struct kprobe kp;
	char name[USTACK_SOURCES_NAME_LEN];	/* "system:name", "function" */
};

struct any_set {
	unsigned int n;
	struct any_src src[ANY_MAX];
};

static struct any_set *tp_set, *kp_set;	/* under sources_lock */
static DEFINE_PER_CPU(int, any_nest);

/*
 * An event may fire anywhere: in NMI, under the scheduler's locks, inside
 * this module's own ring or engine sections (a kprobe on a function they
 * call), or inside another such probe on this CPU.  The request path
 * takes any context; re-entering our own sections would not, so those
 * events are let go.
 */
static void any_record(struct any_src *src, struct pt_regs *regs)
{
	if (!READ_ONCE(running) || ustack_nmi_excl_busy() || !wanted(current))
		return;
	if (this_cpu_inc_return(any_nest) == 1)
		record(src->event, -1, regs, regs ? 0 : 2, src->name);
	this_cpu_dec(any_nest);
}

/*
 * Registered on tracepoints of every prototype: the arguments after @data
 * are never read (64-bit ABIs pass them in registers the callee may ignore).
 */
static void probe_any_tp(void *data)
{
	any_record(data, NULL);
}

static int probe_any_kprobe(struct kprobe *kp, struct pt_regs *regs)
{
	any_record(container_of(kp, struct any_src, kp), regs);
	return 0;
}

/* Names of kernel symbols and events: no escaping needed in records. */
static bool any_name_ok(const char *name)
{
	size_t i, n = strlen(name);

	if (!n || n >= USTACK_SOURCES_NAME_LEN)
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum(name[i]) && !strchr("_.:", name[i]))
			return false;
	return true;
}

/* "system:name": the tracepoint behind that trace event. */
static int any_tp_find(struct any_src *src)
{
	char buf[USTACK_SOURCES_NAME_LEN], *name;
	struct trace_event_call *call;

	strscpy(buf, src->name, sizeof(buf));
	name = strchr(buf, ':');
	if (!name || name == buf || !name[1] || strchr(name + 1, ':'))
		return -EINVAL;
	*name++ = '\0';
	src->file = trace_get_event_file(NULL, buf, name);
	if (IS_ERR(src->file)) {
		src->file = NULL;
		return -EINVAL;
	}
	call = src->file->event_call;
	/* Not a kprobe event, a synthetic event or a syscall's event. */
	if (!(call->flags & TRACE_EVENT_FL_TRACEPOINT) || !call->tp)
		return -EINVAL;
	src->tp = call->tp;
	return 0;
}

static void any_set_free(struct any_set *set)
{
	unsigned int i;

	if (!set)
		return;
	for (i = 0; i < set->n; i++) {
		if (set->src[i].event == USTACK_EVENT_KPROBE &&
		    set->src[i].kp.addr)
			unregister_kprobe(&set->src[i].kp);
		if (set->src[i].file)
			trace_put_event_file(set->src[i].file);
	}
	kfree(set);
}

static int any_parse(u16 event, const char *list, struct any_set **out)
{
	char buf[USTACK_SOURCES_LIST_LEN], *p = buf, *name;
	struct any_set *set;
	struct any_src *src;
	unsigned int i;
	int ret;

	set = kzalloc(sizeof(*set), GFP_KERNEL);
	if (!set)
		return -ENOMEM;
	strscpy(buf, list, sizeof(buf));
	while ((name = strsep(&p, ",\n")) != NULL) {
		name = strim(name);
		if (!*name)
			continue;
		for (i = 0; i < set->n; i++)
			if (!strcmp(set->src[i].name, name))
				break;
		if (i < set->n)
			continue;	/* named twice */
		ret = -EINVAL;
		if (set->n == ANY_MAX || !any_name_ok(name))
			goto bad;
		src = &set->src[set->n++];
		src->event = event;
		strscpy(src->name, name, sizeof(src->name));
		if (event == USTACK_EVENT_TP) {
			ret = any_tp_find(src);
		} else {
			src->kp.symbol_name = src->name;
			src->kp.pre_handler = probe_any_kprobe;
			src->kp.flags = KPROBE_FLAG_DISABLED;
			ret = register_kprobe(&src->kp);
			if (ret)
				src->kp.addr = NULL;
		}
		if (ret)
			goto bad;
	}
	*out = set;
	return 0;
bad:
	pr_warn("%s: cannot trace '%s' (%d)\n",
		event == USTACK_EVENT_TP ? "tracepoints" : "kprobes", name, ret);
	any_set_free(set);
	return -EINVAL;
}

static void any_stop(struct any_set *set)
{
	unsigned int i;
	bool tp = false;

	for (i = 0; set && i < set->n; i++) {
		struct any_src *src = &set->src[i];

		if (!src->on)
			continue;
		if (src->event == USTACK_EVENT_KPROBE) {
			disable_kprobe(&src->kp);
		} else {
			tracepoint_probe_unregister(src->tp, probe_any_tp, src);
			tp = true;
		}
		src->on = false;
	}
	if (tp)
		tracepoint_synchronize_unregister();
}

static int any_start(struct any_set *set)
{
	unsigned int i;
	int ret = 0;

	lockdep_assert_held(&sources_lock);
	for (i = 0; set && i < set->n; i++) {
		struct any_src *src = &set->src[i];

		if (src->event == USTACK_EVENT_KPROBE)
			ret = enable_kprobe(&src->kp);
		else
			ret = tracepoint_probe_register(src->tp, probe_any_tp,
							src);
		if (ret) {
			pr_warn("cannot start %s: %d\n", src->name, ret);
			any_stop(set);
			return ret;
		}
		src->on = true;
	}
	return 0;
}

/**
 * ustack_sources_set_any - the tracepoints or kprobes that take samples
 * @event: USTACK_EVENT_TP ("sched:sched_process_exec,...") or
 *	USTACK_EVENT_KPROBE ("vfs_write,...")
 * @list: the names, comma-separated; empty for none
 *
 * Nothing is applied unless all of @list is valid (and, while the sources
 * run, its probes are in).
 *
 * Return: 0, or -EINVAL naming the bad entry in the kernel log, -ENOMEM.
 */
int ustack_sources_set_any(u16 event, const char *list)
{
	struct any_set *set, **cur = event == USTACK_EVENT_TP ? &tp_set : &kp_set;
	int ret;

	guard(mutex)(&sources_lock);
	ret = any_parse(event, list, &set);
	if (ret)
		return ret;
	if (running) {
		ret = any_start(set);
		if (ret) {
			any_set_free(set);
			return ret;
		}
		any_stop(*cur);
	}
	swap(*cur, set);
	any_set_free(set);
	return 0;
}

/**
 * ustack_sources_get_any - the active names, as written
 * @event: USTACK_EVENT_TP or USTACK_EVENT_KPROBE
 * @buf: a sysfs page
 *
 * Return: the bytes written.
 */
int ustack_sources_get_any(u16 event, char *buf)
{
	struct any_set *set;
	unsigned int i;
	int len = 0;

	guard(mutex)(&sources_lock);
	set = event == USTACK_EVENT_TP ? tp_set : kp_set;
	for (i = 0; set && i < set->n; i++)
		len += sysfs_emit_at(buf, len, "%s%s", i ? "," : "",
				     set->src[i].name);
	return len + sysfs_emit_at(buf, len, "\n");
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

	guard(mutex)(&sources_lock);
	if (users) {
		users++;
		return 0;
	}
	ret = ustack_deferred_enable();
	if (ret)
		return ret;
	ret = sampling_start();
	if (ret)
		return ret;
	ret = syscalls_start();
	if (ret)
		goto err_sampling;
	ret = any_start(tp_set);
	if (ret)
		goto err_syscalls;
	ret = any_start(kp_set);
	if (ret)
		goto err_tp;
	ret = offcpu_start();
	if (ret)
		goto err_kp;
	WRITE_ONCE(running, true);
	users = 1;
	return 0;

err_kp:
	any_stop(kp_set);
err_tp:
	any_stop(tp_set);
err_syscalls:
	syscalls_stop();
err_sampling:
	sampling_stop();
	return ret;
}

/* The last user stops them all; no probe runs after it returns. */
void ustack_sources_stop(void)
{
	guard(mutex)(&sources_lock);
	if (WARN_ON_ONCE(!users) || --users)
		return;
	WRITE_ONCE(running, false);
	any_stop(kp_set);
	any_stop(tp_set);
	offcpu_stop();
	syscalls_stop();
	sampling_stop();
}

/* sample_hz: restart the counters at the new rate. */
void ustack_sources_set_hz(unsigned int hz)
{
	WRITE_ONCE(ustack_sources_hz, hz);
	guard(mutex)(&sources_lock);
	if (running) {
		sampling_stop();
		if (sampling_start())
			pr_warn_ratelimited("cannot restart sampling\n");
	}
}

int ustack_sources_init(void)
{
	/* Say how many were held back only at exit, not once a second. */
	ratelimit_set_flags(&self_rs, RATELIMIT_MSG_ON_RELEASE);
	tp_sched_switch = ustack_tp_find("sched_switch");
	if (!tp_sched_switch) {
		pr_err("no sched_switch tracepoint\n");
		return -ENOENT;
	}
	tp_sys_enter = ustack_tp_find("sys_enter");
	if (!tp_sys_enter)
		pr_warn("no sys_enter tracepoint: syscall events unavailable\n");
	return 0;
}

/* Between a start's end and the next stop (stats: active). */
bool ustack_sources_running(void)
{
	return READ_ONCE(running);
}

/* Module exit, after the last stop (or a failed init: twice is fine). */
void ustack_sources_exit(void)
{
	any_set_free(kp_set);
	any_set_free(tp_set);
	kp_set = NULL;
	tp_set = NULL;
	if (sched_switch_on) {
		tracepoint_probe_unregister(tp_sched_switch,
					    probe_sched_switch, NULL);
		tracepoint_synchronize_unregister();
		sched_switch_on = false;
	}
}
