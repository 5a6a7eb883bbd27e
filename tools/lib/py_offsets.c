// SPDX-License-Identifier: GPL-2.0
/*
 * py_offsets.c - the frame layouts of the Pythons people run.
 *
 * 3.11 by its known layout: the offsets of the structures of its internal
 * headers (Py_BUILD_CORE: pycore_frame.h, cpython/code.h,
 * cpython/pystate.h, cpython/unicodeobject.h), checked with offsetof()
 * against Debian 12's 3.11.2 (python3.11-dev), the thread lists too.
 *
 * 3.13 on by what the interpreter publishes for out-of-process tools:
 * _Py_DebugOffsets at the start of _PyRuntime, the offsets of its thread
 * state, frame, code object, str and bytes as this build has them.  Only
 * where each offset sits in that table is known here, per minor version
 * (the table grows between them): 3.13 from 3.13.0rc2, 3.14 from
 * 3.14.0rc1, 3.15 from 3.15.0b4 (the table's last changes within a
 * series).  The thread lists' words were checked against Debian's 3.13.5
 * and 3.14.10 binaries (the initial bytes of their _PyRuntime); 3.15's
 * thread state gained a field after current_frame, its native thread id
 * unchecked: 3.15 gets no thread lists (the shim needs none).
 *
 * Entry frames: 3.11 marks the first frame of each C-level evaluation
 * (is_entry); 3.12 on links a frame owned by the C stack (3.14 on: by
 * the interpreter, or the C stack) below it instead.  3.14 on, the
 * frame's code is a tagged reference: bit 0 says how it is counted.
 */
#include <string.h>
#include "py_offsets.h"

#define NONE	USTACK_PY_NONE
#define V(maj, min, mic, lvl, ser) \
	(((uint64_t)(maj) << 24) | ((min) << 16) | ((mic) << 8) | \
	 ((lvl) << 4) | (ser))

const struct ustack_python py_offsets_311 = {
	.size = sizeof(struct ustack_python),
	.flags = USTACK_PY_INSTR_IS_PREV,
	.rt_interp_head = 40, .is_next = 0, .is_threads_head = 16,
	.ts_next = 8, .ts_native_tid = 160,
	.ts_cframe = 56, .current_frame = 8,
	.fr_code = 32, .fr_previous = 48, .fr_instr = 56, .fr_is_entry = 68,
	.fr_owner = NONE, .fr_read = 72,
	.ob_type = 8, .co_filename = 112, .co_qualname = 128,
	.co_linetable = 136, .co_firstlineno = 72, .co_code = 184,
	.str_length = 16, .str_hash = 24, .str_state = 32,
	.str_ascii_data = 48, .str_utf8_length = 48, .str_utf8 = 56,
	.str_compact_data = 72, .bytes_size = 16, .bytes_data = 32,
};

/*
 * Where each field sits in a version's _Py_DebugOffsets, in 64-bit words
 * from its start (word 0 is the cookie "xdebugpy", 1 the version, 2
 * whether the build is free-threaded); -1: not there, or not checked
 * (str_compact: then sizeof(PyASCIIObject) + utf8_length + utf8).
 */
struct dbg_words {
	uint64_t first;		/* the first version with this table */
	unsigned int words;	/* the table's size */
	int rt_interp_head, is_next, is_threads_head, ts_next, ts_native_tid;
	int ts_size, ts_current_frame;
	int fr_size, fr_previous, fr_executable, fr_instr_ptr, fr_owner;
	int co_size, co_filename, co_qualname, co_linetable, co_firstlineno;
	int co_code_adaptive, ob_type;
	int bytes_size, bytes_ob_size, bytes_ob_sval;
	int str_size, str_state, str_length, str_ascii_size, str_compact;
	unsigned int owner_not_code;	/* FRAME_OWNED_BY_CSTACK, _INTERPRETER */
	unsigned int code_tag;		/* Py_TAG_REFCNT */
};

static const struct dbg_words dbg313 = {
	V(3, 13, 0, 0xc, 2), 73, 5, 8, 9, 21, 25, 19, 23,
	28, 29, 30, 31, 33, 34, 35, 37, 38, 39, 43, 45,
	64, 65, 66, 67, 68, 69, 70, -1, 3, 0,
};
static const struct dbg_words dbg314 = {
	V(3, 14, 0, 0xc, 1), 95, 5, 8, 9, 24, 28, 22, 26,
	31, 32, 33, 34, 36, 39, 40, 42, 43, 44, 48, 51,
	74, 75, 76, 77, 78, 79, 80, -1, 3, 1,
};
static const struct dbg_words dbg315 = {
	V(3, 15, 0, 0xb, 4), 111, -1, -1, -1, -1, -1, 22, 26,
	39, 40, 41, 42, 44, 47, 48, 50, 51, 52, 56, 59,
	86, 87, 88, 89, 90, 91, 92, 93, 3, 1,
};

