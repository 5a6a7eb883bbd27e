/* SPDX-License-Identifier: GPL-2.0 */
/*
 * py_layout.h - a CPython's layout from its object's file (py_layout.c),
 * for the kernel's reader of its frames.
 */
#ifndef TOOLS_PY_LAYOUT_H
#define TOOLS_PY_LAYOUT_H

#include <stddef.h>
#include <gelf.h>
#include <linux/types.h>
#include "uapi/ustack.h"

/*
 * @elf's CPython, if any: 0 and *@py filled; 1 when it holds none; -1 when
 * it is one no layout is known of, @why saying which and why.
 */
int py_layout_of_elf(Elf *elf, struct ustack_python *py, char *why, size_t n);

#endif
