/* SPDX-License-Identifier: GPL-2.0 */
/* The user walk (user_walk.c): the kernel's hooks into the core's walk loop. */
#ifndef USTACK_USER_WALK_H
#define USTACK_USER_WALK_H

#include <linux/types.h>

struct pt_regs;

/*
 * ustack_walk_user() walks the current task's user stack from @regs (its
 * user-mode registers) in faultable task context: SFrame where the PC has
 * a registered or discovered section, else frame pointers.  It stores up
 * to @max frames (ips[0] = the interrupted IP) with their enum
 * ustack_method in @methods (may be NULL), returns the count and sets
 * *@end (enum ustack_end).
 */
u32 ustack_walk_user(struct pt_regs *regs, u64 *ips, u8 *methods, u32 max,
		     u8 *end);

/* Parameter guess: scan the stack where no rule is known (0/1). */
extern bool ustack_walk_guess;
extern bool ustack_walk_rule_cache;

int ustack_walk_init(void);
void ustack_walk_exit(void);

struct seq_file;
void ustack_walk_show(struct seq_file *m);

#endif /* USTACK_USER_WALK_H */
