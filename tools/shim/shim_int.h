/* SPDX-License-Identifier: GPL-2.0 */
/* shim_int.h - internals shared by shim.c and libustack.c. */
#ifndef SFRAME_REGISTER_SHIM_INT_H
#define SFRAME_REGISTER_SHIM_INT_H

#include <stddef.h>

#define SHIM_HIDDEN __attribute__((visibility("hidden")))

/* Open /dev/sframe for a batch of ioctls (O_CLOEXEC); -errno if absent. */
SHIM_HIDDEN int shim_dev_open(void);
SHIM_HIDDEN int shim_dev_register(int fd, const void *sframe, size_t len,
				  const void *text_lo, const void *text_hi);
SHIM_HIDDEN int shim_dev_unregister(int fd, const void *sframe);

#endif
