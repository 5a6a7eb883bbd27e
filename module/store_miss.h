/* SPDX-License-Identifier: GPL-2.0 */
/* The queue of objects walked without unwind info (store_miss.c). */
#ifndef USTACK_STORE_MISS_H
#define USTACK_STORE_MISS_H

#include <linux/types.h>

struct ustack_file_id;

/*
 * A miss: the executable mapping [start, end) in current of the object
 * @id (NULL: the vDSO).
 */
void ustack_store_miss(const struct ustack_file_id *id, u64 start, u64 end);
long ustack_store_misses_ioctl(void __user *uarg);
void ustack_store_miss_forget(const struct ustack_file_id *id);
u64 ustack_store_miss_dropped(void);

#endif /* USTACK_STORE_MISS_H */
