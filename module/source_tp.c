// SPDX-License-Identifier: GPL-2.0
/*
 * The sources on fixed kernel tracepoints:
 *   syscall:X   raw_syscalls:sys_enter for the system calls of `syscalls`
 *   offcpu      sched_switch when a user task blocks (`offcpu`)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched.h>
#include <linux/tracepoint.h>
#include "fault_test.h"
#include "source.h"
#include "syscalls.h"
#include "tracepoint_lookup.h"

bool ustack_sources_offcpu;

static DECLARE_BITMAP(syscall_set, USTACK_SYSCALL_SLOTS);
static struct tracepoint *tp_sys_enter, *tp_sched_switch;
static bool sys_enter_on, sched_switch_on, offcpu_live;

static void probe_sys_enter(void *data, struct pt_regs *regs, long id)
{
	if (id >= 0 && id < USTACK_SYSCALL_SLOTS && test_bit(id, syscall_set) &&
	    ustack_sources_wanted(current))
		ustack_sources_record(USTACK_EVENT_SYSCALL, id, NULL, 2, NULL);
}

/* The sys_enter probe in, if it is not. */
static int sys_enter_in(void)
{
	int ret;

	if (sys_enter_on)
		return 0;
	if (ustack_fault_test())
		return -ENOMEM;
	ret = tracepoint_probe_register(tp_sys_enter, probe_sys_enter, NULL);
	if (!ret)
		sys_enter_on = true;
	return ret;
}

int ustack_source_syscalls_start(void)
{
	lockdep_assert_held(&ustack_sources_lock);
	if (bitmap_empty(syscall_set, USTACK_SYSCALL_SLOTS) || !tp_sys_enter)
		return 0;
	return sys_enter_in();
}

void ustack_source_syscalls_stop(void)
{
	if (!sys_enter_on)
		return;
	tracepoint_probe_unregister(tp_sys_enter, probe_sys_enter, NULL);
	tracepoint_synchronize_unregister();
	sys_enter_on = false;
}

/*
 * @set replaces the system calls that take samples, whole or not at all:
 * while the sources run, the probe goes in (if it was out) before the set
 * changes and out (if the set is empty) after; in between, the probe
 * reads one set or the other, bit by bit, which costs a sample at most.
 */
static int syscalls_replace(const unsigned long *set)
{
	bool probe = !bitmap_empty(set, USTACK_SYSCALL_SLOTS) && tp_sys_enter;
	int ret;

	guard(mutex)(&ustack_sources_lock);
	if (ustack_sources_running() && probe) {
		ret = sys_enter_in();
		if (ret)
			return ret;
	}
	bitmap_copy(syscall_set, set, USTACK_SYSCALL_SLOTS);
	if (!probe)
		ustack_source_syscalls_stop();
	return 0;
}

/**
 * ustack_sources_set_syscalls - the system calls that take samples
 * @list: "write,read,openat": names or numbers, comma-separated
 *
 * Nothing is applied unless all of @list is valid and, while the sources
 * run, its probe is in.
 *
 * Return: 0, -EINVAL naming the bad entry in the kernel log, or the errno
 * of the probe's registration (the old list still applies).
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
	return syscalls_replace(set);
}

/* A user task blocks: current == prev, IRQs off, the rq lock held. */
static void probe_sched_switch(void *data, bool preempt,
			       struct task_struct *prev,
			       struct task_struct *next,
			       unsigned int prev_state)
{
	if (!READ_ONCE(offcpu_live) || prev_state == TASK_RUNNING ||
	    (prev_state & TASK_DEAD) || !READ_ONCE(ustack_sources_offcpu) ||
	    !ustack_sources_wanted(prev))
		return;
	ustack_sources_record(USTACK_EVENT_OFFCPU, -1, NULL, 2, NULL);
}

/*
 * The probe goes in at the first start and stays until module exit,
 * whatever `offcpu` says: putting a probe in or out rewrites the
 * tracepoint's static call, live text patching that every session would
 * otherwise pay twice (and that QEMU's TCG sometimes races).
 */
int ustack_source_offcpu_start(void)
{
	int ret;

	lockdep_assert_held(&ustack_sources_lock);
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
void ustack_source_offcpu_stop(void)
{
	WRITE_ONCE(offcpu_live, false);
	tracepoint_synchronize_unregister();
}


/* Module init: find the tracepoints (sched_switch is needed). */
int ustack_source_tp_init(void)
{
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

/* Module exit, after the last stop: the off-CPU probe goes out. */
void ustack_source_tp_exit(void)
{
	if (sched_switch_on) {
		tracepoint_probe_unregister(tp_sched_switch,
					    probe_sched_switch, NULL);
		tracepoint_synchronize_unregister();
		sched_switch_on = false;
	}
}
