/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record ring behind /dev/ustack (ring.c): binary records of
 * include/uapi/ustack.h, written from any context, NMI included, and
 * popped whole by readers.
 */
#ifndef USTACK_RING_H
#define USTACK_RING_H

#include <linux/types.h>
#include <linux/wait.h>

int ustack_ring_start(u32 size);
void ustack_ring_stop(void);
bool ustack_ring_write(const void *a, u32 alen, const void *b, u32 blen);
u32 ustack_ring_pop(void *dst, u32 cap, u32 *need);
ssize_t ustack_ring_read_user(void __user *dst, size_t cap, u32 *need);
bool ustack_ring_active(void);
bool ustack_ring_empty(void);
wait_queue_head_t *ustack_ring_waitq(void);
void ustack_ring_init(void);
void ustack_ring_exit(void);

/* For the stats. */
struct ustack_ring_stats {
	u64 dropped, written, read, wakeups;
};
void ustack_ring_stats(struct ustack_ring_stats *s);

#endif /* USTACK_RING_H */
