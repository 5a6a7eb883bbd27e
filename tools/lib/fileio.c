// SPDX-License-Identifier: GPL-2.0
/* fileio.c - writing files whole (fileio.h). */
#include <errno.h>
#include <unistd.h>
#include "fileio.h"

int write_all(int fd, const void *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO;
			return -errno;
		}
		p = (const char *)p + n;
		len -= n;
	}
	return 0;
}
