// SPDX-License-Identifier: GPL-2.0
/*
 * The record stream behind /dev/ustack.
 *
 * One ring of binary records (include/uapi/ustack.h), written from any
 * context but NMI-safe only in the sense that an NMI never spins: it
 * trylocks and counts a loss when the lock is taken.  A full ring drops the
 * new record, never blocks a writer, and says so later in a "lost" record.
 * Readers share the ring: each record goes to exactly one read() (like a
 * pipe); text is rendered at read time, binary records are copied as they
 * are.  The ring exists while at least one reader holds /dev/ustack open.
 *
 * Wake-ups are batched, as perf batches them: a sleeping reader is woken
 * WAKE_DELAY_MS after the first record it waits for, or at once when the
 * ring is a quarter full.  One wake-up per record (two per sample) cost a
 * CPU-bound task sampled at 999 Hz a third of its speed under TCG: an
 * irq_work interrupt and a cross-CPU wake-up each time.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/uaccess.h>
#include <linux/kallsyms.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <uapi/ustack.h>
#include "internal.h"

struct stream {
	raw_spinlock_t lock;
	char *buf;		/* NULL while no reader is open */
	u32 size;		/* bytes, a power of two */
	u64 head, tail;		/* bytes written, read: free-running */
	u64 lost_samples, lost_users;
	u64 dropped_total;
	atomic_t nmi_lost;	/* samples an NMI found the lock taken for */
	wait_queue_head_t wait;
	struct irq_work wakeup;	/* wake readers from any context */
	struct timer_list wake_timer;
	unsigned long wake_armed;	/* bit 0: a wake-up is on its way */
	atomic64_t wakeups;		/* reader wake-ups, for the stats */
};

static struct stream stream = {
	.lock = __RAW_SPIN_LOCK_UNLOCKED(stream.lock),
	.wait = __WAIT_QUEUE_HEAD_INITIALIZER(stream.wait),
};

/*
 * The ring's lock.  Outside NMI it is taken with IRQs off and this CPU
 * marked as holding it; an NMI on a CPU so marked cannot have it and
 * counts a loss, anywhere else it spins on trylock for a bounded time
 * (the holder copies one record at most).
 */
static DEFINE_PER_CPU(int, stream_locked_here);
#define NMI_SPIN_NS	(200 * NSEC_PER_USEC)

static unsigned long stream_lock(void)
{
	unsigned long flags;

	local_irq_save(flags);
	__this_cpu_inc(stream_locked_here);
	barrier();
	raw_spin_lock(&stream.lock);
	return flags;
}

static void stream_unlock(unsigned long flags)
{
	raw_spin_unlock(&stream.lock);
	barrier();
	__this_cpu_dec(stream_locked_here);
	local_irq_restore(flags);
}

static bool stream_lock_nmi(void)
{
	u64 t0;

	if (__this_cpu_read(stream_locked_here))
		return false;
	if (raw_spin_trylock(&stream.lock))
		return true;
	t0 = ktime_get_mono_fast_ns();
	do {
		cpu_relax();
		if (raw_spin_trylock(&stream.lock))
			return true;
	} while (ktime_get_mono_fast_ns() - t0 < NMI_SPIN_NS);
	return false;
}

#define WAKE_DELAY_MS	10

static void stream_wake_now(void)
{
	clear_bit(0, &stream.wake_armed);
	atomic64_inc(&stream.wakeups);
	wake_up_interruptible(&stream.wait);
}

static void stream_wake_timer(struct timer_list *t)
{
	stream_wake_now();
}

/* Unlocked: a stale size or head only moves a wake-up by WAKE_DELAY_MS. */
static bool stream_quarter_full(void)
{
	return READ_ONCE(stream.head) - READ_ONCE(stream.tail) >=
	       READ_ONCE(stream.size) / 4;
}

static void stream_wakeup(struct irq_work *work)
{
	if (stream_quarter_full())
		stream_wake_now();
	else
		mod_timer(&stream.wake_timer,
			  jiffies + msecs_to_jiffies(WAKE_DELAY_MS));
}

