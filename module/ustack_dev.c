// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/ustack: the record stream, for root (CAP_PERFMON or CAP_SYS_ADMIN).
 *
 * The first open makes the ring and starts the event sources; the last
 * release stops them and drops the ring.  Readers share the ring: each
 * record goes to one read(), as in a pipe.  A file reads text (the
 * default; render.c) or, after USTACK_IOC_SET_FORMAT, binary records:
 * packed as the ring holds them, or with user stacks unpacked (render.c).
 * A file's own state (the record it is half way through) has a mutex of
 * its own, so that threads sharing one file, or a read racing a format
 * change, never see it torn.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/log2.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <uapi/ustack.h>
#include "ustack_limits.h"
#include "render.h"
#include "ring.h"
#include "sources.h"
#include "ustack_dev.h"

unsigned int ustack_dev_buffer_kb = 4096;

struct reader {
	struct mutex lock;	/* everything below */
	u32 format;		/* enum ustack_format */
	char *rec;		/* the record being read */
	u32 line, nlines;	/* text: next line of @rec to render */
	char *text;		/* text: the rendered line */
	u32 text_len, text_pos;
	char *unpacked;		/* binary: a user stack unpacked */
	const void *out;	/* binary: the record to give, or NULL */
};

static int readers;
static DEFINE_MUTEX(readers_lock);

static u32 ring_size(void)
{
	return roundup_pow_of_two(clamp_val(READ_ONCE(ustack_dev_buffer_kb),
					    64, 262144)) * 1024;
}

/* The first reader makes the ring and starts the sources. */
static int session_join(void)
{
	int ret;

	guard(mutex)(&readers_lock);
	if (readers == 0) {
		ret = ustack_ring_start(ring_size());
		if (ret)
			return ret;
		ret = ustack_sources_start();
		if (ret) {
			ustack_ring_stop();
			return ret;
		}
	}
	readers++;
	return 0;
}

static void session_leave(void)
{
	guard(mutex)(&readers_lock);
	if (--readers == 0) {
		ustack_sources_stop();
		ustack_ring_stop();
	}
}

static void reader_free(struct reader *r)
{
	kvfree(r->rec);
	kvfree(r->text);
	kvfree(r->unpacked);
	kfree(r);
}

static int ustack_dev_open(struct inode *inode, struct file *file)
{
	struct reader *r;
	int ret;

	if (!perfmon_capable())
		return -EPERM;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	mutex_init(&r->lock);
	r->rec = kvmalloc(USTACK_REC_MAX, GFP_KERNEL);
	r->text = kvmalloc(USTACK_RENDER_LINE_MAX, GFP_KERNEL);
	ret = r->rec && r->text ? session_join() : -ENOMEM;
	if (ret) {
		reader_free(r);
		return ret;
	}
	file->private_data = r;
	return nonseekable_open(inode, file);
}

static int ustack_dev_release(struct inode *inode, struct file *file)
{
	session_leave();
	reader_free(file->private_data);
	return 0;
}

/* A text record is half read: rendered lines or lines to render left. */
static bool text_pending(const struct reader *r)
{
	return r->text_pos < r->text_len || r->line < r->nlines;
}

/*
 * A read ends between records, as trace_pipe's does, so that a reader
 * stopped between two reads (`timeout 10 cat /dev/ustack >file`) leaves
 * whole records: a record that does not fit after others waits for the
 * next read, rendered again from its first line.  Only a record longer
 * than the whole buffer is split across reads.
 */
static ssize_t read_text(struct reader *r, char __user *buf, size_t len)
{
	size_t done = 0, rec_start = 0;
	u32 need;

	lockdep_assert_held(&r->lock);
	while (done < len) {
		u32 n;

		if (r->text_pos == r->text_len) {
			if (r->line == r->nlines) {
				if (!ustack_ring_pop(r->rec, USTACK_REC_MAX, &need))
					break;
				r->line = 0;
				r->nlines = ustack_render_lines(r->rec);
				rec_start = done;
				continue;
			}
			r->text_len = ustack_render_line(r->rec, r->line++,
							 r->text,
							 USTACK_RENDER_LINE_MAX);
			r->text_pos = 0;
			continue;
		}
		n = min_t(size_t, len - done, r->text_len - r->text_pos);
		if (copy_to_user(buf + done, r->text + r->text_pos, n))
			return done ? done : -EFAULT;
		r->text_pos += n;
		done += n;
	}
	if (rec_start && text_pending(r)) {
		r->line = 0;
		r->text_len = 0;
		r->text_pos = 0;
		return rec_start;
	}
	return done;
}

