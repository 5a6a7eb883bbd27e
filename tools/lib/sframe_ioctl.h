/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sframe_ioctl.h - the tools' requests to /dev/sframe (include/uapi/ustack.h),
 * for the shim, libustack and ustackd alike.
 *
 * One policy for a request a signal interrupts: it is made again, at most
 * SFRAME_IOCTL_TRIES times in all, then fails with -EINTR.  Bounded: a
 * profiler's timer firing every few milliseconds must not keep a program
 * in the shim, nor a daemon in one request, for ever.  Every call returns
 * 0 (or a count) or -errno, and keeps the caller's errno.
 *
 * Not for a signal handler's own requests (the interp answer, the
 * self-stack walk): those make exactly one system call.
 */
#ifndef TOOLS_SFRAME_IOCTL_H
#define TOOLS_SFRAME_IOCTL_H

#include <stddef.h>
#include "uapi/ustack.h"

#define SFRAME_DEV		"/dev/sframe"
#define SFRAME_IOCTL_TRIES	16

/* Open /dev/sframe (O_CLOEXEC): a descriptor, or -errno (-ENOENT: no module). */
int sframe_dev_open(void);

/* Register [@sframe, +@len) for the text [@text_lo, @text_hi) of this process. */
int sframe_dev_register(int fd, const void *sframe, size_t len,
			const void *text_lo, const void *text_hi);
int sframe_dev_unregister(int fd, const void *sframe);

/* The file-keyed store (CAP_SYS_ADMIN or CAP_PERFMON): add an entry. */
int sframe_dev_store_add(int fd, struct sframe_store_reg *r);
/* Drop every store entry from the kernel. */
int sframe_dev_store_flush(int fd);
/* Read up to @q->max_misses queued misses into @q->misses. */
int sframe_dev_store_misses(int fd, struct sframe_store_misses *q);

#endif