/* No wake-up on its way: none queued, none armed, the bit clear. */
static void stream_wake_cancel(void)
{
	irq_work_sync(&stream.wakeup);
	del_timer_sync(&stream.wake_timer);
	clear_bit(0, &stream.wake_armed);	/* a cancelled timer's */
}

/* After a record was written: start a wake-up unless one is on its way. */
static void stream_kick_reader(void)
{
	if (!wq_has_sleeper(&stream.wait))
		return;	/* a reader that is not asleep reads on */
	if (!test_and_set_bit(0, &stream.wake_armed) || stream_quarter_full())
		irq_work_queue(&stream.wakeup);
}

static void ring_copy_in(u64 pos, const void *src, u32 len)
{
	u32 off = pos & (stream.size - 1);
	u32 first = min(len, stream.size - off);

	memcpy(stream.buf + off, src, first);
	memcpy(stream.buf, src + first, len - first);
}

static void ring_copy_out(void *dst, u64 pos, u32 len)
{
	u32 off = pos & (stream.size - 1);
	u32 first = min(len, stream.size - off);

	memcpy(dst, stream.buf + off, first);
	memcpy(dst + first, stream.buf, len - first);
}

static bool ring_fits(u32 len)
{
	return stream.size - (stream.head - stream.tail) >= len;
}

/* Emit the pending "lost" record, if any and if it fits.  Lock held. */
static void ring_flush_lost(void)
{
	struct ustack_rec_lost rec = {
		.hdr = { .type = USTACK_REC_LOST, .size = sizeof(rec) },
	};
	u32 nmi_lost = atomic_xchg(&stream.nmi_lost, 0);

	stream.lost_samples += nmi_lost;
	stream.dropped_total += nmi_lost;
	if (!stream.lost_samples && !stream.lost_users)
		return;
	if (!ring_fits(sizeof(rec)))
		return;
	rec.samples = stream.lost_samples;
	rec.users = stream.lost_users;
	rec.time_ns = ktime_get_mono_fast_ns();	/* NMI-safe */
	ring_copy_in(stream.head, &rec, sizeof(rec));
	stream.head += sizeof(rec);
	stream.lost_samples = 0;
	stream.lost_users = 0;
}

/*
 * Append the record made of @a (@alen bytes) and @b (@blen bytes); the
 * header's size must be alen + blen rounded up to 8.  Returns false if it
 * was dropped (counted in the next lost record).
 */
bool ustack_stream_write(const void *a, u32 alen, const void *b, u32 blen)
{
	const struct ustack_rec_hdr *hdr = a;
	static const u64 zero;
	unsigned long flags;
	bool ok = false;
	u32 len = hdr->size;

	if (in_nmi()) {
		if (!stream_lock_nmi()) {
			atomic_inc(&stream.nmi_lost);
			return false;
		}
		flags = 0;
	} else {
		flags = stream_lock();
	}
	if (!stream.buf)
		goto out;
	ring_flush_lost();
	if (!stream.lost_samples && !stream.lost_users && ring_fits(len)) {
		ring_copy_in(stream.head, a, alen);
		if (blen)
			ring_copy_in(stream.head + alen, b, blen);
		if (len > alen + blen)
			ring_copy_in(stream.head + alen + blen, &zero,
				     len - alen - blen);
		stream.head += len;
		ok = true;
	} else {
		if (hdr->type == USTACK_REC_USER)
			stream.lost_users++;
		else
			stream.lost_samples++;
		stream.dropped_total++;
	}
out:
	if (in_nmi())
		raw_spin_unlock(&stream.lock);
	else
		stream_unlock(flags);
	if (ok)
		stream_kick_reader();
	return ok;
}

bool ustack_stream_active(void)
{
	return READ_ONCE(stream.buf) != NULL;
}

u64 ustack_stream_dropped(void)
{
	return READ_ONCE(stream.dropped_total);
}