static const struct dbg_words *dbg_table(uint64_t version)
{
	const struct dbg_words *w;

	switch (PY_MINOR(version)) {
	case 0x030d:
		w = &dbg313;
		break;
	case 0x030e:
		w = &dbg314;
		break;
	case 0x030f:
		w = &dbg315;
		break;
	default:
		return NULL;
	}
	return version >= w->first ? w : NULL;
}

unsigned int py_offsets_debug_words(uint64_t version)
{
	const struct dbg_words *w = dbg_table(version);

	return w ? w->words : 0;
}

/* An offset inside a structure of @size, with room for @len bytes. */
static int fits(uint64_t off, uint64_t size, uint64_t len)
{
	return size && size <= USTACK_PY_STRUCT_MAX && off <= size &&
	       len <= size - off;
}

/* The thread lists, where checked: offsets into the process only. */
static int thread_lists(struct ustack_python *py, const uint64_t *t,
			const struct dbg_words *w)
{
	uint64_t ts = t[w->ts_size];

	py->rt_interp_head = py->is_next = py->is_threads_head = NONE;
	py->ts_next = py->ts_native_tid = NONE;
	if (w->ts_native_tid < 0)
		return 0;
	if (!fits(t[w->ts_next], ts, 8) || !fits(t[w->ts_native_tid], ts, 8) ||
	    t[w->rt_interp_head] >= USTACK_PY_STRUCT_MAX ||
	    t[w->is_next] >= NONE || t[w->is_threads_head] >= NONE)
		return -1;
	py->rt_interp_head = t[w->rt_interp_head];
	py->is_next = t[w->is_next];
	py->is_threads_head = t[w->is_threads_head];
	py->ts_next = t[w->ts_next];
	py->ts_native_tid = t[w->ts_native_tid];
	return 0;
}

/* The bytes of a frame read: up to the end of the last field used. */
static unsigned int frame_read(const struct ustack_python *py)
{
	unsigned int e[] = { py->fr_code + 8U, py->fr_previous + 8U,
			     py->fr_instr + 8U, py->fr_owner + 1U };
	unsigned int n = 0;

	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++)
		if (e[i] > n)
			n = e[i];
	return n;
}

int py_offsets_from_debug(struct ustack_python *py, uint64_t version,
			  const uint64_t *t)
{
	const struct dbg_words *w = dbg_table(version);
	uint64_t fr, co, st, by, ascii, compact;

	if (!w)
		return -1;
	fr = t[w->fr_size];
	co = t[w->co_size];
	st = t[w->str_size];
	by = t[w->bytes_size];
	ascii = t[w->str_ascii_size];
	compact = w->str_compact >= 0 ? t[w->str_compact] : ascii + 16;
	if (!fits(t[w->ts_current_frame], t[w->ts_size], 8) ||
	    !fits(t[w->fr_previous], fr, 8) || !fits(t[w->fr_executable], fr, 8) ||
	    !fits(t[w->fr_instr_ptr], fr, 8) || !fits(t[w->fr_owner], fr, 1) ||
	    !fits(t[w->co_filename], co, 8) || !fits(t[w->co_qualname], co, 8) ||
	    !fits(t[w->co_linetable], co, 8) || !fits(t[w->co_firstlineno], co, 4) ||
	    !fits(t[w->co_code_adaptive], co, 0) || !fits(t[w->ob_type], 64, 8) ||
	    !fits(t[w->bytes_ob_size], by, 8) || !fits(t[w->bytes_ob_sval], by, 0) ||
	    !fits(t[w->str_state], st, 4) || !fits(t[w->str_length], st, 16) ||
	    ascii < 32 || compact < ascii + 16 || compact > USTACK_PY_FRAME_MAX)
		return -1;
	memset(py, 0, sizeof(*py));
	if (thread_lists(py, t, w))
		return -1;
	py->size = sizeof(*py);
	py->flags = USTACK_PY_DEBUG_OFFSETS;
	py->version = version;
	py->ts_cframe = NONE;
	py->current_frame = t[w->ts_current_frame];
	py->fr_code = t[w->fr_executable];
	py->fr_previous = t[w->fr_previous];
	py->fr_instr = t[w->fr_instr_ptr];
	py->fr_is_entry = NONE;
	py->fr_owner = t[w->fr_owner];
	py->fr_read = frame_read(py);
	py->ob_type = t[w->ob_type];
	py->co_filename = t[w->co_filename];
	py->co_qualname = t[w->co_qualname];
	py->co_linetable = t[w->co_linetable];
	py->co_firstlineno = t[w->co_firstlineno];
	py->co_code = t[w->co_code_adaptive];
	py->str_length = t[w->str_length];
	py->str_hash = py->str_length + 8;
	py->str_state = t[w->str_state];
	py->str_ascii_data = ascii;
	py->str_utf8_length = ascii;
	py->str_utf8 = ascii + 8;
	py->str_compact_data = compact;
	py->bytes_size = t[w->bytes_ob_size];
	py->bytes_data = t[w->bytes_ob_sval];
	py->owner_not_code = w->owner_not_code;
	py->code_tag = w->code_tag;
	return 0;
}
