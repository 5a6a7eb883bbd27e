/* SPDX-License-Identifier: GPL-2.0 */
/*
 * interp_pycache.h - what the CPython unwinder learnt of a code object,
 * kept across answers (interp_pycache.c).
 */
#ifndef SHIM_INTERP_PYCACHE_H
#define SHIM_INTERP_PYCACHE_H

#include <stdint.h>

#define PYCODE_NAME	160	/* bytes of a name kept, with its NUL */
#define PYCODE_FILE	288	/* of a file name */
#define PYCODE_PLACES	4	/* code units' lines kept */

/*
 * A code object's names and where they came from: the entry is good for
 * the object at @code only while the object still points to the same
 * string and bytes objects and those still hold what was read (the
 * unwinder checks, interp_python.c).
 */
struct pycode {
	uintptr_t code;
	uintptr_t qualname, filename, linetable;	/* the objects read */
	int64_t name_hash, file_hash;	/* their str hashes, -1: none yet */
	uint64_t name_len, file_len;	/* their lengths (code points) */
	uint64_t table_len;		/* the line table's bytes */
	int32_t firstlineno;
	uint32_t next_place;		/* the place replaced next */
	/* The lines of the code units placed last (a loop's few): -1 none */
	int64_t place_unit[PYCODE_PLACES];
	int32_t place_line[PYCODE_PLACES];
	char name[PYCODE_NAME];		/* UTF-8, NUL-terminated */
	char file[PYCODE_FILE];
};

/*
 * All async-signal-safe, lock-free, for any number of threads: a copy of
 * the entry of @code (0), or -1; an entry (a writer racing another for
 * the same slot leaves it).  pycache_init() maps the table, outside any
 * handler; without it nothing is kept.
 */
int pycache_init(void) __attribute__((visibility("hidden")));
int pycache_get(uintptr_t code, struct pycode *out)
	__attribute__((visibility("hidden")));
void pycache_put(const struct pycode *in)
	__attribute__((visibility("hidden")));

#endif
