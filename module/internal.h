/* SPDX-License-Identifier: GPL-2.0 */
/* ustack.ko: the limits every layer shares. */
#ifndef USTACK_INTERNAL_H
#define USTACK_INTERNAL_H

#include <linux/types.h>
#include <uapi/ustack.h>
#include "compat.h"

struct pt_regs;

#define USTACK_VERSION "0.1.0"

/* Limits of one walk and one record. */
#define USTACK_FRAMES_LIMIT	1024	/* max value of max_frames */
#define USTACK_KSTACK_MAX	64	/* kernel frames per sample */
#define USTACK_STRTAB_MAX	4096	/* object names per user record */
#define USTACK_REC_MAX		(sizeof(struct ustack_rec_user) + \
				 USTACK_FRAMES_LIMIT * sizeof(struct ustack_frame) + \
				 USTACK_STRTAB_MAX)

/*
 * The user walk (walk.c).  ustack_walk_user() walks the current task's
 * user stack from @regs (its user-mode registers) in faultable task
 * context: SFrame where the PC has a registered or discovered section,
 * else frame pointers.  It stores up to @max frames (ips[0] = the
 * interrupted IP) with their enum ustack_method in @methods (may be
 * NULL), returns the count and sets *@end (enum ustack_end).
 */
u32 ustack_walk_user(struct pt_regs *regs, u64 *ips, u8 *methods, u32 max,
		     u8 *end);

#endif /* USTACK_INTERNAL_H */
