// SPDX-License-Identifier: GPL-2.0
/*
 * Store entries of objects a user may write, charged to the object's owner.
 *
 * ustackd registers SFrame for every object a process maps, a user's own
 * programs included, and a user makes new objects at will: every copy is
 * another inode, every touch another key.  So that no user can fill the
 * store for everyone, the entry of an object whose contents someone other
 * than root may choose (owned by another uid, writable by group or others,
 * or on a file system a user made or serves: system_file()) is charged to
 * a user: the user of the process ustackd found mapping it, as every
 * other share counts users (ustack_user_of(): a rootless container's
 * subordinate uids are the one user who made it, not thousands, each
 * with a share), or, where the caller names no process, the file's owner.
 * A user holds at most store_user_max such entries, a new one evicting
 * the user's oldest; and a full store (store_max) evicts the oldest of
 * all users' entries before it refuses anything, so that the system's
 * objects (root's, that only root may write) are never refused for room
 * that users took.  An entry evicted so is a miss again when walked:
 * ustackd registers it again if its object is still mapped.
 *
 * Users are counted in an xarray keyed by ustack_user_of()'s key; the
 * users' entries are on one list, oldest first.  The store's lock
 * (store.c) serialises every function here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/user_namespace.h>
#include <uapi/linux/magic.h>
#include <linux/moduleparam.h>
#include <linux/seq_file.h>
#include <linux/xarray.h>
#include "store_owner.h"

static unsigned int store_user_max = 256;
module_param(store_user_max, uint, 0644);
MODULE_PARM_DESC(store_user_max,
		 "most store entries for the objects of one owner that others than root may write (the oldest is evicted)");

static DEFINE_XARRAY(store_owners);	/* user -> xa_mk_value(entries) */
static LIST_HEAD(store_users);		/* oldest first */
static unsigned long store_users_n;

/* A user's key is the xarray's index: the module is built for 64-bit arches. */
static_assert(sizeof(unsigned long) == sizeof(u64));

static unsigned long owner_count(u64 who)
{
	void *v = xa_load(&store_owners, who);

	return v ? xa_to_value(v) : 0;
}

/*
 * Whether root alone decides what @file holds: root's, writable by no one
 * else, on a file system root mounted for the system.  Not a FUSE file
 * (its server answers what it likes, whoever it says owns the file), nor
 * one of a file system mounted in a user namespace, nor one of a nosuid
 * mount: users' mounts come so (udisks' loop images and removable media,
 * fstab's "user"), and a user made their file system, root's files in it
 * included.
 */
static bool system_file(struct file *file)
{
	struct inode *inode = file_inode(file);
	struct super_block *sb = inode->i_sb;

	return uid_eq(inode->i_uid, GLOBAL_ROOT_UID) &&
	       !(inode->i_mode & 0022) &&	/* group or others may write */
	       sb->s_user_ns == &init_user_ns &&
	       sb->s_magic != FUSE_SUPER_MAGIC &&
	       !(file->f_path.mnt->mnt_flags & MNT_NOSUID);
}

void ustack_store_owner_of(struct file *file, bool mapper, u64 who,
			   struct store_owner *o)
{
	if (!mapper)
		who = __kuid_val(file_inode(file)->i_uid);
	o->who = lower_32_bits(who);	/* a uid or an inode number */
	o->who_ns = who & USTACK_USER_NS;
	o->user = !system_file(file);
	o->charged = false;
}

int ustack_store_owner_charge(struct store_owner *o)
{
	u64 key = ustack_store_owner_key(o);
	unsigned long n = owner_count(key);
	int err;

	err = xa_err(xa_store(&store_owners, key,
			      xa_mk_value(n + 1), GFP_KERNEL));
	if (err)
		return err;
	list_add_tail(&o->node, &store_users);
	store_users_n++;
	o->charged = true;
	return 0;
}

void ustack_store_owner_release(struct store_owner *o)
{
	u64 key = ustack_store_owner_key(o);
	unsigned long n;

	if (!o->charged)
		return;
	o->charged = false;
	list_del(&o->node);
	store_users_n--;
	n = owner_count(key);
	if (n <= 1)
		xa_erase(&store_owners, key);
	else	/* the slot exists: a value replaced allocates nothing */
		xa_store(&store_owners, key, xa_mk_value(n - 1),
			 GFP_KERNEL);
}

struct store_owner *ustack_store_owner_victim(const struct store_owner *o,
					      bool *refuse)
{
	unsigned int max = READ_ONCE(store_user_max);
	struct store_owner *v;

	*refuse = !max;
	if (!max || owner_count(ustack_store_owner_key(o)) < max)
		return NULL;
	list_for_each_entry(v, &store_users, node)
		if (ustack_store_owner_key(v) == ustack_store_owner_key(o))
			return v;
	return NULL;
}

struct store_owner *ustack_store_owner_oldest(void)
{
	return list_first_entry_or_null(&store_users, struct store_owner, node);
}

void ustack_store_owner_show(struct seq_file *m)
{
	seq_printf(m, "store_user_entries %lu\n", store_users_n);
}
