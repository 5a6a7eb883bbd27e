// SPDX-License-Identifier: GPL-2.0
/*
 * The record ring behind /dev/ustack.
 *
 * One ring of binary records (include/uapi/ustack.h), written from any
 * context.  An NMI never spins for long: it trylocks for a bounded time
 * and counts a loss when it cannot have the lock, or at once when it
 * interrupted the holder on its own CPU (nmi_excl.h).  A full ring drops
 * the new record, never blocks a writer, and says so later in a "lost"
 * record.  Readers pop whole records: each goes to exactly one reader,
 * like a pipe.  The ring exists between ustack_ring_start() and
 * ustack_ring_stop().
 *
 * The bytes between tail and head are the readers': writers never touch
 * them until the tail moves past.  So a reader that holds read_lock (no
 * other reader moves the tail meanwhile) copies records straight from the
 * ring to user memory with no spinlock held, faults allowed, and moves the
 * tail after: one copy of each record, not two.
 *
 * Wake-ups are batched, as perf batches them: a sleeping reader is woken
 * WAKE_DELAY_MS after the first record it waits for, or at once when the
 * ring is a quarter full.  One wake-up per record (two per sample) cost a
 * CPU-bound task sampled at 999 Hz a third of its speed under TCG: an
 * irq_work interrupt and a cross-CPU wake-up each time.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <uapi/ustack.h>
#include "nmi_excl.h"
#include "ring.h"
#include "stage_times.h"

#define WAKE_DELAY_MS	10
#define NMI_SPIN_NS	(200 * NSEC_PER_USEC)

struct ring {
	raw_spinlock_t lock;
	struct mutex read_lock;	/* the tail's one mover, outside ring.lock */
	char *buf;		/* NULL while stopped */
	u32 size;		/* bytes, a power of two */
	u64 head, tail;		/* bytes written, read: free-running */
	u64 lost_samples, lost_users;
	u64 dropped_total;
	atomic_t nmi_lost;	/* samples an NMI could not lock the ring for */
	wait_queue_head_t wait;
	struct irq_work wakeup;	/* wake readers from any context */
	struct timer_list wake_timer;
	unsigned long wake_armed;	/* bit 0: a wake-up is on its way */
	atomic64_t wakeups;
};

static struct ring ring = {
	.lock = __RAW_SPIN_LOCK_UNLOCKED(ring.lock),
	.read_lock = __MUTEX_INITIALIZER(ring.read_lock),
	.wait = __WAIT_QUEUE_HEAD_INITIALIZER(ring.wait),
};

/* Outside NMI: IRQs off, and NMIs on this CPU back off meanwhile. */
static unsigned long ring_lock_enter(void)
{
	unsigned long flags;

	local_irq_save(flags);
	ustack_nmi_excl_enter();
	raw_spin_lock(&ring.lock);
	return flags;
}

static void ring_lock_leave(unsigned long flags)
{
	raw_spin_unlock(&ring.lock);
	ustack_nmi_excl_leave();
	local_irq_restore(flags);
}

DEFINE_LOCK_GUARD_0(ring_lock, _T->flags = ring_lock_enter(),
		    ring_lock_leave(_T->flags), unsigned long flags)

/*
 * In NMI: not when this CPU holds the lock; elsewhere a bounded spin, the
 * holder copies one record at most.
 */
static bool ring_trylock_nmi(void)
{
	u64 t0;

	if (ustack_nmi_excl_busy())
		return false;
	if (raw_spin_trylock(&ring.lock))
		return true;
	t0 = ktime_get_mono_fast_ns();
	do {
		cpu_relax();
		if (raw_spin_trylock(&ring.lock))
			return true;
	} while (ktime_get_mono_fast_ns() - t0 < NMI_SPIN_NS);
	return false;
}

/* ---- wake-ups ---------------------------------------------------------- */

static void ring_wake_now(void)
{
	clear_bit(0, &ring.wake_armed);
	atomic64_inc(&ring.wakeups);
	wake_up_interruptible(&ring.wait);
}

static void ring_wake_timer(struct timer_list *t)
{
	ring_wake_now();
}

/* Unlocked: a stale size or head only moves a wake-up by WAKE_DELAY_MS. */
static bool ring_quarter_full(void)
{
	return READ_ONCE(ring.head) - READ_ONCE(ring.tail) >=
	       READ_ONCE(ring.size) / 4;
}

static void ring_wakeup(struct irq_work *work)
{
	if (ring_quarter_full())
		ring_wake_now();
	else
		mod_timer(&ring.wake_timer,
			  jiffies + msecs_to_jiffies(WAKE_DELAY_MS));
}

/* No wake-up on its way: none queued, none armed, the bit clear. */
static void ring_wake_cancel(void)
{
	irq_work_sync(&ring.wakeup);
	timer_delete_sync(&ring.wake_timer);
	clear_bit(0, &ring.wake_armed);	/* a cancelled timer's */
}

