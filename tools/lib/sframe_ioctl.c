// SPDX-License-Identifier: GPL-2.0
/* sframe_ioctl.c - the tools' requests to /dev/sframe (sframe_ioctl.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "sframe_ioctl.h"

/* The request, made again when a signal interrupts it (bounded). */
static int dev_ioctl(int fd, unsigned long req, void *arg)
{
	int saved = errno, ret = 0;

	for (int tries = 0; tries < SFRAME_IOCTL_TRIES; tries++) {
		ret = ioctl(fd, req, arg) < 0 ? -errno : 0;
		if (ret != -EINTR)
			break;
	}
	errno = saved;
	return ret;
}

int sframe_dev_open(void)
{
	int saved = errno, fd = open(SFRAME_DEV, O_RDWR | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		fd = -errno;
	errno = saved;
	return fd;
}

int sframe_dev_register(int fd, const void *sframe, size_t len,
			const void *text_lo, const void *text_hi)
{
	struct sframe_reg r = {
		.size = sizeof(r),
		.sframe_start = (uintptr_t)sframe,
		.sframe_len = len,
		.text_start = (uintptr_t)text_lo,
		.text_end = (uintptr_t)text_hi,
	};

	return dev_ioctl(fd, SFRAME_IOC_REGISTER, &r);
}

int sframe_dev_unregister(int fd, const void *sframe)
{
	struct sframe_reg r = {
		.size = sizeof(r),
		.sframe_start = (uintptr_t)sframe,
	};

	return dev_ioctl(fd, SFRAME_IOC_UNREGISTER, &r);
}

int sframe_dev_store_add(int fd, struct sframe_store_reg *r)
{
	return dev_ioctl(fd, SFRAME_IOC_STORE_ADD, r);
}

int sframe_dev_store_flush(int fd)
{
	return dev_ioctl(fd, SFRAME_IOC_STORE_FLUSH, NULL);
}

int sframe_dev_store_misses(int fd, struct sframe_store_misses *q)
{
	return dev_ioctl(fd, SFRAME_IOC_STORE_MISSES, q);
}
