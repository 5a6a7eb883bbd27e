/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the stay (stay.c) sees its task's real return to user space, the
 * one moment a stay may end.  A kernel with user-return notifiers (x86:
 * CONFIG_USER_RETURN_NOTIFIER) has a per-CPU notifier, fired last on the
 * exit path; stay_urn.c arms it.  Elsewhere (arm64) the exit path's
 * work loop is a function (USTACK_EXIT_WORK, compat.h), and its
 * return is the return to user space; stay_exitprobe.c puts a return
 * probe on it.  Used by stay.c alone.
 */
#ifndef USTACK_STAY_RETURN_H
#define USTACK_STAY_RETURN_H

#include <linux/types.h>

struct ustack_task;

#ifdef CONFIG_USER_RETURN_NOTIFIER
#include <linux/user-return-notifier.h>

/* The notifier, armed on one CPU's list at a time, or parked. */
struct ustack_return {
	struct user_return_notifier urn;
	bool on, parked;
	int cpu;
};
#else
/* The return probe met the exit work with this stay begun. */
struct ustack_return {
	bool seen;
};
#endif

/*
 * All with IRQs off and NMIs on this CPU backing off (nmi_excl.h), on
 * the task's own CPU:
 *   ustack_return_watch(st, nmi)   a stay begins: watch for its return
 *				    (@nmi: in NMI, later)
 *   ustack_return_unwatch(st)      the stay ends otherwise (a dying task)
 *   ustack_return_watched(&st->ret)  will its return be seen?  Else its walk
 *				    ends it
 *   ustack_return_switch_out(st), _switch_in(st)   the task is switched
 *   ustack_return_kick(st)         after an NMI request, IRQs on again:
 *				    what the NMI could not do
 * The return probe's are inline (most do nothing: the probe is global),
 * off the request and sched_switch paths.
 */
#ifdef CONFIG_USER_RETURN_NOTIFIER
void ustack_return_watch(struct ustack_task *st, bool nmi);
void ustack_return_unwatch(struct ustack_task *st);
void ustack_return_switch_out(struct ustack_task *st);
void ustack_return_switch_in(struct ustack_task *st);
void ustack_return_kick(struct ustack_task *st);

/* The notifier always fires: armed, or parked until the task runs. */
static inline bool ustack_return_watched(const struct ustack_return *r)
{
	return true;
}
#else
static inline void ustack_return_watch(struct ustack_task *st, bool nmi) {}
static inline void ustack_return_switch_out(struct ustack_task *st) {}
static inline void ustack_return_switch_in(struct ustack_task *st) {}
static inline void ustack_return_kick(struct ustack_task *st) {}

static inline bool ustack_return_watched(const struct ustack_return *r)
{
	return r->seen;
}

void ustack_return_unwatch(struct ustack_task *st);
#endif

/* @fired: the real return of current, whose state is @st; IRQs off. */
void ustack_return_init(void (*fired)(struct ustack_task *st));
/* Before the first stay (process context, once); undone at exit. */
int ustack_return_enable(void);
/* Module exit, after the sched_switch probe is out. */
void ustack_return_exit(void);

#endif /* USTACK_STAY_RETURN_H */
