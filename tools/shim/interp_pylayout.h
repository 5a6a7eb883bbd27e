/* SPDX-License-Identifier: GPL-2.0 */
/*
 * interp_pylayout.h - where CPython keeps what the unwinder reads, per
 * version (interp_pylayout.c): offsets in bytes, -1 for none.
 */
#ifndef SHIM_INTERP_PYLAYOUT_H
#define SHIM_INTERP_PYLAYOUT_H

#include <stddef.h>
#include <stdint.h>

struct py_layout {
	char lang[16];		/* "python3.11", the answers' lang */
	unsigned long version;	/* PY_VERSION_HEX */

	/* thread state -> innermost frame */
	int ts_cframe;		/* 3.11, 3.12: PyThreadState.cframe; else -1 */
	int current_frame;	/* in _PyCFrame, or (3.13+) PyThreadState */

	/* _PyInterpreterFrame */
	int fr_code;		/* f_code, f_executable */
	int fr_previous;
	int fr_instr;		/* prev_instr (3.11, 3.12), instr_ptr */
	int instr_is_prev;	/* the last instruction, not the current one */
	int fr_is_entry;	/* 3.11: .is_entry (a char); else -1 */
	int fr_owner;		/* 3.12+: .owner (a char); else -1 */
	int owner_not_code;	/* owner >= this: an entry or shim frame */
	uintptr_t code_tag;	/* 3.14+: f_executable's tag bits */
	int fr_read;		/* bytes of a frame to read */

	/* PyObject, PyCodeObject */
	int ob_type;
	int co_filename, co_qualname, co_linetable, co_firstlineno;
	int co_code;		/* co_code_adaptive: the code units */

	/* str (PyASCIIObject, PyCompactUnicodeObject) and bytes */
	int str_length, str_hash, str_state;
	int str_ascii_data;	/* sizeof(PyASCIIObject) */
	int str_utf8_length, str_utf8;
	int str_compact_data;	/* sizeof(PyCompactUnicodeObject) */
	int bytes_size, bytes_data;
};

/*
 * The layout of the Python this process runs, if any: 0 and *l filled; 1
 * when this is no Python; -1 when it is one this file knows no layout
 * of, @why saying which and why (one line, no newline).
 */
int py_layout_find(struct py_layout *l, char *why, size_t whylen)
	__attribute__((visibility("hidden")));

#endif
