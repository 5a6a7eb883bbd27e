// SPDX-License-Identifier: GPL-2.0
/*
 * interp_pylayout.c - the frame layouts of the Pythons people run, for the
 * CPython unwinder (interp_python.c).
 *
 * 3.11 and 3.12 by their known layouts: the offsets of the structures of
 * their internal headers (Py_BUILD_CORE: pycore_frame.h, cpython/code.h,
 * cpython/pystate.h, cpython/unicodeobject.h), 3.11's checked with
 * offsetof() against Debian 12's 3.11.2, 3.12's written from the 3.12
 * headers (no Debian suite has a 3.12 to run).
 *
 * 3.13 on by what the interpreter itself publishes for out-of-process
 * tools: _Py_DebugOffsets at the start of its runtime state (_PyRuntime),
 * the offsets of its thread state, frame, code object, str and bytes as
 * this build has them.  Only where each offset sits in that table is
 * known here, per minor version (the table grows between them):
 *   3.13 from 3.13.0rc2, 3.14 from 3.14.0rc1, 3.15 from 3.15.0b4 (the
 *   table's last changes within a series).
 * So a 3.13, 3.14 or 3.15 built otherwise, or a later bug-fix release
 * whose structures moved, still unwinds.  Any other version, a
 * free-threaded build, or a table that does not check out is left alone
 * (py_layout_find() says why).
 *
 * Entry frames: 3.11 marks the first frame of each C-level evaluation
 * (is_entry); 3.12 on links a frame owned by the C stack (3.14 on: by the
 * interpreter, or the C stack) below it instead, which the unwinder
 * skips, marking the frame above as the entry.  3.14 on, the frame's
 * code is a tagged reference: bit 0 says how it is counted.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "interp_pylayout.h"

#define V(maj, min, mic, lvl, ser) \
	(((unsigned long)(maj) << 24) | ((min) << 16) | ((mic) << 8) | \
	 ((lvl) << 4) | (ser))
#define MINOR(v)	((v) >> 16)

/* 3.11: Debian 12's 3.11.2 (the unwinder's first layout). */
static const struct py_layout py311 = {
	.lang = "python3.11",
	.ts_cframe = 56, .current_frame = 8,
	.fr_code = 32, .fr_previous = 48, .fr_instr = 56, .instr_is_prev = 1,
	.fr_is_entry = 68, .fr_owner = -1, .fr_read = 72,
	.ob_type = 8,
	.co_filename = 112, .co_qualname = 128, .co_linetable = 136,
	.co_firstlineno = 72, .co_code = 184,
	.str_length = 16, .str_hash = 24, .str_state = 32, .str_ascii_data = 48,
	.str_utf8_length = 48, .str_utf8 = 56, .str_compact_data = 72,
	.bytes_size = 16, .bytes_data = 32,
};

/*
 * 3.12: no _PyCFrame.use_tracing (current_frame first), f_code first in
 * the frame, owner instead of is_entry (3 = FRAME_OWNED_BY_CSTACK: the
 * entry frame), co_version among the code object's ints, no wstr.
 */
static const struct py_layout py312 = {
	.lang = "python3.12",
	.ts_cframe = 56, .current_frame = 0,
	.fr_code = 0, .fr_previous = 8, .fr_instr = 56, .instr_is_prev = 1,
	.fr_is_entry = -1, .fr_owner = 70, .owner_not_code = 3, .fr_read = 72,
	.ob_type = 8,
	.co_filename = 112, .co_qualname = 128, .co_linetable = 136,
	.co_firstlineno = 68, .co_code = 192,
	.str_length = 16, .str_hash = 24, .str_state = 32, .str_ascii_data = 40,
	.str_utf8_length = 40, .str_utf8 = 48, .str_compact_data = 56,
	.bytes_size = 16, .bytes_data = 32,
};

/*
 * Where the fields used sit in each version's _Py_DebugOffsets, in
 * 64-bit words from its start (word 0 is the cookie "xdebugpy", 1 the
 * version, 2 whether the build is free-threaded).  compact: -1 when the
 * table has no sizeof(PyCompactUnicodeObject) (then it is
 * sizeof(PyASCIIObject) + utf8_length + utf8).
 */
struct dbg_words {
	unsigned long first;	/* the first version with this table */
	unsigned int words;	/* the table's size */
	int ts_size, ts_current_frame;
	int fr_size, fr_previous, fr_executable, fr_instr_ptr, fr_owner;
	int co_size, co_filename, co_qualname, co_linetable, co_firstlineno;
	int co_code_adaptive;
	int ob_type;
	int bytes_size, bytes_ob_size, bytes_ob_sval;
	int str_size, str_state, str_length, str_ascii_size, str_compact;
	int owner_not_code;	/* FRAME_OWNED_BY_CSTACK, or _INTERPRETER */
	uintptr_t code_tag;
};

static const struct dbg_words dbg313 = {
	V(3, 13, 0, 0xc, 2), 73, 19, 23, 28, 29, 30, 31, 33,
	34, 35, 37, 38, 39, 43, 45, 64, 65, 66, 67, 68, 69, 70, -1, 3, 0,
};
static const struct dbg_words dbg314 = {
	V(3, 14, 0, 0xc, 1), 95, 22, 26, 31, 32, 33, 34, 36,
	39, 40, 42, 43, 44, 48, 51, 74, 75, 76, 77, 78, 79, 80, -1, 3, 1,
};
static const struct dbg_words dbg315 = {
	V(3, 15, 0, 0xb, 4), 111, 22, 26, 39, 40, 41, 42, 44,
	47, 48, 50, 51, 52, 56, 59, 86, 87, 88, 89, 90, 91, 92, 93, 3, 1,
};

