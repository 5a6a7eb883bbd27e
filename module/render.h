/* SPDX-License-Identifier: GPL-2.0 */
/* The text and unpacked forms of /dev/ustack's records (render.c). */
#ifndef USTACK_RENDER_H
#define USTACK_RENDER_H

#include <linux/types.h>
#include "ustack_limits.h"

/*
 * The longest line: a user frame whose object name fills the string
 * table, every byte escaped to four, plus the fixed words; a kernel
 * frame's symbol is shorter (KSYM_SYMBOL_LEN).
 */
#define USTACK_RENDER_LINE_MAX	(4 * USTACK_STRTAB_MAX + 128)

u32 ustack_render_lines(const void *rec);
size_t ustack_render_line(const void *rec, u32 line, char *buf, size_t cap);
const void *ustack_render_binary(const void *rec, void *buf);
const char *ustack_render_method(unsigned int m);
const char *ustack_render_end(unsigned int e);
struct ustack_rec_sample;
size_t ustack_render_event(const struct ustack_rec_sample *s, char *buf,
			   size_t cap);

#endif /* USTACK_RENDER_H */
