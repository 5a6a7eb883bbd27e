/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace events of ustack (trace_events.c defines them), under
 * /sys/kernel/tracing/events/ustack/: the samples and user stacks of
 * /dev/ustack, with the same cookies, for perf, trace-cmd and BPF.
 * Enabling either for a consumer entitled to system-wide stacks starts
 * the sources (trace_events.c, trace_consumer.c), as opening /dev/ustack
 * does.
 *
 * Strings are fixed arrays, not __string(): __assign_str() changed its
 * arguments in 6.10, and these are short.  The print formats stay within
 * what perf's and trace-cmd's libtraceevent parse: array lengths are
 * fields, element sizes literals.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ustack

#if !defined(USTACK_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define USTACK_TRACE_H

#include <linux/string.h>
#include <linux/tracepoint.h>

#define USTACK_TRACE_EVENT_LEN	80	/* tp:<system>:<name> and its NUL */
#define USTACK_TRACE_END_LEN	16

/*
 * A trace event must fit in one page of the trace ring buffer: deeper
 * stacks are cut to this many frames (nr_frames says how many the walk
 * found; the record on /dev/ustack has them all).
 */
#define USTACK_TRACE_MAX_FRAMES	256

TRACE_EVENT(sample,

	TP_PROTO(u64 cookie, const char *event, const u64 *kstack,
		 unsigned int nr_kernel),

	TP_ARGS(cookie, event, kstack, nr_kernel),

	TP_STRUCT__entry(
		__field(u64, cookie)
		__field(pid_t, pid)
		__field(pid_t, tid)
		__field(u32, nr_kernel)
		__array(char, event, USTACK_TRACE_EVENT_LEN)
		__dynamic_array(u64, kstack, nr_kernel)
	),

	TP_fast_assign(
		__entry->cookie = cookie;
		__entry->pid = task_tgid_nr(current);
		__entry->tid = task_pid_nr(current);
		__entry->nr_kernel = nr_kernel;
		strscpy_pad(__entry->event, event, USTACK_TRACE_EVENT_LEN);
		memcpy(__get_dynamic_array(kstack), kstack,
		       nr_kernel * sizeof(u64));
	),

	TP_printk("cookie=0x%016llx pid=%d tid=%d event=%s kstack=%s",
		  __entry->cookie, __entry->pid, __entry->tid, __entry->event,
		  __print_array(__get_dynamic_array(kstack),
				__entry->nr_kernel, 8))
);

TRACE_EVENT(user_stack,

	TP_PROTO(u64 cookie, const char *end, unsigned int nr_frames,
		 const u64 *ips, const u8 *methods),

	TP_ARGS(cookie, end, nr_frames, ips, methods),

	TP_STRUCT__entry(
		__field(u64, cookie)
		__field(pid_t, pid)
		__field(pid_t, tid)
		__field(u32, nr_frames)
		__field(u32, nr_ips)
		__array(char, end, USTACK_TRACE_END_LEN)
		__dynamic_array(u64, ips,
				min_t(u32, nr_frames, USTACK_TRACE_MAX_FRAMES))
		__dynamic_array(u8, methods,
				min_t(u32, nr_frames, USTACK_TRACE_MAX_FRAMES))
	),

	TP_fast_assign(
		__entry->cookie = cookie;
		__entry->pid = task_tgid_nr(current);
		__entry->tid = task_pid_nr(current);
		__entry->nr_frames = nr_frames;
		__entry->nr_ips = min_t(u32, nr_frames, USTACK_TRACE_MAX_FRAMES);
		strscpy_pad(__entry->end, end, USTACK_TRACE_END_LEN);
		memcpy(__get_dynamic_array(ips), ips,
		       min_t(u32, nr_frames, USTACK_TRACE_MAX_FRAMES) *
		       sizeof(u64));
		memcpy(__get_dynamic_array(methods), methods,
		       min_t(u32, nr_frames, USTACK_TRACE_MAX_FRAMES));
	),

	TP_printk("cookie=0x%016llx pid=%d tid=%d end=%s frames=%u ips=%s methods=%s",
		  __entry->cookie, __entry->pid, __entry->tid, __entry->end,
		  __entry->nr_frames,
		  __print_array(__get_dynamic_array(ips), __entry->nr_ips, 8),
		  __print_array(__get_dynamic_array(methods),
				__entry->nr_ips, 1))
);

#endif /* USTACK_TRACE_H */

/* Out of tree: define_trace.h must find this header next to its user. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ustack_trace
#include <trace/define_trace.h>
