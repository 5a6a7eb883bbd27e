/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cooperative unwinding (coop.c): opted-in processes answer the engine's
 * walks with their own frames, as `interp` records.
 */
#ifndef USTACK_COOP_H
#define USTACK_COOP_H

#include <linux/compiler_types.h>
#include "coop_table.h"	/* opting in and out, the counters */

extern unsigned int ustack_coop_timeout_ms;

int ustack_coop_answer(const void __user *uarg);
void ustack_coop_init(void);
void ustack_coop_exit(void);

#endif /* USTACK_COOP_H */