/* Bytes written and read since the ring was made: free-running. */
u64 ustack_stream_written(void)
{
	return READ_ONCE(stream.head);
}

u64 ustack_stream_read_bytes(void)
{
	return READ_ONCE(stream.tail);
}

u64 ustack_stream_wakeups(void)
{
	return atomic64_read(&stream.wakeups);
}

/* Pop the next record into @dst (@cap bytes).  Returns its size, 0 if none. */
static u32 stream_pop(void *dst, u32 cap)
{
	struct ustack_rec_hdr hdr;
	unsigned long flags;
	u32 len = 0;

	flags = stream_lock();
	if (stream.buf && stream.head != stream.tail) {
		ring_copy_out(&hdr, stream.tail, sizeof(hdr));
		len = hdr.size;
		if (WARN_ON_ONCE(len > cap || len < sizeof(hdr))) {
			stream.tail = stream.head;	/* cannot happen */
			len = 0;
		} else {
			ring_copy_out(dst, stream.tail, len);
			stream.tail += len;
		}
	}
	/* The room just made lets a pending loss be reported. */
	if (stream.buf)
		ring_flush_lost();
	stream_unlock(flags);
	return len;
}

static bool stream_empty(void)
{
	return READ_ONCE(stream.head) == READ_ONCE(stream.tail);
}

/* Readers -------------------------------------------------------------- */

struct reader {
	u32 format;		/* enum ustack_format */
	char *rec;		/* one binary record */
	char *text;		/* its rendering */
	u32 text_len, text_pos;
};

#define TEXT_MAX (USTACK_REC_MAX * 4)

static int readers;
static DEFINE_MUTEX(readers_lock);

static const char *const method_names[USTACK_METHOD_MAX] = {
	[USTACK_METHOD_REGS] = "regs", [USTACK_METHOD_SFRAME] = "sframe",
	[USTACK_METHOD_FP] = "fp", [USTACK_METHOD_SIGNAL] = "signal",
	[USTACK_METHOD_ENTRY] = "entry",
};

static const char *const end_names[USTACK_END_MAX] = {
	[USTACK_END_OUTERMOST] = "outermost", [USTACK_END_FAULT] = "fault",
	[USTACK_END_DEPTH] = "depth", [USTACK_END_NO_INFO] = "no-info",
	[USTACK_END_BAD_FRAME] = "bad-frame", [USTACK_END_EXIT] = "exit",
	[USTACK_END_EXEC] = "exec", [USTACK_END_NOMEM] = "nomem",
	[USTACK_END_KTHREAD] = "kthread", [USTACK_END_BUDGET] = "budget",
};

static const char *name_of(const char *const *names, u32 n, u32 i)
{
	return i < n && names[i] ? names[i] : "unknown";
}

const char *ustack_method_name(unsigned int m)
{
	return name_of(method_names, USTACK_METHOD_MAX, m);
}

const char *ustack_end_name(unsigned int e)
{
	return name_of(end_names, USTACK_END_MAX, e);
}

#define emit(r, ...) \
	((r)->text_len += scnprintf((r)->text + (r)->text_len, \
				    TEXT_MAX - (r)->text_len, __VA_ARGS__))

static void render_event(struct reader *r, const struct ustack_rec_sample *s)
{
	switch (s->event) {
	case USTACK_EVENT_CPU_CLOCK:
		emit(r, "cpu-clock");
		break;
	case USTACK_EVENT_CYCLES:
		emit(r, "cycles");
		break;
	case USTACK_EVENT_SYSCALL:
		emit(r, "syscall:%s", ustack_syscall_name(s->syscall_nr));
		break;
	case USTACK_EVENT_OFFCPU:
		emit(r, "offcpu");
		break;
	case USTACK_EVENT_NMI_TEST:
		emit(r, "nmi-test");
		break;
	default:
		emit(r, "self");
		break;
	}
}