/* After a record was written: start a wake-up unless one is on its way. */
static void ring_kick_reader(void)
{
	if (!wq_has_sleeper(&ring.wait))
		return;	/* a reader that is not asleep reads on */
	if (!test_and_set_bit(0, &ring.wake_armed) || ring_quarter_full())
		irq_work_queue(&ring.wakeup);
}

/* ---- the bytes ---------------------------------------------------------- */

static void ring_copy_in(u64 pos, const void *src, u32 len)
{
	u32 off = pos & (ring.size - 1);
	u32 first = min(len, ring.size - off);

	memcpy(ring.buf + off, src, first);
	memcpy(ring.buf, src + first, len - first);
}

static void ring_copy_out(void *dst, u64 pos, u32 len)
{
	u32 off = pos & (ring.size - 1);
	u32 first = min(len, ring.size - off);

	memcpy(dst, ring.buf + off, first);
	memcpy(dst + first, ring.buf, len - first);
}

static bool ring_fits(u32 len)
{
	return ring.size - (ring.head - ring.tail) >= len;
}

/* Emit the pending "lost" record, if any and if it fits. */
static void ring_flush_lost(void)
{
	struct ustack_rec_lost rec = {
		.hdr = { .type = USTACK_REC_LOST, .size = sizeof(rec) },
	};
	u32 nmi_lost = atomic_xchg(&ring.nmi_lost, 0);

	lockdep_assert_held(&ring.lock);
	ring.lost_samples += nmi_lost;
	ring.dropped_total += nmi_lost;
	if (!ring.lost_samples && !ring.lost_users)
		return;
	if (!ring_fits(sizeof(rec)))
		return;
	rec.samples = ring.lost_samples;
	rec.users = ring.lost_users;
	rec.time_ns = ktime_get_mono_fast_ns();	/* NMI-safe */
	ring_copy_in(ring.head, &rec, sizeof(rec));
	ring.head += sizeof(rec);
	ring.lost_samples = 0;
	ring.lost_users = 0;
}

static bool ring_append(const void *a, u32 alen, const void *b, u32 blen)
{
	const struct ustack_rec_hdr *hdr = a;
	static const u64 zero;
	u32 len = hdr->size;

	lockdep_assert_held(&ring.lock);
	if (!ring.buf)
		return false;
	ring_flush_lost();
	if (ring.lost_samples || ring.lost_users || !ring_fits(len)) {
		if (hdr->type == USTACK_REC_USER_PACKED)
			ring.lost_users++;
		else
			ring.lost_samples++;
		ring.dropped_total++;
		return false;
	}
	ring_copy_in(ring.head, a, alen);
	if (blen)
		ring_copy_in(ring.head + alen, b, blen);
	if (len > alen + blen)
		ring_copy_in(ring.head + alen + blen, &zero, len - alen - blen);
	ring.head += len;
	return true;
}

/**
 * ustack_ring_write - append one record
 * @a: the record's first part, starting with its struct ustack_rec_hdr
 * @alen: bytes of @a
 * @b: its second part (a string table), or NULL
 * @blen: bytes of @b
 *
 * The header's size must be @alen + @blen rounded up to 8; the padding is
 * written as zeroes.  Any context, NMI included.
 *
 * Return: true if the record is in the ring, false if it was dropped
 * (counted in the next "lost" record).
 */
bool ustack_ring_write(const void *a, u32 alen, const void *b, u32 blen)
{
	u64 t0 = ustack_stage_begin();
	bool ok;

	if (in_nmi()) {
		if (!ring_trylock_nmi()) {
			atomic_inc(&ring.nmi_lost);
			return false;
		}
		ok = ring_append(a, alen, b, blen);
		raw_spin_unlock(&ring.lock);
	} else {
		scoped_guard(ring_lock)
			ok = ring_append(a, alen, b, blen);
	}
	if (ok)
		ring_kick_reader();
	ustack_stage_end(USTACK_STAGE_RING, t0);
	return ok;
}

/**
 * ustack_ring_pop - take the next record if it fits
 * @dst: where to copy it
 * @cap: bytes at @dst
 * @need: set to the next record's size when it does not fit, else 0
 *
 * The size test and the pop are one critical section, so a record that
 * another reader's pop brought to the front is never copied past @cap.
 * Process context.
 *
 * Return: the record's size, or 0 (the ring is empty, or *@need says
 * how large the next record is).
 */
