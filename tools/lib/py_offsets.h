/* SPDX-License-Identifier: GPL-2.0 */
/*
 * py_offsets.h - where CPython keeps what ustack reads of it, per version
 * (py_offsets.c): the one table of the shim's unwinder (which reads a
 * process's own memory) and of ustackd (which reads the object's file
 * for the kernel's reader).  No libelf: the shim links it.
 */
#ifndef TOOLS_PY_OFFSETS_H
#define TOOLS_PY_OFFSETS_H

#include <stdint.h>
#include <linux/types.h>
#include "uapi/ustack.h"

#define PY_MINOR(v)	(((v) >> 16) & 0xffff)

/* 3.11: Debian 12's 3.11.2 (offsetof() against its internal headers). */
extern const struct ustack_python py_offsets_311;

/*
 * The _Py_DebugOffsets table of 3.13 on, published at the start of
 * _PyRuntime: @t, its words (at least PY_DBG_WORDS_MAX), whose cookie,
 * version and free-threading the caller checked.  Into *@py the offsets
 * of every field read; the thread lists only where this file checked
 * them for the version (else USTACK_PY_NONE).  0, or -1 for a version
 * with no table known (or before the one known) or a table that does not
 * check out.
 */
#define PY_DBG_WORDS_MAX	128
int py_offsets_from_debug(struct ustack_python *py, uint64_t version,
			  const uint64_t *t);

/* The words of @version's table to read (0: no table known). */
unsigned int py_offsets_debug_words(uint64_t version);

#endif