static void render_sample(struct reader *r, const struct ustack_rec_sample *s)
{
	const u64 *ips = (const u64 *)(s + 1);
	char sym[KSYM_SYMBOL_LEN];
	char comm[sizeof(s->comm) + 1];
	u32 i;

	memcpy(comm, s->comm, sizeof(s->comm));
	comm[sizeof(s->comm)] = 0;
	emit(r, "sample cookie=0x%016llx pid=%u tid=%u cpu=%u time=%llu event=",
	     s->cookie, s->pid, s->tid, s->cpu, s->time_ns);
	render_event(r, s);
	emit(r, " comm=%s\n", comm);
	for (i = 0; i < s->nr_kernel; i++) {
		char *slash;

		sprint_symbol(sym, ips[i]);
		slash = strchr(sym, '/');	/* drop "/size [module]" */
		if (slash)
			*slash = 0;
		emit(r, "    kernel 0x%llx %s\n", ips[i], sym);
	}
}

static void render_user(struct reader *r, const struct ustack_rec_user *u)
{
	const struct ustack_frame *f = (const void *)(u + 1);
	const char *strtab = (const char *)(f + u->nr_frames);
	u32 i;

	emit(r, "user cookie=0x%016llx pid=%u tid=%u frames=%u end=%s\n",
	     u->cookie, u->pid, u->tid, u->nr_frames,
	     ustack_end_name(u->end_reason));
	for (i = 0; i < u->nr_frames; i++) {
		const char *obj = f[i].object < u->strtab_len ?
				  strtab + f[i].object : "[unknown]";

		emit(r, "    user 0x%llx %s %s+0x%llx\n", f[i].ip,
		     ustack_method_name(f[i].method),
		     obj, f[i].offset);
	}
}

static void render(struct reader *r, u32 len)
{
	const struct ustack_rec_hdr *hdr = (const void *)r->rec;
	const struct ustack_rec_lost *l = (const void *)r->rec;

	r->text_len = 0;
	r->text_pos = 0;
	switch (hdr->type) {
	case USTACK_REC_SAMPLE:
		render_sample(r, (const void *)r->rec);
		break;
	case USTACK_REC_USER:
		render_user(r, (const void *)r->rec);
		break;
	case USTACK_REC_LOST:
		emit(r, "lost samples=%llu users=%llu time=%llu\n",
		     l->samples, l->users, l->time_ns);
		break;
	}
}

static int stream_start(void)
{
	u32 size = roundup_pow_of_two(clamp_val(ustack_buffer_kb, 64, 262144)) * 1024;
	char *buf = vmalloc(size);	/* never read before written */
	unsigned long flags;

	if (!buf)
		return -ENOMEM;
	flags = stream_lock();
	stream.size = size;
	stream.head = 0;
	stream.tail = 0;
	stream.lost_samples = 0;
	stream.lost_users = 0;
	atomic_set(&stream.nmi_lost, 0);
	WRITE_ONCE(stream.buf, buf);
	stream_unlock(flags);
	return 0;
}

static void stream_stop(void)
{
	unsigned long flags;
	char *buf;

	flags = stream_lock();
	buf = stream.buf;
	WRITE_ONCE(stream.buf, NULL);
	stream_unlock(flags);
	stream_wake_cancel();
	vfree(buf);
}

static int ustack_open(struct inode *inode, struct file *file)
{
	struct reader *r;
	int ret = 0;

	if (!perfmon_capable())
		return -EPERM;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->rec = kvmalloc(USTACK_REC_MAX, GFP_KERNEL);
	r->text = kvmalloc(TEXT_MAX, GFP_KERNEL);
	if (!r->rec || !r->text) {
		ret = -ENOMEM;
		goto err;
	}
	ret = ustack_deferred_enable();
	if (ret)
		goto err;
	mutex_lock(&readers_lock);
	if (readers == 0) {
		ret = stream_start();
		if (!ret) {
			ret = ustack_sources_start();
			if (ret)
				stream_stop();
		}
	}
	if (!ret)
		readers++;
	mutex_unlock(&readers_lock);
	if (ret)
		goto err;
	file->private_data = r;
	return nonseekable_open(inode, file);
err:
	kvfree(r->rec);
	kvfree(r->text);
	kfree(r);
	return ret;
}

