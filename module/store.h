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

struct file;
struct seq_file;

/*
 * A walk's reader of store sections: a reference to one store file and a
 * window of its page-cache pages, so that a lookup's neighbouring reads
 * map no page again.  Zero-initialised; ustack_store_rd_release() at the
 * end of the walk.
 */
#define STORE_RD_PAGES	2

struct sf_reader {
	struct file *file;	/* the store file, referenced */
	u64 off;		/* the section's offset in it */
	u32 len;		/* the section's length (at STORE_ADD) */
	u8 next;		/* window slot to replace next */
	struct page *page[STORE_RD_PAGES];	/* referenced, or NULL */
	pgoff_t idx[STORE_RD_PAGES];
};

void ustack_store_rd_bind(struct sf_reader *rd, struct file *file, u64 off,
			  u32 len);
void ustack_store_rd_release(struct sf_reader *rd);
bool ustack_store_rd_usable(struct file *file);

/* /dev/sframe's STORE_ADD, STORE_DEL, STORE_FLUSH and STORE_MISSES. */
long ustack_store_ioctl(unsigned int cmd, void __user *uarg);

/*
 * The store's section for @pc of current->mm, read through @rd: 0 and
 * *@sec (text range: the mapping of @pc), or -ENOENT with [*@lo, *@hi)
 * the range known to have none (an executable file mapping without an
 * entry is queued as a miss).  Sleeps.
 */
int ustack_store_lookup(u64 pc, struct sframe_sec *sec, struct sf_reader *rd,
			u64 *lo, u64 *hi);

/* A miss: the executable mapping [start, end) of @file in current. */
void ustack_store_miss(struct file *file, u64 start, u64 end);
long ustack_store_misses_ioctl(void __user *uarg);
void ustack_store_miss_forget(dev_t dev, unsigned long ino);
u64 ustack_store_miss_dropped(void);

void ustack_store_show(struct seq_file *m);
void ustack_store_exit(void);

#endif /* USTACK_STORE_H */
