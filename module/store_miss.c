// SPDX-License-Identifier: GPL-2.0
/*
 * The miss queue: executable file mappings a walk met with no unwind info
 * (no registration, no PT_GNU_SFRAME, no store entry), for ustackd to
 * cover.  Bounded and lossy: a full queue drops (counted).  An object is
 * queued once per MISS_RETRY: a small direct-mapped table remembers the
 * objects queued and when (a collision forgets one, which may then be
 * queued again), and a STORE_ADD for an object forgets it, so a later
 * replacement on disk is queued anew.  Objects are told apart as the
 * store tells them (struct ustack_file_id): on btrfs, files of two
 * subvolumes have one device (the superblock's) and may have one inode
 * number, and one of them queued must not hold back the other for
 * MISS_RETRY.  The retry covers what no one added: a miss drained by a
 * ustackd killed before it added the object, or lost to a faulting drain.
 */
#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/jiffies.h>
#include <linux/kdev_t.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <uapi/ustack.h>
#include "file_id.h"
#include "store_miss.h"

#define MISS_QUEUE	256
#define MISS_SEEN_BITS	10
#define MISS_DRAIN_MAX	MISS_QUEUE
#define MISS_RETRY	(10 * HZ)

struct miss_seen {
	u64 key;
	unsigned long at;	/* jiffies when queued */
};

static DEFINE_SPINLOCK(miss_lock);
static struct sframe_store_miss miss_q[MISS_QUEUE];
static unsigned int miss_head, miss_len;
static struct miss_seen miss_seen[1U << MISS_SEEN_BITS];
static atomic64_t miss_dropped;

/* Never 0, so an empty slot matches no object; @id NULL: the vDSO. */
static u64 miss_key(const struct ustack_file_id *id)
{
	u64 k = 0;

	BUILD_BUG_ON(sizeof(*id) % sizeof(u32));
	if (id)
		k = (u64)jhash2((const u32 *)id, sizeof(*id) / sizeof(u32), 0) << 32 ^
		    ((u64)id->dev << 40 ^ (u64)id->ino);
	return k | 1ULL << 63;
}

static struct miss_seen *miss_slot(u64 key)
{
	return &miss_seen[hash_64(key, MISS_SEEN_BITS)];
}

/* Queued within MISS_RETRY?  Lockless reads may be torn: then it is not. */
static bool miss_recent(u64 key)
{
	struct miss_seen *m = miss_slot(key);

	return READ_ONCE(m->key) == key &&
	       time_before(jiffies, READ_ONCE(m->at) + MISS_RETRY);
}

/**
 * ustack_store_miss() - queue an object walked without unwind info
 * @id: its identity (its device the inode's superblock's); NULL: the vDSO
 * @start: the mapping's start, in current
 * @end: its end
 *
 * Once per object and MISS_RETRY; any context a walk runs in.
 */
void ustack_store_miss(const struct ustack_file_id *id, u64 start, u64 end)
{
	u64 key = miss_key(id);
	struct sframe_store_miss *m;

	if (miss_recent(key))
		return;
	guard(spinlock)(&miss_lock);
	if (miss_recent(key))
		return;
	if (miss_len == MISS_QUEUE) {
		atomic64_inc(&miss_dropped);
		return;
	}
	WRITE_ONCE(miss_slot(key)->key, key);
	WRITE_ONCE(miss_slot(key)->at, jiffies);
	m = &miss_q[(miss_head + miss_len++) % MISS_QUEUE];
	*m = (struct sframe_store_miss) {
		.pid = task_tgid_nr(current),
		.start = start,
		.end = end,
		.ino = id ? id->ino : 0,
		.dev = id ? new_encode_dev(id->dev) : 0,
	};
}

/**
 * ustack_store_miss_forget() - let an object be queued again
 * @id: its identity
 */
void ustack_store_miss_forget(const struct ustack_file_id *id)
{
	u64 key = miss_key(id);

	guard(spinlock)(&miss_lock);
	if (miss_slot(key)->key == key)
		WRITE_ONCE(miss_slot(key)->key, 0);
}

/* Drops since load. */
u64 ustack_store_miss_dropped(void)
{
	return atomic64_read(&miss_dropped);
}

/* Move up to @max queued misses to @out; the count moved. */
static u32 miss_take(struct sframe_store_miss *out, u32 max)
{
	u32 n = 0;

	guard(spinlock)(&miss_lock);
	while (n < max && miss_len) {
		out[n++] = miss_q[miss_head];
		miss_head = (miss_head + 1) % MISS_QUEUE;
		miss_len--;
	}
	return n;
}

/**
 * ustack_store_misses_ioctl() - SFRAME_IOC_STORE_MISSES
 * @uarg: struct sframe_store_misses
 *
 * Privilege is checked by the caller.  Entries moved to a buffer that
 * then faults are lost (as a full queue's), not queued again.
 *
 * Return: 0, -EFAULT, -EINVAL or -ENOMEM.
 */
long ustack_store_misses_ioctl(void __user *uarg)
{
	struct sframe_store_misses a;
	struct sframe_store_miss *buf;
	u32 max;
	long ret = 0;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.size < sizeof(a) || a.flags)
		return -EINVAL;
	max = min_t(u32, a.max_misses, MISS_DRAIN_MAX);
	if (max && !a.misses)
		return -EINVAL;
	buf = kcalloc(max ?: 1, sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	a.nr_misses = miss_take(buf, max);
	a.dropped = ustack_store_miss_dropped();
	if (copy_to_user(u64_to_user_ptr(a.misses), buf,
			 (size_t)a.nr_misses * sizeof(*buf)) ||
	    copy_to_user(uarg, &a, sizeof(a)))
		ret = -EFAULT;
	kfree(buf);
	return ret;
}
