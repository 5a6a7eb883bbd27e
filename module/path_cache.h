/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of a task's mapped files across its user records
 * (path_cache.c), for user_record.c.
 */
#ifndef USTACK_PATH_CACHE_H
#define USTACK_PATH_CACHE_H

#include <linux/types.h>

struct file;

/*
 * What a name was made of: the file, its place in the tree, the reader's
 * root and the kernel's rename count.  The same key makes the same name.
 */
struct ustack_path_key {
	const struct file *file;
	const void *dentry, *mnt, *inode;
	unsigned long ino;
	const void *root_dentry, *root_mnt;
	unsigned int rename_seq;
};

#define PATH_CACHE_SLOTS	4	/* a stack's usual objects */
#define PATH_CACHE_NAME		128	/* longest name kept, its NUL too */

struct ustack_path_slot {
	struct ustack_path_key key;	/* .file NULL: empty */
	unsigned long made;		/* jiffies */
	u32 len;			/* the name's, without its NUL */
	char name[PATH_CACHE_NAME];
};

/* A task's cache: zeroed, it is empty. */
struct ustack_path_cache {
	struct ustack_path_slot slot[PATH_CACHE_SLOTS];
	u32 next;			/* the slot to replace next */
};

bool ustack_path_key_make(struct ustack_path_key *k, struct file *file);
const char *ustack_path_cache_get(const struct ustack_path_cache *c,
				  const struct ustack_path_key *k, u32 *len);
void ustack_path_cache_put(struct ustack_path_cache *c,
			   const struct ustack_path_key *k, const char *name,
			   u32 len);

#endif /* USTACK_PATH_CACHE_H */
