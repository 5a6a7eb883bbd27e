// SPDX-License-Identifier: GPL-2.0
/*
 * interp_pylayout.c - the frame layouts of the Pythons people run, for the
 * CPython unwinder (interp_python.c).
 *
 * 3.11, and 3.13 on by _Py_DebugOffsets, from the tables ustackd uses
 * too (tools/lib/py_offsets.c); 3.12 by its known layout, written from
 * the 3.12 headers (no Debian suite has a 3.12 to run; the kernel does
 * not read it).  So a 3.13, 3.14 or 3.15 built otherwise, or a later
 * bug-fix release whose structures moved, still unwinds.  Any other
 * version, a free-threaded build, or a table that does not check out is
 * left alone (py_layout_find() says why).
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
#include "py_offsets.h"

#define MINOR(v)	((v) >> 16)

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

/* The unwinder's layout from the table's (py_offsets.c): -1 for none. */
static void from_offsets(struct py_layout *l, const struct ustack_python *p)
{
#define O(f)	(p->f == USTACK_PY_NONE ? -1 : (int)p->f)
	*l = (struct py_layout) {
		.version = p->version,
		.ts_cframe = O(ts_cframe), .current_frame = O(current_frame),
		.fr_code = O(fr_code), .fr_previous = O(fr_previous),
		.fr_instr = O(fr_instr),
		.instr_is_prev = !!(p->flags & USTACK_PY_INSTR_IS_PREV),
		.fr_is_entry = O(fr_is_entry), .fr_owner = O(fr_owner),
		.owner_not_code = p->owner_not_code, .code_tag = p->code_tag,
		.fr_read = p->fr_read, .ob_type = O(ob_type),
		.co_filename = O(co_filename), .co_qualname = O(co_qualname),
		.co_linetable = O(co_linetable),
		.co_firstlineno = O(co_firstlineno), .co_code = O(co_code),
		.str_length = O(str_length), .str_hash = O(str_hash),
		.str_state = O(str_state), .str_ascii_data = O(str_ascii_data),
		.str_utf8_length = O(str_utf8_length), .str_utf8 = O(str_utf8),
		.str_compact_data = O(str_compact_data),
		.bytes_size = O(bytes_size), .bytes_data = O(bytes_data),
	};
#undef O
	snprintf(l->lang, sizeof(l->lang), "python%u.%u",
		 (unsigned int)(p->version >> 24) & 0xff,
		 (unsigned int)(p->version >> 16) & 0xff);
}

int py_layout_find(struct py_layout *l, char *why, size_t n)
{
	const unsigned long *pv = dlsym(RTLD_DEFAULT, "Py_Version");
	struct ustack_python p;
	const uint64_t *t;
	unsigned long v;

	if (!pv)
		return 1;
	v = *pv;
	snprintf(why, n, "python %lu.%lu.%lu", v >> 24, (v >> 16) & 0xff,
		 (v >> 8) & 0xff);
	switch (MINOR(v)) {
	case 0x030b:
		p = py_offsets_311;
		p.version = v;
		from_offsets(l, &p);
		return 0;
	case 0x030c:
		*l = py312;
		l->version = v;
		return 0;
	}
	if (!py_offsets_debug_words(v)) {
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
	if (py_offsets_from_debug(&p, v, t)) {
		snprintf(why + strlen(why), n - strlen(why),
			 ": its _Py_DebugOffsets do not check out");
		return -1;
	}
	from_offsets(l, &p);
	return 0;
}