/*
 * Whole records, as many as fit, each popped only if it fits: packed,
 * straight from the ring.
 */
static ssize_t read_packed(char __user *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;
	u32 need = 0;

	while (done < len) {
		n = ustack_ring_read_user(buf + done, len - done, &need);
		if (n < 0)
			return done ? done : n;
		if (!n)
			break;
		done += n;
	}
	if (!done && need)
		return -EINVAL;	/* buffer smaller than one record */
	return done;
}

/*
 * Whole records, as many as fit, unpacked: a record is popped first and
 * waits in the reader (@r->out) for a read with room for it.
 */
static ssize_t read_binary(struct reader *r, char __user *buf, size_t len)
{
	const struct ustack_rec_hdr *h;
	size_t done = 0;
	u32 need = 0;

	lockdep_assert_held(&r->lock);
	while (done < len) {
		if (!r->out) {
			if (!ustack_ring_pop(r->rec, USTACK_REC_MAX, &need))
				break;
			r->out = ustack_render_binary(r->rec, r->unpacked);
		}
		h = r->out;
		if (h->size > len - done) {
			need = h->size;
			break;
		}
		if (copy_to_user(buf + done, r->out, h->size))
			return done ? done : -EFAULT;
		done += h->size;
		r->out = NULL;
	}
	if (!done && need)
		return -EINVAL;	/* buffer smaller than one record */
	return done;
}

static bool reader_has_data(struct reader *r)
{
	return READ_ONCE(r->text_pos) < READ_ONCE(r->text_len) ||
	       READ_ONCE(r->line) < READ_ONCE(r->nlines) || READ_ONCE(r->out) ||
	       !ustack_ring_empty();
}

/*
 * Another reader may take the record this one was woken for: then it
 * waits again, as a pipe reader does, rather than return 0 (end of file
 * to cat).
 */
static ssize_t ustack_dev_read(struct file *file, char __user *buf, size_t len,
			   loff_t *ppos)
{
	struct reader *r = file->private_data;
	ssize_t ret;

	if (!len)
		return 0;
	for (;;) {
		while (!reader_has_data(r)) {
			if (file->f_flags & O_NONBLOCK)
				return -EAGAIN;
			if (wait_event_interruptible(*ustack_ring_waitq(),
						     reader_has_data(r)))
				return -ERESTARTSYS;
		}
		if (mutex_lock_interruptible(&r->lock))
			return -ERESTARTSYS;
		if (r->format == USTACK_FORMAT_PACKED)
			ret = read_packed(buf, len);
		else if (r->format == USTACK_FORMAT_BINARY)
			ret = read_binary(r, buf, len);
		else
			ret = read_text(r, buf, len);
		mutex_unlock(&r->lock);
		if (ret)
			return ret;
	}
}

static __poll_t ustack_dev_poll(struct file *file, poll_table *wait)
{
	struct reader *r = file->private_data;

	poll_wait(file, ustack_ring_waitq(), wait);
	return reader_has_data(r) ? EPOLLIN | EPOLLRDNORM : 0;
}

static long ustack_dev_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	struct reader *r = file->private_data;
	u32 format;

	switch (cmd) {
	case USTACK_IOC_SET_FORMAT:
		if (get_user(format, (u32 __user *)arg))
			return -EFAULT;
		if (format > USTACK_FORMAT_PACKED)
			return -EINVAL;
		guard(mutex)(&r->lock);
		if (text_pending(r) || r->out)
			return -EBUSY;	/* a record half read, or waiting */
		if (format == USTACK_FORMAT_BINARY && !r->unpacked) {
			r->unpacked = kvmalloc(USTACK_REC_MAX, GFP_KERNEL);
			if (!r->unpacked)
				return -ENOMEM;
		}
		r->format = format;
		return 0;
	}
	return -ENOTTY;
}

static const struct file_operations ustack_dev_fops = {
	.owner = THIS_MODULE,
	.open = ustack_dev_open,
	.release = ustack_dev_release,
	.read = ustack_dev_read,
	.poll = ustack_dev_poll,
	.unlocked_ioctl = ustack_dev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = ustack_no_llseek,
};

static struct miscdevice ustack_dev_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "ustack",
	.fops = &ustack_dev_fops,
	.mode = 0600,
};

int ustack_dev_init(void)
{
	return misc_register(&ustack_dev_misc);
}

void ustack_dev_exit(void)
{
	misc_deregister(&ustack_dev_misc);
}
