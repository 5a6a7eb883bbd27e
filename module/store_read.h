/* SPDX-License-Identifier: GPL-2.0 */
/* Reading a store section through the page cache (store_read.c). */
#ifndef USTACK_STORE_READ_H
#define USTACK_STORE_READ_H

#include <linux/time64.h>
#include <linux/types.h>
#include "ustack_sframe.h"

struct file;
struct page;

/*
 * A walk's reader of store sections (the SFrame core's struct
 * sframe_reader, set at the bind): a reference to one store file and a
 * window of its page-cache pages, so that a lookup's neighbouring reads
 * map no page again.  Zero-initialised; ustack_store_rd_release() at the
 * end of the walk.
 */
#define STORE_RD_PAGES	2

struct store_reader {
	struct sframe_reader sf;	/* the core's hook: store_rd_copy() */
	struct file *file;	/* the store file, referenced */
	u64 off;		/* the section's offset in it */
	u32 len;		/* the section's length (at STORE_ADD) */
	u8 next;		/* window slot to replace next */
	bool settled;		/* @file last changed before the bind's tick */
	struct timespec64 ctime;	/* @file's ctime at the bind */
	struct page *page[STORE_RD_PAGES];	/* referenced, or NULL */
	pgoff_t idx[STORE_RD_PAGES];
};

void ustack_store_rd_bind(struct store_reader *rd, struct file *file, u64 off,
			  u32 len);
void ustack_store_rd_release(struct store_reader *rd);
bool ustack_store_rd_usable(struct file *file);
bool ustack_store_rd_unchanged(const struct store_reader *rd);

#endif /* USTACK_STORE_READ_H */
