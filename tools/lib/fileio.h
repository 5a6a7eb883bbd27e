/* SPDX-License-Identifier: GPL-2.0 */
/* fileio.h - writing files whole, whatever signals interrupt. */
#ifndef TOOLS_FILEIO_H
#define TOOLS_FILEIO_H

#include <stddef.h>

/* Write all @len bytes at @p to @fd.  Returns 0, or -errno (errno set too). */
int write_all(int fd, const void *p, size_t len);

#endif
