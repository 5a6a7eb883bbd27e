// SPDX-License-Identifier: GPL-2.0
/*
 * coop_python.c - the CPython 3.11 unwinder of libsframe-register.so.
 *
 * At load, in a process whose Py_Version says 3.11 (Debian 12's
 * python3.11 is 3.11.2), it registers an unwinder that walks the
 * signalled thread's own frame chain: PyGILState_GetThisThreadState()
 * (a thread-specific read, no lock) -> cframe -> current_frame ->
 * previous ..., naming each frame by its code object's qualified name,
 * file name and the line of its last instruction.  Any other version,
 * or no Python at all, is left alone: the layout below is 3.11's only.
 *
 * Every read of interpreter memory goes through ustack_read_mem()
 * (process_vm_readv() on ourselves, else /proc/self/mem), so a torn or
 * freed pointer gives a short stack, never a fault; the chain is cut at
 * USTACK_COOP_MAX_FRAMES.
 * No lock, no allocation: this runs in a signal handler.
 *
 * The offsets, from python3.11-dev's internal headers (Py_BUILD_CORE:
 * pycore_frame.h, cpython/code.h, cpython/pystate.h, cpython/unicodeobject.h),
 * checked with offsetof() against Debian 12's 3.11.2.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "../../include/uapi/ustack.h"
#include "coop_int.h"

#define TS_CFRAME		56	/* PyThreadState.cframe */
#define CF_CURRENT_FRAME	8	/* _PyCFrame.current_frame */
#define FR_CODE			32	/* _PyInterpreterFrame.f_code */
#define FR_PREVIOUS		48	/* .previous */
#define FR_PREV_INSTR		56	/* .prev_instr */
#define FR_IS_ENTRY		68	/* .is_entry */
#define FR_SIZE			72
#define CO_FIRSTLINENO		72	/* PyCodeObject.co_firstlineno */
#define CO_FILENAME		112
#define CO_QUALNAME		128
#define CO_LINETABLE		136
#define CO_CODE_ADAPTIVE	184	/* the code units */
#define CO_SIZE			192
#define STR_LENGTH		16	/* PyASCIIObject.length */
#define STR_STATE		32	/* .state */
#define STR_ASCII_DATA		48	/* sizeof(PyASCIIObject) */
#define STR_UTF8_LENGTH		48	/* PyCompactUnicodeObject.utf8_length */
#define STR_UTF8		56	/* .utf8 */
#define STR_COMPACT_DATA	72	/* sizeof(PyCompactUnicodeObject) */
#define BYTES_SIZE		16	/* PyBytesObject.ob_size */
#define BYTES_DATA		32	/* .ob_sval */

#define LINETABLE_MAX		4096	/* lines beyond read as unknown */
#define NAME_MAX_		256

static void *(*get_tstate)(void);

static int rd(void *dst, uintptr_t addr, size_t len)
{
	return ustack_read_mem(dst, (const void *)addr, len);
}

