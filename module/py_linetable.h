/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPython's location tables (py_linetable.c): the one decoder of the
 * kernel's reader (py_frames.c) and of the shim's unwinder, built with
 * the SFrame core (core.mk).
 */
#ifndef USTACK_PY_LINETABLE_H
#define USTACK_PY_LINETABLE_H

#include "sframe_env.h"

#define PY_LINETABLE_MAX	4096	/* lines beyond read as unknown */

/* Copy @len bytes at offset @off of the table: 0, or -EFAULT. */
typedef int (*py_lt_read_t)(void *ctx, void *dst, u64 off, u32 len);

int ustack_py_addr2line(py_lt_read_t read, void *ctx, u64 n, int first,
			long unit);

#endif /* USTACK_PY_LINETABLE_H */
