// SPDX-License-Identifier: GPL-2.0
/*
 * interp_python.c - the CPython unwinder of libsframe-register.so.
 *
 * At load, in a process that is a CPython this library knows the frame
 * layout of (interp_pylayout.c: 3.11, 3.12, and 3.13 on by the offsets the
 * interpreter publishes), it registers an unwinder, lang "python3.X",
 * that walks the signalled thread's own frame chain:
 * PyGILState_GetThisThreadState() (a thread-specific read, no lock) ->
 * its innermost frame -> previous ..., naming each frame by its code
 * object's qualified name, file name and the line of its instruction.
 * Any other Python is left alone, with one line on standard error
 * saying so; no Python at all, silently.
 *
 * Every read of interpreter memory goes through ustack_read_mem()
 * (interp_mem.c: plain loads made fault-safe, or system calls), so a torn
 * or freed pointer gives a short stack, never a fault; a frame whose
 * code object is not one (its type is not PyCode_Type) ends the walk;
 * the chain is cut at USTACK_COOP_MAX_FRAMES frames.
 *
 * Code objects already named are kept across answers (interp_pycache.c)
 * and only checked: the code object at that address must still point to
 * the same qualname, file name and line table objects, and those strings
 * must still hold what was read (their length and hash, or their text
 * while their hash is not computed yet).  A freed code object whose
 * memory now holds another, or whose strings were freed and reused, so
 * fails the check and is read again.
 * No lock, no allocation: this runs in a signal handler.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "uapi/ustack.h"
#include "interp_int.h"
#include "interp_pycache.h"
#include "interp_pylayout.h"
#include "interp_times.h"
#include "py_linetable.h"

#define FRAME_READ_MAX	128	/* bytes of a frame read, at most */
#define CODE_READ_MAX	512	/* of a code object (its type, a span) */
#define NAME_MAX_	256
#define FILE_MAX_	1024
#define SEEN		32	/* code objects named in one answer */

static struct py_layout L;
static void *(*get_tstate)(void);
static uintptr_t code_type;	/* &PyCode_Type */

static int rd(void *dst, uintptr_t addr, size_t len)
{
	return ustack_read_mem(dst, (const void *)addr, len);
}

