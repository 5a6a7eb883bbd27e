/* SPDX-License-Identifier: GPL-2.0 */
/* The queue of objects walked without unwind info (store_miss.c). */
#ifndef USTACK_STORE_MISS_H
#define USTACK_STORE_MISS_H

#include <linux/types.h>

struct seq_file;
struct ustack_file_id;

/*
 * A miss: the executable mapping [start, end) in current of the object
 * @id (NULL: the vDSO).
 */
void ustack_store_miss(const struct ustack_file_id *id, u64 start, u64 end);
long ustack_store_misses_ioctl(void __user *uarg);
void ustack_store_miss_forget(const struct ustack_file_id *id);
u64 ustack_store_miss_dropped(void);
bool ustack_store_miss_wait(const struct ustack_file_id *id);
void ustack_store_miss_show(struct seq_file *m);

#endif /* USTACK_STORE_MISS_H */
