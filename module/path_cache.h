/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of a task's mapped files across its user records
 * (path_cache.c), for user_record.c.
 */
#ifndef USTACK_PATH_CACHE_H
#define USTACK_PATH_CACHE_H

#include <linux/types.h>

struct file;
struct ustack_task;
struct ustack_path_cache;

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

int ustack_path_cache_init(void);
void ustack_path_cache_exit(void);
struct ustack_path_cache *ustack_path_cache_of(const struct ustack_task *st);
bool ustack_path_key_make(struct ustack_path_key *k, struct file *file);
const char *ustack_path_cache_get(const struct ustack_path_cache *c,
				  const struct ustack_path_key *k);
void ustack_path_cache_put(struct ustack_path_cache *c,
			   const struct ustack_path_key *k, const char *name);

#endif /* USTACK_PATH_CACHE_H */