static const struct dbg_words *dbg_table(unsigned long version)
{
	switch (MINOR(version)) {
	case 0x030d:
		return &dbg313;
	case 0x030e:
		return &dbg314;
	case 0x030f:
		return &dbg315;
	}
	return NULL;
}

/* An offset inside a structure of @size, with room for @len bytes. */
static int fits(uint64_t off, uint64_t size, uint64_t len)
{
	return size && size <= 4096 && off <= size && len <= size - off;
}

static int from_debug_offsets(struct py_layout *l, unsigned long v,
			      const uint64_t *t, const struct dbg_words *w)
{
	uint64_t fr = t[w->fr_size], co = t[w->co_size], st = t[w->str_size];
	uint64_t by = t[w->bytes_size], ascii = t[w->str_ascii_size];
	uint64_t compact = w->str_compact >= 0 ? t[w->str_compact] : ascii + 16;
	int i;

	if (!fits(t[w->ts_current_frame], t[w->ts_size], 8) ||
	    !fits(t[w->fr_previous], fr, 8) || !fits(t[w->fr_executable], fr, 8) ||
	    !fits(t[w->fr_instr_ptr], fr, 8) || !fits(t[w->fr_owner], fr, 1) ||
	    !fits(t[w->co_filename], co, 8) || !fits(t[w->co_qualname], co, 8) ||
	    !fits(t[w->co_linetable], co, 8) || !fits(t[w->co_firstlineno], co, 4) ||
	    !fits(t[w->co_code_adaptive], co, 0) || !fits(t[w->ob_type], 64, 8) ||
	    !fits(t[w->bytes_ob_size], by, 8) || !fits(t[w->bytes_ob_sval], by, 0) ||
	    !fits(t[w->str_state], st, 4) || !fits(t[w->str_length], st, 16) ||
	    ascii < 32 || ascii > 128 || compact < ascii + 16 || compact > 256)
		return -1;
	memset(l, 0, sizeof(*l));
	snprintf(l->lang, sizeof(l->lang), "python%u.%u",
		 (unsigned int)(v >> 24) & 0xff, (unsigned int)(v >> 16) & 0xff);
	l->version = v;
	l->ts_cframe = -1;
	l->current_frame = t[w->ts_current_frame];
	l->fr_code = t[w->fr_executable];
	l->fr_previous = t[w->fr_previous];
	l->fr_instr = t[w->fr_instr_ptr];
	l->fr_is_entry = -1;
	l->fr_owner = t[w->fr_owner];
	l->owner_not_code = w->owner_not_code;
	l->code_tag = w->code_tag;	/* Py_TAG_REFCNT */
	l->fr_read = 0;
	for (i = 0; i < 4; i++) {
		int o = (int[]){ l->fr_code, l->fr_previous, l->fr_instr,
				 l->fr_owner }[i] + (i == 3 ? 1 : 8);

		if (o > l->fr_read)
			l->fr_read = o;
	}
	l->ob_type = t[w->ob_type];
	l->co_filename = t[w->co_filename];
	l->co_qualname = t[w->co_qualname];
	l->co_linetable = t[w->co_linetable];
	l->co_firstlineno = t[w->co_firstlineno];
	l->co_code = t[w->co_code_adaptive];
	l->str_length = t[w->str_length];
	l->str_hash = l->str_length + 8;
	l->str_state = t[w->str_state];
	l->str_ascii_data = ascii;
	l->str_utf8_length = ascii;
	l->str_utf8 = ascii + 8;
	l->str_compact_data = compact;
	l->bytes_size = t[w->bytes_ob_size];
	l->bytes_data = t[w->bytes_ob_sval];
	return 0;
}

int py_layout_find(struct py_layout *l, char *why, size_t n)
{
	const unsigned long *pv = dlsym(RTLD_DEFAULT, "Py_Version");
	const uint64_t *t;
	const struct dbg_words *w;
	unsigned long v;

	if (!pv)
		return 1;
	v = *pv;
	snprintf(why, n, "python %lu.%lu.%lu", v >> 24, (v >> 16) & 0xff,
		 (v >> 8) & 0xff);
	switch (MINOR(v)) {
	case 0x030b:
		*l = py311;
		l->version = v;
		return 0;
	case 0x030c:
		*l = py312;
		l->version = v;
		return 0;
	}
	w = dbg_table(v);
	if (!w || v < w->first) {
		snprintf(why + strlen(why), n - strlen(why),
			 ": no frame layout known for this version");
		return -1;
	}
	t = dlsym(RTLD_DEFAULT, "_PyRuntime");
	if (!t || memcmp(t, "xdebugpy", 8)) {
		snprintf(why + strlen(why), n - strlen(why),
			 ": no _Py_DebugOffsets in _PyRuntime");
		return -1;
	}
	if (t[1] != v) {
		snprintf(why + strlen(why), n - strlen(why),
			 ": _Py_DebugOffsets says version %#lx", (unsigned long)t[1]);
		return -1;
	}
	if (t[2]) {
		snprintf(why + strlen(why), n - strlen(why),
			 ": a free-threaded build (not supported)");
		return -1;
	}
	if (from_debug_offsets(l, v, t, w)) {
		snprintf(why + strlen(why), n - strlen(why),
			 ": its _Py_DebugOffsets do not check out");
		return -1;
	}
	return 0;
}
