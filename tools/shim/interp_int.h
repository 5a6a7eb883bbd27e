/* SPDX-License-Identifier: GPL-2.0 */
/* interp_int.h - internals shared by interp.c and interp_python.c. */
#ifndef SHIM_INTERP_INT_H
#define SHIM_INTERP_INT_H

#include "ustack.h"

/*
 * Add a frame with the function and file of the answer's frame @like (an
 * index), at @line: recursion without copying the strings again.
 * Returns 0, or -1 when the answer is full or @like is not a frame.
 */
__attribute__((visibility("hidden")))
int ustack_interp_same(struct ustack_interp *a, int like, unsigned int line,
		       unsigned int flags);

#endif
