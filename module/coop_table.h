/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tables of cooperative unwinding, for its protocol (coop.c): the
 * opted-in processes (coop_procs.c) and the threads' requests
 * (coop_threads.c).  Both are shared by every user and give each user a
 * share of them.
 */
#ifndef USTACK_COOP_TABLE_H
#define USTACK_COOP_TABLE_H

#include <linux/atomic.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>

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

/* COOP_ON and COOP_OFF (coop_procs.c); the tables' sizes in use. */
int ustack_coop_on(int sig);
int ustack_coop_off(void);
int ustack_coop_procs(void);
int ustack_coop_threads(void);

enum { COOP_FREE, COOP_OWED, COOP_ASKED };

/* Who a thread entry is for: nothing in it is ever reused. */
struct coop_key {
	const struct task_struct *task;	/* compared only */
	u64 start;			/* the task's start_time */
	u64 gen;			/* the process's opt-in */
};

struct ustack_share;

struct coop_thread {
	struct hlist_node hnode;	/* hash, free list, or unhashed */
	struct coop_key key;		/* key.task NULL: free */
	struct ustack_share *share;	/* its user's, while key.task is set */
	u8 state;
	bool work_queued;		/* the work owns the entry */
	bool released;			/* freed while its work was queued */
	int sig;
	u64 cookie;
	unsigned long deadline;		/* jiffies, COOP_OWED and COOP_ASKED */
	struct callback_head work;
};

/* IRQs off: stay_end() runs in the user-return notifier. */
extern raw_spinlock_t ustack_coop_threads_lock;

int ustack_coop_current_key(struct coop_key *key);
struct coop_thread *ustack_coop_thread_lookup(const struct coop_key *key);
struct coop_thread *ustack_coop_thread_new_locked(const struct coop_key *key);
void ustack_coop_thread_free_locked(struct coop_thread *e);
bool ustack_coop_expired(const struct coop_thread *e);
bool ustack_coop_thread_work_done_locked(struct coop_thread *e, bool exiting);
void ustack_coop_threads_init(void);
void ustack_coop_procs_init(void);
void ustack_coop_procs_exit(void);

#endif /* USTACK_COOP_TABLE_H */
