/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The identity of a file's contents, by which discovery keeps its verdict
 * on a file and the store its entries: no inode reference is held, and a
 * file replaced on disk (another inode) or rewritten in place (another
 * ctime or size) is another file, never matched to the old verdict.
 */
#ifndef USTACK_FILE_ID_H
#define USTACK_FILE_ID_H

#include <linux/fs.h>
#include "compat.h"

struct ustack_file_id {
	dev_t dev;
	u32 gen;
	unsigned long ino;
	s64 ctime_sec;
	long ctime_nsec;
	loff_t size;
};

static inline void ustack_file_id_of(struct inode *inode,
				     struct ustack_file_id *id)
{
	struct timespec64 ct = ustack_inode_ctime(inode);

	*id = (struct ustack_file_id) {
		.dev = inode->i_sb->s_dev,
		.gen = inode->i_generation,
		.ino = inode->i_ino,
		.ctime_sec = ct.tv_sec,
		.ctime_nsec = ct.tv_nsec,
		.size = i_size_read(inode),
	};
}

static inline bool ustack_file_id_eq(const struct ustack_file_id *a,
				     const struct ustack_file_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->gen == b->gen &&
	       a->ctime_sec == b->ctime_sec && a->ctime_nsec == b->ctime_nsec &&
	       a->size == b->size;
}

#endif /* USTACK_FILE_ID_H */
