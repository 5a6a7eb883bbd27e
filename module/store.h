/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The system-wide SFrame store (store.c): SFrame for ELF objects keyed by
 * file, read through the page cache of a store file (store_read.c); the
 * queue of objects walked without unwind info (store_miss.c).
 */
#ifndef USTACK_STORE_H
#define USTACK_STORE_H

#include <linux/types.h>
#include "ustack_sframe.h"
#include "store_miss.h"
#include "store_read.h"

struct file;
struct ustack_text_map;
struct seq_file;

/* /dev/sframe's STORE_ADD, STORE_DEL, STORE_FLUSH and STORE_MISSES. */
long ustack_store_ioctl(unsigned int cmd, void __user *uarg);

/*
 * The store's section for mapping @t of current->mm, read through @rd: 0
 * and *@sec (text range: the mapping), or -ENOENT (an executable file
 * mapping without an entry is queued as a miss).  Sleeps.
 */
int ustack_store_lookup(const struct ustack_text_map *t, struct sframe_sec *sec,
			struct store_reader *rd);

struct ustack_python;
bool ustack_store_has_python(void);
/* The CPython of the object mapped at @pc of current, and its bias.  Sleeps. */
bool ustack_store_python(u64 pc, struct ustack_python *py, u64 *bias,
			 u64 *lo, u64 *hi);

/* Changes after every removal of an entry (see store.c). */
u64 ustack_store_generation(void);

void ustack_store_show(struct seq_file *m);
void ustack_store_exit(void);

#endif /* USTACK_STORE_H */