u32 ustack_ring_pop(void *dst, u32 cap, u32 *need)
{
	struct ustack_rec_hdr hdr;
	u32 len = 0;

	*need = 0;
	guard(mutex)(&ring.read_lock);
	guard(ring_lock)();
	if (!ring.buf)
		return 0;
	if (ring.head != ring.tail) {
		ring_copy_out(&hdr, ring.tail, sizeof(hdr));
		if (hdr.size > cap) {
			*need = hdr.size;
		} else {
			len = hdr.size;
			ring_copy_out(dst, ring.tail, len);
			ring.tail += len;
		}
	}
	/* The room just made lets a pending loss be reported. */
	ring_flush_lost();
	return len;
}

/*
 * Bytes of the whole records from @tail that fit in @cap, before @head;
 * *@need is the first one's size if none does.  Under ring.read_lock: no
 * writer touches these bytes, and no other reader.
 */
static u32 ring_whole(u64 tail, u64 head, u32 cap, u32 *need)
{
	struct ustack_rec_hdr hdr;
	u32 len = 0;

	lockdep_assert_held(&ring.read_lock);
	while (tail + len < head) {
		ring_copy_out(&hdr, tail + len, sizeof(hdr));
		if (hdr.size > cap - len) {
			if (!len)
				*need = hdr.size;
			break;
		}
		len += hdr.size;
	}
	return len;
}

/* The @len bytes from ring position @pos to @dst.  Return: 0 or -EFAULT. */
static int ring_copy_to_user(void __user *dst, u64 pos, u32 len)
{
	u32 off = pos & (ring.size - 1);
	u32 first = min(len, ring.size - off);

	if (copy_to_user(dst, ring.buf + off, first) ||
	    copy_to_user(dst + first, ring.buf, len - first))
		return -EFAULT;
	return 0;
}

#define READ_USER_MAX	SZ_1M	/* bytes a call scans and copies at most */

/**
 * ustack_ring_read_user - pop whole records straight to user memory
 * @dst: where to copy them
 * @cap: bytes at @dst
 * @need: set to the next record's size when none fits, else 0
 *
 * As many whole records as fit in @cap (up to READ_USER_MAX), in one
 * copy and no spinlock held while it is made.  Process context.
 *
 * Return: the bytes popped; 0 (the ring is empty, or *@need says how
 * large the next record is); or -EFAULT, nothing popped.
 */
ssize_t ustack_ring_read_user(void __user *dst, size_t cap, u32 *need)
{
	u64 tail, head;
	u32 len;

	might_fault();
	*need = 0;
	guard(mutex)(&ring.read_lock);
	scoped_guard(ring_lock) {
		if (!ring.buf)
			return 0;
		tail = ring.tail;
		head = ring.head;
	}
	len = ring_whole(tail, head, min_t(size_t, cap, READ_USER_MAX), need);
	if (!len)
		return 0;
	if (ring_copy_to_user(dst, tail, len))
		return -EFAULT;
	scoped_guard(ring_lock) {
		ring.tail += len;
		/* The room just made lets a pending loss be reported. */
		ring_flush_lost();
	}
	return len;
}

bool ustack_ring_active(void)
{
	return READ_ONCE(ring.buf) != NULL;
}

bool ustack_ring_empty(void)
{
	return READ_ONCE(ring.head) == READ_ONCE(ring.tail);
}

/* Readers sleep here; woken in batches (see the top of this file). */
wait_queue_head_t *ustack_ring_waitq(void)
{
	return &ring.wait;
}

void ustack_ring_stats(struct ustack_ring_stats *s)
{
	s->read = READ_ONCE(ring.tail);	/* first: tail <= head */
	s->written = READ_ONCE(ring.head);
	s->dropped = READ_ONCE(ring.dropped_total);
	s->wakeups = atomic64_read(&ring.wakeups);
}

/**
 * ustack_ring_start - make the ring
 * @size: its size in bytes, a power of two
 *
 * Return: 0 or -ENOMEM.
 */
int ustack_ring_start(u32 size)
{
	char *buf = vmalloc(size);	/* never read before written */

	if (!buf)
		return -ENOMEM;
	guard(ring_lock)();
	ring.size = size;
	ring.head = 0;
	ring.tail = 0;
	ring.lost_samples = 0;
	ring.lost_users = 0;
	atomic_set(&ring.nmi_lost, 0);
	WRITE_ONCE(ring.buf, buf);
	return 0;
}

/* Drop the ring; later writes are refused until the next start. */
void ustack_ring_stop(void)
{
	char *buf;

	guard(mutex)(&ring.read_lock);	/* no reader copies from it */
	scoped_guard(ring_lock) {
		buf = ring.buf;
		WRITE_ONCE(ring.buf, NULL);
	}
	ring_wake_cancel();
	vfree(buf);
}

void ustack_ring_init(void)
{
	init_irq_work(&ring.wakeup, ring_wakeup);
	timer_setup(&ring.wake_timer, ring_wake_timer, 0);
}

/* Module exit: a writer that raced the last stop may have started one. */
void ustack_ring_exit(void)
{
	ring_wake_cancel();
}