static uint64_t u64_at(const unsigned char *b, size_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* A str object as UTF-8 into @buf (truncated), "?" if unreadable. */
static void read_str(uintptr_t obj, char *buf, size_t cap)
{
	unsigned char h[STR_COMPACT_DATA], spec[STR_ASCII_DATA + 80];
	uint32_t state;
	uint64_t len;
	size_t i, o = 0;

	strcpy(buf, "?");
	/* Most names are short ASCII: header and text in one read. */
	if (!rd(spec, obj, sizeof(spec))) {
		len = u64_at(spec, STR_LENGTH);
		memcpy(&state, spec + STR_STATE, sizeof(state));
		if (((state >> 5) & 1) && ((state >> 6) & 1) &&
		    len < sizeof(spec) - STR_ASCII_DATA && len < cap) {
			memcpy(buf, spec + STR_ASCII_DATA, len);
			buf[len] = '\0';
			return;
		}
	}
	if (rd(h, obj, STR_ASCII_DATA))
		return;
	len = u64_at(h, STR_LENGTH);
	memcpy(&state, h + STR_STATE, sizeof(state));
	if (((state >> 5) & 1) && ((state >> 6) & 1)) {	/* compact ASCII */
		if (len > cap - 1)
			len = cap - 1;
		if (!rd(buf, obj + STR_ASCII_DATA, len))
			buf[len] = '\0';
		else
			strcpy(buf, "?");
		return;
	}
	if (rd(h, obj, sizeof(h)))
		return;
	if (u64_at(h, STR_UTF8) && u64_at(h, STR_UTF8_LENGTH) < cap) {
		len = u64_at(h, STR_UTF8_LENGTH);
		if (!rd(buf, u64_at(h, STR_UTF8), len))
			buf[len] = '\0';
		else
			strcpy(buf, "?");
		return;
	}
	if (((state >> 5) & 1) && ((state >> 2) & 7) == 1) {	/* Latin-1 */
		unsigned char c[NAME_MAX_];

		if (len > sizeof(c))
			len = sizeof(c);
		if (rd(c, obj + STR_COMPACT_DATA, len))
			return;
		for (i = 0; i < len && o + 3 < cap; i++) {
			if (c[i] < 0x80) {
				buf[o++] = c[i];
			} else {
				buf[o++] = 0xc0 | c[i] >> 6;
				buf[o++] = 0x80 | (c[i] & 0x3f);
			}
		}
		buf[o] = '\0';
	}
}

static unsigned int varint(const unsigned char *p, size_t n, size_t *i)
{
	unsigned int v, shift = 0, b;

	if (*i >= n)
		return 0;
	b = p[(*i)++];
	v = b & 63;
	while ((b & 64) && *i < n && shift < 24) {
		b = p[(*i)++];
		shift += 6;
		v |= (b & 63) << shift;
	}
	return v;
}

/*
 * The line of code unit @unit: 3.11's location table (PEP 657), as
 * PyCode_Addr2Line() reads it.
 */
static int addr2line(uintptr_t linetable, int first, long unit)
{
	unsigned char hdr[BYTES_DATA], t[LINETABLE_MAX];
	uint64_t n;
	size_t i = 0, j;
	long end = 0;
	int line = first;

	if (unit < 0)
		return first;
	/* Most tables are short: header and table in one read. */
	if (!rd(t, linetable, 512)) {
		memcpy(hdr, t, sizeof(hdr));
		n = u64_at(hdr, BYTES_SIZE);
		if (n <= 512 - BYTES_DATA) {
			memmove(t, t + BYTES_DATA, n);
			goto parse;
		}
	} else if (rd(hdr, linetable, sizeof(hdr))) {
		return 0;
	}
	n = u64_at(hdr, BYTES_SIZE);
	if (n > sizeof(t))
		n = sizeof(t);
	if (rd(t, linetable + BYTES_DATA, n))
		return 0;
parse:
	while (i < n) {
		unsigned int b = t[i], code = (b >> 3) & 15;
		size_t k;

		end += (b & 7) + 1;
		k = i + 1;
		if (code == 13 || code == 14) {
			unsigned int v = varint(t, n, &k);

			line += (v & 1) ? -(int)(v >> 1) : (int)(v >> 1);
		} else if (code >= 10 && code <= 12) {
			line += code - 10;
		}
		if (unit < end)
			return code == 15 ? 0 : line;
		for (j = i + 1; j < n && !(t[j] & 128); j++)
			;
		i = j;
	}
	return 0;
}

/*
 * Code objects already named in this answer (recursion repeats them): a
 * live frame holds its code object, so within one answer a pointer names
 * one object.  Saves the reads and the string bytes.
 */
#define CODE_CACHE 32

struct code_seen {
	uintptr_t code, linetable;
	int first;
	int frame;		/* the frame of the answer that named it */
};

static int unwind(void *ctx, struct ustack_interp *a)
{
	unsigned char fr[FR_SIZE], co[CO_SIZE];
	char name[NAME_MAX_], file[1024];
	struct code_seen seen[CODE_CACHE];
	uintptr_t ts, p, frame, code, linetable;
	int n, first, i, nseen = 0, flags;
	long unit;

	(void)ctx;
	ts = (uintptr_t)get_tstate();
	if (!ts || rd(&p, ts + TS_CFRAME, sizeof(p)) ||
	    rd(&frame, p + CF_CURRENT_FRAME, sizeof(frame)))
		return 0;
	for (n = 0; frame && n < USTACK_COOP_MAX_FRAMES; n++) {
		if (rd(fr, frame, sizeof(fr)))
			break;
		code = u64_at(fr, FR_CODE);
		unit = ((long)u64_at(fr, FR_PREV_INSTR) -
			(long)(code + CO_CODE_ADAPTIVE)) / 2;
		flags = fr[FR_IS_ENTRY] ? USTACK_INTERP_FLAG_ENTRY : 0;
		for (i = 0; i < nseen && seen[i].code != code; i++)
			;
		if (i < nseen) {
			if (ustack_interp_same(a, seen[i].frame,
					       addr2line(seen[i].linetable,
							 seen[i].first, unit),
					       flags))
				break;
		} else {
			if (rd(co, code, sizeof(co)))
				break;
			memcpy(&first, co + CO_FIRSTLINENO, sizeof(first));
			linetable = u64_at(co, CO_LINETABLE);
			read_str(u64_at(co, CO_QUALNAME), name, sizeof(name));
			read_str(u64_at(co, CO_FILENAME), file, sizeof(file));
			if (ustack_interp_add(a, name, file,
					      addr2line(linetable, first, unit),
					      flags))
				break;
			if (nseen < CODE_CACHE)
				seen[nseen++] = (struct code_seen) {
					code, linetable, first, n };
		}
		frame = u64_at(fr, FR_PREVIOUS);
	}
	return n;
}

__attribute__((constructor)) static void coop_python_init(void)
{
	const unsigned long *version = dlsym(RTLD_DEFAULT, "Py_Version");

	/* 3.11.x: the only layout this file knows. */
	if (!version || (*version >> 16) != 0x030b)
		return;
	get_tstate = (void *(*)(void))dlsym(RTLD_DEFAULT,
					    "PyGILState_GetThisThreadState");
	if (get_tstate)
		coop_register("python3.11", unwind, NULL, 1);
}