static uint64_t u64_at(const unsigned char *b, int off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

static uint32_t u32_at(const unsigned char *b, int off)
{
	uint32_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* ---- str objects -------------------------------------------------------- */

#define ST_KIND(s)	(((s) >> 2) & 7)
#define ST_COMPACT(s)	(((s) >> 5) & 1)
#define ST_ASCII(s)	(((s) >> 6) & 1)

struct strhead {
	uint64_t len;
	int64_t hash;
	uint32_t state;
};

static void head_of(const unsigned char *h, struct strhead *s)
{
	s->len = u64_at(h, L.str_length);
	s->hash = (int64_t)u64_at(h, L.str_hash);
	s->state = u32_at(h, L.str_state);
}

/* Code point @c as UTF-8 at @o of @buf (room for 4 more); new @o. */
static size_t put_utf8(char *buf, size_t o, uint32_t c)
{
	if (c < 0x80) {
		buf[o++] = c;
	} else if (c < 0x800) {
		buf[o++] = 0xc0 | c >> 6;
		buf[o++] = 0x80 | (c & 0x3f);
	} else if (c < 0x10000) {
		buf[o++] = 0xe0 | c >> 12;
		buf[o++] = 0x80 | ((c >> 6) & 0x3f);
		buf[o++] = 0x80 | (c & 0x3f);
	} else if (c < 0x110000) {
		buf[o++] = 0xf0 | c >> 18;
		buf[o++] = 0x80 | ((c >> 12) & 0x3f);
		buf[o++] = 0x80 | ((c >> 6) & 0x3f);
		buf[o++] = 0x80 | (c & 0x3f);
	} else {
		buf[o++] = '?';
	}
	return o;
}

/* A compact str of 1-, 2- or 4-byte code points, to UTF-8 (truncated). */
static int read_wide(uintptr_t data, unsigned int kind, uint64_t len,
		     char *buf, size_t cap)
{
	unsigned char c[512];
	size_t i, n, o = 0;

	n = len * kind < sizeof(c) ? len * kind : sizeof(c) / kind * kind;
	if (rd(c, data, n))
		return -1;
	for (i = 0; i + kind <= n && o + 5 < cap; i += kind) {
		uint32_t cp = kind == 1 ? c[i] : kind == 2 ?
			      (uint32_t)(c[i] | c[i + 1] << 8) : u32_at(c, i);

		o = put_utf8(buf, o, cp);
	}
	buf[o] = '\0';
	return 0;
}

/*
 * A str object as UTF-8 into @buf (truncated to @cap), with its header:
 * 0, or -1 (and "?") when unreadable or not a compact str.
 */
static int read_str(uintptr_t obj, char *buf, size_t cap, struct strhead *s)
{
	unsigned char h[FRAME_READ_MAX + 96];
	size_t head = L.str_compact_data, spec = L.str_ascii_data + 80;

	strcpy(buf, "?");
	if (!obj)
		return -1;
	/* Most names are short ASCII: header and text in one read. */
	if (!rd(h, obj, spec)) {
		head_of(h, s);
		if (ST_COMPACT(s->state) && ST_ASCII(s->state) &&
		    s->len <= spec - L.str_ascii_data && s->len < cap) {
			memcpy(buf, h + L.str_ascii_data, s->len);
			buf[s->len] = '\0';
			return 0;
		}
	} else if (rd(h, obj, head)) {
		return -1;
	}
	head_of(h, s);
	if (!ST_COMPACT(s->state) || s->len > (1u << 30))
		return -1;
	if (ST_ASCII(s->state)) {
		size_t n = s->len < cap ? s->len : cap - 1;

		if (rd(buf, obj + L.str_ascii_data, n)) {
			strcpy(buf, "?");
			return -1;
		}
		buf[n] = '\0';
		return 0;
	}
	/* The UTF-8 form, when the interpreter made one already. */
	if (u64_at(h, L.str_utf8) && u64_at(h, L.str_utf8_length) < cap) {
		size_t n = u64_at(h, L.str_utf8_length);

		if (!rd(buf, u64_at(h, L.str_utf8), n)) {
			buf[n] = '\0';
			return 0;
		}
	}
	if (ST_KIND(s->state) != 1 && ST_KIND(s->state) != 2 &&
	    ST_KIND(s->state) != 4)
		return -1;
	if (read_wide(obj + head, ST_KIND(s->state), s->len, buf, cap)) {
		strcpy(buf, "?");
		return -1;
	}
	return 0;
}

/*
 * Does the str at @obj still hold what was read into @text (its @len and
 * @hash then)?  By the hash when it was known; else, for ASCII, by the
 * text itself.
 */
static int str_same(uintptr_t obj, uint64_t len, int64_t hash, const char *text)
{
	unsigned char h[FRAME_READ_MAX + PYCODE_FILE];
	struct strhead s;
	size_t n = L.str_ascii_data;

	if (hash == -1 && len < PYCODE_FILE)
		n += len;	/* the text too, in the same read */
	if (hash != -1) {	/* length, hash, state: a few words */
		size_t lo = L.str_length, hi = L.str_state + 4;

		if (rd(h + lo, obj + lo, hi - lo))
			return 0;
	} else if (rd(h, obj, n)) {
		return 0;
	}
	head_of(h, &s);
	if (s.len != len)
		return 0;
	if (hash != -1)
		return s.hash == hash;
	return ST_COMPACT(s.state) && ST_ASCII(s.state) && n > (size_t)L.str_ascii_data &&
	       strlen(text) == len && !memcmp(h + L.str_ascii_data, text, len);
}

/* ---- line numbers ------------------------------------------------------- */

/* The location table's bytes, for ustack_py_addr2line(). */
static int lt_read(void *data, void *dst, uint64_t off, uint32_t len)
{
	return rd(dst, *(uintptr_t *)data + off, len);
}

/* The line of code unit @unit from the bytes object @table of @n bytes. */
static int addr2line(uintptr_t table, uint64_t n, int first, long unit)
{
	uintptr_t data = table + L.bytes_data;

	return ustack_py_addr2line(lt_read, &data, n, first, unit);
}

/* ---- code objects ------------------------------------------------------- */

/*
 * Read the code object at @code into @e (names, line table): 0, or -1
 * when it is none (not readable, not of PyCode_Type).
 */
static int code_read(uintptr_t code, const unsigned char *co, struct pycode *e,
		     char *name, char *file)
{
	struct strhead s;
	int32_t first;

	memset(e, 0, sizeof(*e));
	e->code = code;
	e->qualname = u64_at(co, L.co_qualname);
	e->filename = u64_at(co, L.co_filename);
	e->linetable = u64_at(co, L.co_linetable);
	memcpy(&first, co + L.co_firstlineno, sizeof(first));
	e->firstlineno = first;
	for (int i = 0; i < PYCODE_PLACES; i++)
		e->place_unit[i] = -1;
	memset(&s, 0, sizeof(s));
	s.hash = -1;
	read_str(e->qualname, name, NAME_MAX_, &s);
	e->name_len = s.len;
	e->name_hash = s.hash;
	memset(&s, 0, sizeof(s));
	s.hash = -1;
	read_str(e->filename, file, FILE_MAX_, &s);
	e->file_len = s.len;
	e->file_hash = s.hash;
	if (rd(&e->table_len, e->linetable + L.bytes_size, sizeof(e->table_len)))
		e->table_len = 0;
	return 0;
}

/*
 * The words of the code object at @code that are used, at their offsets
 * in @co: its type, and the span from its first line to its line table;
 * 0, or -1 when unreadable or not a code object.
 */
static int co_lo, co_hi;	/* that span */

static int read_code(uintptr_t code, unsigned char *co)
{
	if (rd(co + L.ob_type, code + L.ob_type, 8) ||
	    u64_at(co, L.ob_type) != code_type)
		return -1;
	return rd(co + co_lo, code + co_lo, co_hi - co_lo);
}

/* Is the cached @e still the code object at its address? */
static int code_same(const unsigned char *co, const struct pycode *e)
{
	int32_t first;

	memcpy(&first, co + L.co_firstlineno, sizeof(first));
	return u64_at(co, L.co_qualname) == e->qualname &&
	       u64_at(co, L.co_filename) == e->filename &&
	       u64_at(co, L.co_linetable) == e->linetable &&
	       first == e->firstlineno &&
	       str_same(e->qualname, e->name_len, e->name_hash, e->name) &&
	       str_same(e->filename, e->file_len, e->file_hash, e->file);
}

/* ---- the walk ----------------------------------------------------------- */

struct seen {
	uintptr_t code, linetable;
	uint64_t table_len;
	int first;
	int frame;		/* the answer's frame that named it */
	long unit;		/* the code unit placed last, at line */
	int line;
};

/*
 * The interpreter's own shim frames (3.13's __init__ cleanup, which runs
 * no source): no first line, no line table.  Left out of the answer.
 */
static int is_shim(const struct pycode *e)
{
	return !e->firstlineno && !e->table_len;
}

/*
 * A frame of a code object seen earlier in this answer: recursion, most
 * often through the same call site again, whose line is known already.
 */
static int add_seen(struct ustack_interp *a, struct seen *s, long unit,
		    unsigned int flags)
{
	uint64_t t0;
	int ret;

	coop_times_count(COOP_C_SAME, 1);
	if (s->unit != unit) {
		t0 = coop_stamp();
		s->line = addr2line(s->linetable, s->table_len, s->first, unit);
		s->unit = unit;
		coop_times_add(COOP_T_LINES, t0);
	}
	t0 = coop_stamp();
	ret = ustack_interp_same(a, s->frame, s->line, flags);
	coop_times_add(COOP_T_ADD, t0);
	return ret;
}

/*
 * The line of @unit in @e: one of those kept (@hit), or decoded and kept
 * in place of the oldest.
 */
static int line_of(struct pycode *e, int cached, long unit, int *hit)
{
	uint64_t t0 = coop_stamp();
	int i, line;

	for (i = 0; cached && i < PYCODE_PLACES; i++) {
		if (e->place_unit[i] == unit) {
			coop_times_count(COOP_C_LINE_HIT, 1);
			*hit = 1;
			return e->place_line[i];
		}
	}
	*hit = 0;
	line = addr2line(e->linetable, e->table_len, e->firstlineno, unit);
	i = e->next_place++ % PYCODE_PLACES;
	e->place_unit[i] = unit;
	e->place_line[i] = line;
	coop_times_add(COOP_T_LINES, t0);
	return line;
}

/* Add the frame running @code at @instr; 0, or -1 to end the walk. */
static int add_frame(struct ustack_interp *a, uintptr_t code, uintptr_t instr,
		     unsigned int flags, struct seen *seen, int *nseen)
{
	unsigned char co[CODE_READ_MAX];
	char name[NAME_MAX_], file[FILE_MAX_];
	const char *fn = name, *ff = file;
	struct pycode e;
	long unit;
	int i, line, ok, cached, hit;
	uint64_t t0;

	unit = ((long)instr - (long)(code + L.co_code)) / 2;
	for (i = 0; i < *nseen && seen[i].code != code; i++)
		;
	if (i < *nseen)
		return add_seen(a, &seen[i], unit, flags);
	t0 = coop_stamp();
	ok = !read_code(code, co);
	cached = ok && !pycache_get(code, &e) && code_same(co, &e);
	coop_times_add(COOP_T_CACHE, t0);
	if (!ok)
		return -1;
	if (cached) {
		coop_times_count(COOP_C_HIT, 1);
		fn = e.name;
		ff = e.file;
	} else {
		coop_times_count(COOP_C_MISS, 1);
		t0 = coop_stamp();
		code_read(code, co, &e, name, file);
		coop_times_add(COOP_T_NAMES, t0);
	}
	if (is_shim(&e))
		return 0;
	line = line_of(&e, cached, unit, &hit);
	t0 = coop_stamp();
	i = ustack_interp_add(a, fn, ff, line, flags);
	coop_times_add(COOP_T_ADD, t0);
	if (i)
		return -1;
	if (*nseen < SEEN)
		seen[(*nseen)++] = (struct seen) {
			code, e.linetable, e.table_len, e.firstlineno,
			ustack_interp_count(a) - 1, unit, line };
	if (hit)
		return 0;
	/* Names that fit (most) are kept; longer ones are read each time. */
	if (!cached) {
		if (strlen(name) >= PYCODE_NAME || strlen(file) >= PYCODE_FILE)
			return 0;
		strcpy(e.name, name);
		strcpy(e.file, file);
	}
	pycache_put(&e);
	return 0;
}

/* The thread's innermost frame, or 0. */
static uintptr_t first_frame(void)
{
	uintptr_t ts = (uintptr_t)get_tstate(), p = ts, frame;

	if (!ts)
		return 0;
	if (L.ts_cframe >= 0 && rd(&p, ts + L.ts_cframe, sizeof(p)))
		return 0;
	if (rd(&frame, p + L.current_frame, sizeof(frame)))
		return 0;
	return frame;
}

static int unwind(void *ctx, struct ustack_interp *a)
{
	unsigned char fr[FRAME_READ_MAX];
	struct seen seen[SEEN];
	uintptr_t frame, code;
	int steps, nseen = 0, added = 0;
	unsigned int flags;

	(void)ctx;
	frame = first_frame();
	for (steps = 0; frame && steps < 2 * USTACK_COOP_MAX_FRAMES; steps++) {
		if (rd(fr, frame, L.fr_read))
			break;
		frame = u64_at(fr, L.fr_previous);
		/*
		 * 3.12 on: an entry (or shim) frame of the C stack; the frame
		 * above it began that evaluation.
		 */
		if (L.fr_owner >= 0 &&
		    (signed char)fr[L.fr_owner] >= L.owner_not_code) {
			if (added)
				ustack_interp_mark_entry(a);
			added = 0;
			continue;
		}
		code = u64_at(fr, L.fr_code) & ~L.code_tag;
		if (!code || (code & 7))
			break;
		flags = L.fr_is_entry >= 0 && fr[L.fr_is_entry] ?
			USTACK_INTERP_FLAG_ENTRY : 0;
		if (add_frame(a, code, u64_at(fr, L.fr_instr), flags, seen,
			      &nseen))
			break;
		added = 1;
	}
	coop_times_count(COOP_C_FRAMES, ustack_interp_count(a));
	return ustack_interp_count(a);
}

__attribute__((constructor)) static void coop_python_init(void)
{
	char why[160];
	int r = py_layout_find(&L, why, sizeof(why));

	if (r < 0)
		coop_log(why, "its frames are not unwound");
	if (r)
		return;
	co_lo = L.co_firstlineno;
	co_hi = L.co_firstlineno + 4;
	for (int i = 0; i < 3; i++) {
		int o = (int[]){ L.co_filename, L.co_qualname, L.co_linetable }[i];

		co_lo = o < co_lo ? o : co_lo;
		co_hi = o + 8 > co_hi ? o + 8 : co_hi;
	}
	/* What is read of a frame, a code object, a str fits the buffers. */
	if (L.fr_read > FRAME_READ_MAX || co_hi > CODE_READ_MAX ||
	    L.ob_type + 8 > CODE_READ_MAX ||
	    L.str_compact_data > FRAME_READ_MAX) {
		coop_log(why, "its frames or code objects are larger than known");
		return;
	}
	get_tstate = (void *(*)(void))dlsym(RTLD_DEFAULT,
					    "PyGILState_GetThisThreadState");
	code_type = (uintptr_t)dlsym(RTLD_DEFAULT, "PyCode_Type");
	if (!get_tstate || !code_type) {
		coop_log(why, "no PyGILState_GetThisThreadState or PyCode_Type");
		return;
	}
	pycache_init();
	coop_register(L.lang, unwind, NULL, 1);
}
