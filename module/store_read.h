/* SPDX-License-Identifier: GPL-2.0 */
/* Reading a store section through the page cache (store_read.c). */
#ifndef USTACK_STORE_READ_H
#define USTACK_STORE_READ_H

#include <linux/time64.h>
#include <linux/types.h>

struct file;
struct page;

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
	bool settled;		/* @file last changed before the bind's tick */
	struct timespec64 ctime;	/* @file's ctime at the bind */
	struct page *page[STORE_RD_PAGES];	/* referenced, or NULL */
	pgoff_t idx[STORE_RD_PAGES];
};

void ustack_store_rd_bind(struct sf_reader *rd, struct file *file, u64 off,
			  u32 len);
void ustack_store_rd_release(struct sf_reader *rd);
bool ustack_store_rd_usable(struct file *file);
bool ustack_store_rd_unchanged(const struct sf_reader *rd);

#endif /* USTACK_STORE_READ_H */