static int ustack_release(struct inode *inode, struct file *file)
{
	struct reader *r = file->private_data;

	mutex_lock(&readers_lock);
	if (--readers == 0) {
		ustack_sources_stop();
		stream_stop();
	}
	mutex_unlock(&readers_lock);
	kvfree(r->rec);
	kvfree(r->text);
	kfree(r);
	return 0;
}

static ssize_t read_text(struct reader *r, char __user *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		u32 n;

		if (r->text_pos == r->text_len) {
			u32 rec_len = stream_pop(r->rec, USTACK_REC_MAX);

			if (!rec_len)
				break;
			render(r, rec_len);
			continue;
		}
		n = min_t(size_t, len - done, r->text_len - r->text_pos);
		if (copy_to_user(buf + done, r->text + r->text_pos, n))
			return done ? done : -EFAULT;
		r->text_pos += n;
		done += n;
	}
	return done;
}

static ssize_t read_binary(struct reader *r, char __user *buf, size_t len)
{
	struct ustack_rec_hdr hdr;
	unsigned long flags;
	size_t done = 0;

	for (;;) {
		u32 n;

		flags = stream_lock();
		n = 0;
		if (stream.buf && stream.head != stream.tail) {
			ring_copy_out(&hdr, stream.tail, sizeof(hdr));
			n = hdr.size;
		}
		stream_unlock(flags);
		if (!n || n > len - done)
			break;
		n = stream_pop(r->rec, USTACK_REC_MAX);
		if (!n)
			break;
		if (copy_to_user(buf + done, r->rec, n))
			return done ? done : -EFAULT;
		done += n;
	}
	if (!done && !stream_empty())
		return -EINVAL;	/* buffer smaller than one record */
	return done;
}

static bool reader_has_data(struct reader *r)
{
	return r->text_pos < r->text_len || !stream_empty();
}

static ssize_t ustack_read(struct file *file, char __user *buf, size_t len,
			   loff_t *ppos)
{
	struct reader *r = file->private_data;
	ssize_t ret;

	if (!len)
		return 0;
	while (!reader_has_data(r)) {
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(stream.wait, reader_has_data(r)))
			return -ERESTARTSYS;
	}
	if (r->format == USTACK_FORMAT_BINARY)
		ret = read_binary(r, buf, len);
	else
		ret = read_text(r, buf, len);
	return ret;
}

static __poll_t ustack_poll(struct file *file, poll_table *wait)
{
	struct reader *r = file->private_data;

	poll_wait(file, &stream.wait, wait);
	return reader_has_data(r) ? EPOLLIN | EPOLLRDNORM : 0;
}

static long ustack_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct reader *r = file->private_data;
	u32 format;

	switch (cmd) {
	case USTACK_IOC_SET_FORMAT:
		if (get_user(format, (u32 __user *)arg))
			return -EFAULT;
		if (format != USTACK_FORMAT_TEXT && format != USTACK_FORMAT_BINARY)
			return -EINVAL;
		if (r->text_pos < r->text_len)
			return -EBUSY;	/* half-read text record */
		r->format = format;
		return 0;
	}
	return -ENOTTY;
}

static const struct file_operations ustack_fops = {
	.owner = THIS_MODULE,
	.open = ustack_open,
	.release = ustack_release,
	.read = ustack_read,
	.poll = ustack_poll,
	.unlocked_ioctl = ustack_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = ustack_no_llseek,
};

static struct miscdevice ustack_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "ustack",
	.fops = &ustack_fops,
	.mode = 0600,
};

int ustack_dev_init(void)
{
	init_irq_work(&stream.wakeup, stream_wakeup);
	timer_setup(&stream.wake_timer, stream_wake_timer, 0);
	return misc_register(&ustack_misc);
}

void ustack_dev_exit(void)
{
	misc_deregister(&ustack_misc);
	/* A writer that raced the last close may have started a wake-up. */
	stream_wake_cancel();
}
