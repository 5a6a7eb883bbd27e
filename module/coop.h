/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cooperative unwinding (coop.c): opted-in processes answer the engine's
 * walks with their own frames, as `interp` records.
 */
#ifndef USTACK_COOP_H
#define USTACK_COOP_H

#include <linux/atomic.h>
#include <linux/compiler_types.h>

/* Counters, in debugfs stats as coop_<name>. */
struct ustack_coop_stats {
	atomic_long_t signalled;	/* requests raised */
	atomic_long_t answered;		/* answers accepted */
	atomic_long_t empty;		/* answers without frames */
	atomic_long_t refused;		/* answers refused */
	atomic_long_t busy;		/* walks while one was outstanding */
	atomic_long_t expired;		/* requests never answered in time */
	atomic_long_t deferred;		/* raising put off to the real return */
	atomic_long_t blocked;		/* not raised: the thread blocks it */
	atomic_long_t pending;		/* not raised: already pending */
	atomic_long_t no_handler;	/* not raised: default or ignored */
	atomic_long_t full;		/* no slot for the thread */
	atomic_long_t share_refused;	/* a slot refused: the user's share */
	atomic_long_t send_failed;
};

extern struct ustack_coop_stats ustack_coop_stats;
extern unsigned int ustack_coop_timeout_ms;

int ustack_coop_on(int sig);
int ustack_coop_off(void);
int ustack_coop_answer(const void __user *uarg);
int ustack_coop_threads(void);
int ustack_coop_procs(void);
void ustack_coop_init(void);
void ustack_coop_exit(void);

#endif /* USTACK_COOP_H */
