/* SPDX-License-Identifier: GPL-2.0 */
/* ustack.ko: the limits every layer shares. */
#ifndef USTACK_LIMITS_H
#define USTACK_LIMITS_H

#include <linux/types.h>
#include <uapi/ustack.h>
#include "compat.h"

#define USTACK_VERSION "0.1.0"

/* Limits of one walk and one record. */
#define USTACK_FRAMES_LIMIT	1024	/* max value of max_frames */
#define USTACK_KSTACK_MAX	64	/* kernel frames per sample */
#define USTACK_STRTAB_MAX	4096	/* object names per user record */
/* Registrations of one process: entries, and the sum of their sframe_len. */
#define REG_MAX_ENTRIES		256
#define REG_MAX_BYTES		((u64)USTACK_SFRAME_MAX_BYTES)

/*
 * The largest record: a packed user stack (27 bytes a frame with an
 * object each) is larger than its struct ustack_frame form (24).
 */
#define USTACK_REC_MAX		(sizeof(struct ustack_rec_user_packed) + \
				 USTACK_FRAMES_LIMIT * (sizeof(__u64) + 3 + \
				 sizeof(struct ustack_object)) + USTACK_STRTAB_MAX)

#endif /* USTACK_LIMITS_H */
