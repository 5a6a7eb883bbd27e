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
 *
 * A walk that queues an object may wait for it (ustack_store_miss_wait()):
 * a program just built, a container's own library, is met first at its
 * first sample, and ustackd covers it in tens of milliseconds; without
 * the wait every sample until then loses the object's callers.  The walk
 * runs in task context at the return to user space (perf's deferred
 * callchains' too, through kernel_unwinder), where it may sleep: the
 * first walk to meet an object waits, killable, at most miss_wait_ms for
 * its STORE_ADD, and only while a daemon (not the waiting process) reads
 * the queue.  An object is waited for once, covered or not, until a
 * STORE_ADD forgets it (or its slot goes to another object), and a
 * process waits at most MISS_WAITS times per MISS_RETRY: a program that
 * maps objects ustackd cannot cover costs itself a bounded delay, and no
 * one else anything.
 */
#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/jiffies.h>
#include <linux/kdev_t.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <uapi/ustack.h>
#include "file_id.h"
#include "store_miss.h"

#define MISS_QUEUE	256
#define MISS_SEEN_BITS	10
#define MISS_DRAIN_MAX	MISS_QUEUE
#define MISS_RETRY	(10 * HZ)

#define MISS_WAITS	16		/* per process and MISS_RETRY */
#define MISS_READER	(5 * HZ)	/* a daemon drained this recently */
#define MISS_MM_BITS	6

static unsigned int miss_wait_ms = 2000;
module_param(miss_wait_ms, uint, 0644);
MODULE_PARM_DESC(miss_wait_ms,
		 "most a walk waits for ustackd to cover an object it meets first (0: never)");

struct miss_seen {
	u64 key;
	unsigned long at;	/* jiffies when queued */
	bool waited;		/* a walk waited for it since */
};

/* The waits of one process, in a direct-mapped table by mm. */
struct miss_mm {
	const struct mm_struct *mm;	/* compared only */
	unsigned long since;		/* jiffies: the window's start */
	unsigned int waits;
};

static DEFINE_SPINLOCK(miss_lock);
static struct sframe_store_miss miss_q[MISS_QUEUE];
static unsigned int miss_head, miss_len;
static struct miss_seen miss_seen[1U << MISS_SEEN_BITS];
static atomic64_t miss_dropped;
static struct miss_mm miss_mms[1U << MISS_MM_BITS];
static unsigned long miss_read_at;	/* jiffies of the last drain */
static bool miss_read_ever;
static pid_t miss_reader;		/* its process, which never waits */
static DECLARE_WAIT_QUEUE_HEAD(miss_wq);
static atomic_long_t miss_waits, miss_waits_covered, miss_waits_timeout;
static atomic_long_t miss_wait_ms_total;

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
	/* queued again (MISS_RETRY): waited for once is enough, covered or not */
	if (miss_slot(key)->key != key)
		WRITE_ONCE(miss_slot(key)->waited, false);
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

	scoped_guard(spinlock, &miss_lock) {
		if (miss_slot(key)->key == key)
			WRITE_ONCE(miss_slot(key)->key, 0);
	}
	/* the walks waiting for it, if any, look again */
	wake_up_all(&miss_wq);
}

/*
 * Under miss_lock: may current wait for @m's object?  Once per object,
 * MISS_WAITS per process, while a daemon reads the queue.
 */
static bool miss_may_wait_locked(struct miss_seen *m, u64 key)
{
	struct mm_struct *mm = current->mm;
	struct miss_mm *p = &miss_mms[hash_ptr(mm, MISS_MM_BITS)];

	if (m->key != key || m->waited || !miss_read_ever ||
	    time_after(jiffies, miss_read_at + MISS_READER) ||
	    task_tgid_nr(current) == miss_reader)
		return false;
	if (p->mm != mm || time_after(jiffies, p->since + MISS_RETRY)) {
		p->mm = mm;
		p->since = jiffies;
		p->waits = 0;
	}
	if (p->waits >= MISS_WAITS)
		return false;
	p->waits++;
	m->waited = true;
	return true;
}

/**
 * ustack_store_miss_wait() - wait for ustackd to cover an object just met
 * @id: the object a walk found no unwind info for, queued by
 *	ustack_store_miss()
 *
 * In task context, nothing held: sleeps, killable, at most miss_wait_ms
 * (see the top of this file for when it does not wait at all).
 *
 * Return: true when a STORE_ADD for @id came meanwhile (look it up
 * again), false otherwise.
 */
bool ustack_store_miss_wait(const struct ustack_file_id *id)
{
	unsigned int ms = READ_ONCE(miss_wait_ms);
	u64 key = miss_key(id);
	struct miss_seen *m = miss_slot(key);
	unsigned long t0 = jiffies;
	long left;

	might_sleep();
	if (!ms || !current->mm || (current->flags & PF_EXITING))
		return false;
	scoped_guard(spinlock, &miss_lock) {
		if (!miss_may_wait_locked(m, key))
			return false;
	}
	atomic_long_inc(&miss_waits);
	left = wait_event_killable_timeout(miss_wq, READ_ONCE(m->key) != key,
					   msecs_to_jiffies(ms));
	atomic_long_add(jiffies_to_msecs(jiffies - t0), &miss_wait_ms_total);
	if (left > 0) {
		atomic_long_inc(&miss_waits_covered);
		return true;
	}
	atomic_long_inc(&miss_waits_timeout);
	return false;
}

/**
 * ustack_store_miss_show() - the miss queue's lines of the stats file
 * @m: the stats file
 */
void ustack_store_miss_show(struct seq_file *m)
{
	seq_printf(m, "store_miss_dropped %llu\n", ustack_store_miss_dropped());
	seq_printf(m, "store_miss_waits %ld\n", atomic_long_read(&miss_waits));
	seq_printf(m, "store_miss_waits_covered %ld\n",
		   atomic_long_read(&miss_waits_covered));
	seq_printf(m, "store_miss_waits_timeout %ld\n",
		   atomic_long_read(&miss_waits_timeout));
	seq_printf(m, "store_miss_wait_ms %ld\n",
		   atomic_long_read(&miss_wait_ms_total));
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
	miss_read_at = jiffies;
	miss_read_ever = true;
	miss_reader = task_tgid_nr(current);
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
