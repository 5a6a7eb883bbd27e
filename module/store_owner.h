/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Store entries of objects a user may write, charged to the object's
 * owner (store_owner.c).  Every function runs under the store's lock.
 */
#ifndef USTACK_STORE_OWNER_H
#define USTACK_STORE_OWNER_H

#include <linux/list.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <uapi/ustack.h>

struct file;
struct seq_file;

/* Embedded in a store entry: whose it is, and its place among users'. */
struct store_owner {
	struct list_head node;	/* users' entries, oldest first */
	u32 who;		/* the user charged: a uid, or with who_ns */
	bool who_ns;		/* a user namespace's inode (USTACK_USER_NS) */
	bool user;		/* an object whose contents a user may choose */
	bool charged;		/* counted for who, on the list */
};

/* The user @o is charged to, as ustack_user_of() keys users. */
static inline u64 ustack_store_owner_key(const struct store_owner *o)
{
	return o->who_ns ? USTACK_USER_NS | o->who : o->who;
}

/*
 * Whose object @file is, into @o (not charged): charged to @who, the user
 * of a process mapping it, if @mapper, else to the file's owner.
 */
void ustack_store_owner_of(struct file *file, bool mapper, u64 who,
			   struct store_owner *o);
/* Count @o for its user, as the newest of users' entries: 0 or -ENOMEM. */
int ustack_store_owner_charge(struct store_owner *o);
/* Forget @o (removed from the store). */
void ustack_store_owner_release(struct store_owner *o);
/*
 * Room for @o, a user's entry: the entry to evict first (its user's
 * oldest, the user being at store_user_max), or NULL.  *@refuse when
 * a user may hold none (store_user_max 0).
 */
struct store_owner *ustack_store_owner_victim(const struct store_owner *o,
					      bool *refuse);
/* The oldest of users' entries, or NULL: what a full store evicts. */
struct store_owner *ustack_store_owner_oldest(void);
void ustack_store_owner_show(struct seq_file *m);

#endif /* USTACK_STORE_OWNER_H */
