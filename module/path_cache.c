// SPDX-License-Identifier: GPL-2.0
/*
 * The names of a task's mapped files, kept from one user record to the
 * next.  A record names each frame's object by the path of its file
 * (d_path), and a task sampled at 999 Hz names the same few files a
 * thousand times a second: a record's costliest part.
 *
 * Each entry of the engine's task pool has a cache of a few names, kept
 * with the entry by user_record.c.  Only the task that holds the entry
 * reads or writes its cache, in its task_work (the record's context), so
 * it takes no lock.  Another task may hold the entry later: a name is
 * found by what made it, never by who asked for it.
 *
 * A name is used again only if everything d_path() read to make it is as
 * it was: the same file at the same dentry and mount, the same inode, the
 * same root of the reader, no rename anywhere since (the kernel's rename
 * count), the file not deleted (its " (deleted)").  A mount moved under the
 * file counts nowhere a module can read: names live one second at most,
 * so such a name is stale for that long.  The key's pointers are compared,
 * never followed, so a freed file in a key is harmless.
 */
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/string.h>
#include "path_cache.h"

#define PATH_CACHE_TTL		HZ	/* a name's life at most */

/**
 * ustack_path_key_make - what the name of @file is made of, now
 * @k: the key
 * @file: a file mapped in current's mm (its mmap lock held)
 *
 * Before the name is made: a rename meanwhile then changes the key.
 *
 * Return: false if the name may not be cached (a deleted file).
 */
bool ustack_path_key_make(struct ustack_path_key *k, struct file *file)
{
	struct fs_struct *fs = current->fs;
	struct dentry *d = file->f_path.dentry;

	if (!fs || d_unlinked(d))
		return false;
	k->file = file;
	k->dentry = d;
	k->mnt = file->f_path.mnt;
	k->inode = file_inode(file);
	k->ino = file_inode(file)->i_ino;
	/* Read as d_path() reads it, without fs->lock: compared only. */
	k->root_dentry = READ_ONCE(fs->root.dentry);
	k->root_mnt = READ_ONCE(fs->root.mnt);
	k->rename_seq = read_seqbegin(&rename_lock);
	return true;
}

static bool key_eq(const struct ustack_path_key *a,
		   const struct ustack_path_key *b)
{
	return a->file == b->file && a->dentry == b->dentry &&
	       a->mnt == b->mnt && a->inode == b->inode && a->ino == b->ino &&
	       a->root_dentry == b->root_dentry && a->root_mnt == b->root_mnt &&
	       a->rename_seq == b->rename_seq;
}

/**
 * ustack_path_cache_get - the name made of @k, if @c has it still
 * @c: the current task's cache
 * @k: from ustack_path_key_make()
 * @len: set to the name's length, without its NUL
 *
 * Return: the name (NUL-terminated, in @c until the next put), or NULL.
 */
const char *ustack_path_cache_get(const struct ustack_path_cache *c,
				  const struct ustack_path_key *k, u32 *len)
{
	unsigned long now = jiffies;
	int i;

	for (i = 0; i < PATH_CACHE_SLOTS; i++) {
		const struct ustack_path_slot *s = &c->slot[i];

		if (key_eq(&s->key, k) &&
		    time_before(now, s->made + PATH_CACHE_TTL)) {
			*len = s->len;
			return s->name;
		}
	}
	return NULL;
}

/**
 * ustack_path_cache_put - keep @name, made of @k, in @c
 * @c: the current task's cache
 * @k: the key made before @name was
 * @name: d_path()'s result; a longer name than a slot holds is not kept
 * @len: its length, without its NUL
 *
 * It replaces the file's earlier name if @c has one (expired, or made
 * before a rename), else the oldest slot.
 */
void ustack_path_cache_put(struct ustack_path_cache *c,
			   const struct ustack_path_key *k, const char *name,
			   u32 len)
{
	size_t n = len + 1;
	struct ustack_path_slot *s = NULL;
	int i;

	if (n > PATH_CACHE_NAME)
		return;
	for (i = 0; i < PATH_CACHE_SLOTS && !s; i++)
		if (c->slot[i].key.file == k->file)
			s = &c->slot[i];
	if (!s) {
		s = &c->slot[c->next];
		c->next = (c->next + 1) % PATH_CACHE_SLOTS;
	}
	s->key = *k;
	s->made = jiffies;
	s->len = len;
	memcpy(s->name, name, n);
}
