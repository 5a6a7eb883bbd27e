/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stay (stay.c): one task's time in the kernel, from its first request
 * to its real return to user space, with the cookie every request of it
 * shares.  Used by the deferred engine (deferred.c) alone.
 */
#ifndef USTACK_STAY_H
#define USTACK_STAY_H

#include <linux/sched.h>
#include <linux/types.h>
#include "task_pool.h"

u64 ustack_cookie_new(void);
void ustack_stay_begin(struct ustack_task *st, struct task_struct *t, bool nmi);
void ustack_stay_end(struct ustack_task *st);
bool ustack_stay_returns(const struct ustack_task *st);
void ustack_stay_nmi_kick(void);
bool ustack_stay_tracked(void);

int ustack_stay_init(void (*ended)(const struct ustack_task *st));
int ustack_stay_enable(void);
void ustack_stay_exit(void);

#endif /* USTACK_STAY_H */
