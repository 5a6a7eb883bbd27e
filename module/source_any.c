// SPDX-License-Identifier: GPL-2.0
/*
 * The sources users name:
 *   tp:S:N      any kernel tracepoint of `tracepoints` (system S, name N)
 *   kprobe:F    any kprobe-able kernel function of `kprobes`
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/trace_events.h>
#include <linux/tracepoint.h>
#include "nmi_excl.h"
#include "source.h"

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

static struct any_set *tp_set, *kp_set;	/* under ustack_sources_lock */
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
	if (!ustack_sources_running() || ustack_nmi_excl_busy() || !ustack_sources_wanted(current))
		return;
	if (this_cpu_inc_return(any_nest) == 1)
		ustack_sources_record(src->event, -1, regs, regs ? 0 : 2, src->name);
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

	lockdep_assert_held(&ustack_sources_lock);
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

	guard(mutex)(&ustack_sources_lock);
	ret = any_parse(event, list, &set);
	if (ret)
		return ret;
	if (ustack_sources_running()) {
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

	guard(mutex)(&ustack_sources_lock);
	set = event == USTACK_EVENT_TP ? tp_set : kp_set;
	for (i = 0; set && i < set->n; i++)
		len += sysfs_emit_at(buf, len, "%s%s", i ? "," : "",
				     set->src[i].name);
	return len + sysfs_emit_at(buf, len, "\n");
}


/* Start the probes of both sets: 0, or an errno with none started. */
int ustack_source_any_start(void)
{
	int ret;

	ret = any_start(tp_set);
	if (ret)
		return ret;
	ret = any_start(kp_set);
	if (ret)
		any_stop(tp_set);
	return ret;
}

void ustack_source_any_stop(void)
{
	any_stop(kp_set);
	any_stop(tp_set);
}

/* Module exit, after the last stop (or a failed init: twice is fine). */
void ustack_source_any_exit(void)
{
	any_set_free(kp_set);
	any_set_free(tp_set);
	kp_set = NULL;
	tp_set = NULL;
}
