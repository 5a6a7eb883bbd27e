/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The time of a sample's stages (stage_times.c), below everything that
 * times one: the request, the engine, the record and the ring call these,
 * and the stats read the sums.
 */
#ifndef USTACK_STAGE_TIMES_H
#define USTACK_STAGE_TIMES_H

#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <linux/types.h>

struct seq_file;

/*
 * The stages of a sample, timed only while the stage_times parameter is
 * set (stats: stage_NAME_ns, the time summed, and stage_NAME_n, how many
 * times): where the time of a sample goes.
 */
enum ustack_stage {
	USTACK_STAGE_REQUEST,	/* the event in the interrupt, less the ring */
	USTACK_STAGE_DEFERRAL,	/* from the sample's end to its task_work */
	USTACK_STAGE_WALK,	/* the user walk */
	USTACK_STAGE_RECORD,	/* the user record, less the ring */
	USTACK_STAGE_RING,	/* a record's ring write */
	USTACK_STAGE_COOP_REQUEST,	/* a cooperative request raised */
	USTACK_STAGE_COOP_ANSWER,	/* its answer's ioctl, ring write too */
	USTACK_STAGE_MAX,
};

struct ustack_stage_sums {
	u64 ns[USTACK_STAGE_MAX];
	u64 n[USTACK_STAGE_MAX];
};

DECLARE_PER_CPU(struct ustack_stage_sums, ustack_stage_sums);
extern bool ustack_stage_times;

/* A stage's start: 0 (not timed) unless stage_times is set.  NMI-safe. */
static inline u64 ustack_stage_begin(void)
{
	return READ_ONCE(ustack_stage_times) ? ktime_get_mono_fast_ns() : 0;
}

/* A stage's end, counted on this CPU if its start was timed. */
static inline void ustack_stage_end(enum ustack_stage s, u64 t0)
{
	if (!t0)
		return;
	this_cpu_add(ustack_stage_sums.ns[s], ktime_get_mono_fast_ns() - t0);
	this_cpu_inc(ustack_stage_sums.n[s]);
}

/*
 * A stage in task context, which may be switched out: its start, and the
 * task's context switches so far in *@sw.  Where others run meanwhile
 * (many processes on a CPU), the clock would count their time too.
 */
static inline u64 ustack_stage_task_begin(unsigned long *sw)
{
	*sw = current->nvcsw + current->nivcsw;
	return ustack_stage_begin();
}

/* Its end, counted only if the task was not switched out in between. */
static inline void ustack_stage_task_end(enum ustack_stage s, u64 t0,
					 unsigned long sw)
{
	if (current->nvcsw + current->nivcsw == sw)
		ustack_stage_end(s, t0);
}

/* The end of this CPU's last sample in the interrupt, and its stay. */
struct ustack_stage_mark {
	u64 cookie, ns;
};

DECLARE_PER_CPU(struct ustack_stage_mark, ustack_stage_mark);

/* A sample of stay @cookie ends here in the interrupt (if timed). */
static inline void ustack_stage_mark_set(u64 cookie)
{
	if (!cookie || !READ_ONCE(ustack_stage_times))
		return;
	this_cpu_write(ustack_stage_mark.ns, ktime_get_mono_fast_ns());
	this_cpu_write(ustack_stage_mark.cookie, cookie);
}

/* Stage @s ends: it began at the mark, if the mark is of stay @cookie. */
static inline void ustack_stage_end_mark(enum ustack_stage s, u64 cookie)
{
	if (!cookie || this_cpu_read(ustack_stage_mark.cookie) != cookie)
		return;
	this_cpu_write(ustack_stage_mark.cookie, 0);
	ustack_stage_end(s, this_cpu_read(ustack_stage_mark.ns));
}

void ustack_stage_times_show(struct seq_file *m);

#endif /* USTACK_STAGE_TIMES_H */
