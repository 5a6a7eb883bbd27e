// SPDX-License-Identifier: GPL-2.0
/*
 * py_frames.c - CPython's frames of current, read by the kernel after its
 * native walk, with no help from the process: an `interp` record of the
 * walk's cookie, as a cooperative answer gives (coop.c), so that every
 * Python process is named, opted in or not.
 *
 * ustackd registers, with the store entry of an object holding a CPython
 * (its executable or libpython), where its runtime state is and the
 * layout of what is read there (struct ustack_python).  After a walk, the
 * first object among the outermost PCs of the walk with such an entry
 * gives the layout and the object's bias in current.  Then: the runtime's
 * interpreters, each one's threads, until the thread whose native thread
 * id is current's; its innermost frame; each frame's code object (its
 * type must be PyCode_Type), its qualified name and file name, the line
 * of its instruction from the location table; previous frame.
 *
 * Everything read is current's own memory, in task context with faults
 * allowed, through copy_from_user() (a kernel address is refused), and
 * every chain is bounded: PY_INTERPS interpreters, PY_THREADS threads,
 * USTACK_COOP_MAX_FRAMES frames (twice as many steps, for entry frames),
 * names of PY_NAME_MAX bytes, PY_LINETABLE_MAX bytes of a location table.
 * A torn or forged chain gives a short record, never more work.
 *
 * What every walk pays: nothing while no store entry has a CPython, else
 * one mapping lookup for each mapping among its PY_PCS outermost PCs
 * (two or three: the executable, libc) before the answer is known.
 */
#include <linux/cleanup.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <uapi/ustack.h>
#include "py_frames.h"
#include "py_linetable.h"
#include "ring.h"
#include "store.h"

#define PY_PCS		8	/* outermost PCs of the walk looked at */
#define PY_INTERPS	8
#define PY_THREADS	1024
#define PY_NAME_MAX	255
#define PY_FILE_MAX	1023
#define PY_STRTAB	2560	/* the record's strings: a walk's state fits 8 KiB */
#define PY_STRS		16	/* str objects remembered: a file named once */
#define PY_PEEK		64	/* a str's first bytes, read with its header */
#define CODE_READ_MAX	512

/* Module parameter python: read CPython's frames in the walk. */
static bool python = true;
module_param(python, bool, 0644);
MODULE_PARM_DESC(python, "Read the frames of CPython processes in the walk (default 1)");

static atomic_long_t py_lookups, py_found, py_no_thread, py_records, py_frames;
static atomic_long_t py_idle, py_torn;

#define ST_KIND(s)	(((s) >> 2) & 7)
#define ST_COMPACT(s)	(((s) >> 5) & 1)
#define ST_ASCII(s)	(((s) >> 6) & 1)

struct py_walk {
	struct ustack_python l;
	u64 bias;
	struct ustack_rec_interp rec;
	struct ustack_coop_frame f[USTACK_COOP_MAX_FRAMES];
	char strtab[PY_STRTAB];
	u32 strtab_len, nstrs;
	struct {
		u64 obj;
		u32 off;
	} strs[PY_STRS];			/* strs copied, by address */
	u64 seen[2 * USTACK_COOP_MAX_FRAMES];	/* frames walked: a cycle ends */
};

static int rd(void *dst, u64 addr, size_t len)
{
	return copy_from_user(dst, u64_to_user_ptr(addr), len) ? -EFAULT : 0;
}

static int rd64(u64 addr, u64 *v)
{
	return rd(v, addr, sizeof(*v));
}

static u64 u64_at(const u8 *b, unsigned int off)
{
	u64 v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* Current's thread state, matched by native thread id, or 0. */
static u64 py_tstate(const struct py_walk *w)
{
	const struct ustack_python *l = &w->l;
	u64 rt = l->runtime + w->bias, interp, ts, tid;
	unsigned int i, n = 0;
	u64 hdr[2];

	if (l->flags & USTACK_PY_DEBUG_OFFSETS) {
		if (rd(hdr, rt, sizeof(hdr)) || memcmp(hdr, "xdebugpy", 8) ||
		    hdr[1] != l->version)
			return 0;
	}
	if (rd64(rt + l->rt_interp_head, &interp))
		return 0;
	for (i = 0; interp && i < PY_INTERPS; i++) {
		if (rd64(interp + l->is_threads_head, &ts))
			return 0;
		for (; ts && n < PY_THREADS; n++) {
			if (rd64(ts + l->ts_native_tid, &tid))
				return 0;
			if (tid == task_pid_vnr(current))
				return ts;
			if (rd64(ts + l->ts_next, &ts))
				return 0;
		}
		if (l->is_next == USTACK_PY_NONE || rd64(interp + l->is_next, &interp))
			return 0;
	}
	return 0;
}

/*
 * The str @obj as UTF-8 (ASCII, or its cached UTF-8 form), at most @max
 * bytes, "?" if unreadable, into the record's string table: its offset,
 * or -1 when the table is full.  One read takes the header and the first
 * PY_PEEK bytes; a str copied before (a file's name, frame after frame)
 * is that copy.
 */
static s64 py_str(struct py_walk *w, u64 obj, size_t max)
{
	const struct ustack_python *l = &w->l;
	u8 h[USTACK_PY_FRAME_MAX + PY_PEEK];
	size_t got = l->str_ascii_data + PY_PEEK, n = 0;
	u32 off = w->strtab_len, state, i;
	char *dst = w->strtab + off;
	bool ok = false;
	u64 len, utf8;

	for (i = 0; i < w->nstrs; i++)
		if (w->strs[i].obj == obj)
			return w->strs[i].off;
	if (PY_STRTAB - off < 2)
		return -1;
	max = min_t(size_t, max, PY_STRTAB - off - 1);
	/* a short str may end before the peek, or its compact header */
	if (obj && rd(h, obj, got)) {
		got = l->str_ascii_data;
		if (rd(h, obj, got))
			obj = 0;
	}
	if (!obj)
		goto out;
	len = u64_at(h, l->str_length);
	memcpy(&state, h + l->str_state, sizeof(state));
	if (!ST_COMPACT(state))
		goto out;
	if (ST_ASCII(state)) {
		n = min_t(u64, len, max);
		if (l->str_ascii_data + n <= got)
			memcpy(dst, h + l->str_ascii_data, n);
		ok = l->str_ascii_data + n <= got ||
		     !rd(dst, obj + l->str_ascii_data, n);
	} else if (l->str_compact_data <= got || !rd(h, obj, l->str_compact_data)) {
		n = u64_at(h, l->str_utf8_length);
		utf8 = u64_at(h, l->str_utf8);
		ok = utf8 && n <= max && !rd(dst, utf8, n);
	}
out:
	if (!ok) {
		n = 1;
		dst[0] = '?';
	}
	dst[n] = '\0';
	w->strtab_len += n + 1;
	if (obj)
		w->strs[w->nstrs < PY_STRS ? w->nstrs++ : off % PY_STRS] =
			(typeof(w->strs[0])){ .obj = obj, .off = off };
	return off;
}

/* The location table's bytes, for ustack_py_addr2line(). */
static int lt_read(void *table, void *dst, u64 off, u32 len)
{
	return rd(dst, *(u64 *)table + off, len);
}

/* The line of code unit @unit from the location table in bytes @table. */
static int py_line(const struct py_walk *w, u64 table, int first, long unit)
{
	u64 n, data = table + w->l.bytes_data;

	if (unit >= 0 && rd64(table + w->l.bytes_size, &n))
		return 0;
	return ustack_py_addr2line(lt_read, &data, unit >= 0 ? n : 0, first,
				   unit);
}

/* The frame running @code at @instr; 0, or -1 to end the walk. */
static int py_add(struct py_walk *w, u64 code, u64 instr, u16 flags)
{
	const struct ustack_python *l = &w->l;
	struct ustack_coop_frame *f;
	unsigned int hi = max3(l->co_qualname, l->co_filename, l->co_linetable) + 8;
	u8 co[CODE_READ_MAX];
	s64 fn, ff;
	int first;

	hi = max3(hi, l->co_firstlineno + 4U, l->ob_type + 8U);
	if (w->rec.nr_frames >= USTACK_COOP_MAX_FRAMES || hi > CODE_READ_MAX)
		return -1;
	if (rd(co, code, hi) ||
	    u64_at(co, l->ob_type) != l->code_type + w->bias)
		return -1;
	fn = py_str(w, u64_at(co, l->co_qualname), PY_NAME_MAX);
	ff = fn < 0 ? -1 : py_str(w, u64_at(co, l->co_filename), PY_FILE_MAX);
	if (ff < 0)
		return -1;
	memcpy(&first, co + l->co_firstlineno, sizeof(first));
	f = &w->f[w->rec.nr_frames++];
	*f = (struct ustack_coop_frame) {
		.function = fn, .file = ff, .flags = flags,
		.native = USTACK_INTERP_NATIVE_NONE,
		.line = py_line(w, u64_at(co, l->co_linetable), first,
				((long)instr - (long)(code + l->co_code)) / 2),
	};
	return 0;
}

/* Current's frames, innermost first, into @w's record. */
static void py_unwind(struct py_walk *w, u64 ts)
{
	const struct ustack_python *l = &w->l;
	u8 fr[USTACK_PY_FRAME_MAX];
	u64 frame, code;
	unsigned int steps;
	bool added = false;

	if (l->ts_cframe != USTACK_PY_NONE && rd64(ts + l->ts_cframe, &ts))
		return;
	if (rd64(ts + l->current_frame, &frame))
		return;
	if (!frame)
		atomic_long_inc(&py_idle);	/* a thread outside Python code */
	for (steps = 0; frame && steps < ARRAY_SIZE(w->seen); steps++) {
		unsigned int i;

		/* a chain that comes back to a frame is forged, or torn */
		for (i = 0; i < steps; i++)
			if (w->seen[i] == frame)
				return;
		w->seen[steps] = frame;
		if (rd(fr, frame, l->fr_read))
			return;
		frame = u64_at(fr, l->fr_previous);
		/* 3.12 on: a frame the C stack owns; the one above began it */
		if (l->fr_owner != USTACK_PY_NONE &&
		    (s8)fr[l->fr_owner] >= l->owner_not_code) {
			if (added)
				w->f[w->rec.nr_frames - 1].flags |= USTACK_INTERP_ENTRY;
			added = false;
			continue;
		}
		code = u64_at(fr, l->fr_code) & ~(u64)l->code_tag;
		if (!code || (code & 7))
			return;
		if (py_add(w, code, u64_at(fr, l->fr_instr),
			   l->fr_is_entry != USTACK_PY_NONE && fr[l->fr_is_entry] ?
			   USTACK_INTERP_ENTRY : 0))
			return;
		added = true;
	}
}

/**
 * ustack_py_frames() - CPython's frames of current, as an interp record
 * @cookie: the walk's cookie
 * @ips: the walk's PCs, innermost first
 * @nr: how many
 *
 * In task context, after the walk (faults allowed).
 *
 * Return: true when a record was written: the process's interpreter
 * answered, and needs no cooperative request.
 */
bool ustack_py_frames(u64 cookie, const u64 *ips, u32 nr)
{
	struct py_walk *w __free(kfree) = NULL;
	struct ustack_python l;
	u64 bias, ts, lo = 0, hi = 0;
	bool found = false;
	u32 i;

	BUILD_BUG_ON(offsetof(struct py_walk, f) !=
		     offsetof(struct py_walk, rec) + sizeof(w->rec));
	/* a slab's object, not pages, every walk */
	BUILD_BUG_ON(sizeof(struct py_walk) > 8192);
	might_fault();
	if (!READ_ONCE(python) || !ustack_store_has_python() ||
	    !ustack_ring_active())
		return false;
	/* the interpreter's main(), or a thread's start, is near the end */
	for (i = 0; i < min_t(u32, nr, PY_PCS) && !found; i++) {
		u64 pc = ips[nr - 1 - i];

		if (pc >= lo && pc < hi)
			continue;	/* a mapping already looked up */
		atomic_long_inc(&py_lookups);
		found = ustack_store_python(pc, &l, &bias, &lo, &hi);
	}
	if (!found)
		return false;
	atomic_long_inc(&py_found);
	w = kmalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return false;
	w->l = l;
	w->bias = bias;
	ts = py_tstate(w);
	if (!ts) {
		atomic_long_inc(&py_no_thread);
		return false;
	}
	memset(&w->rec, 0, sizeof(w->rec));
	w->strtab_len = 0;
	w->nstrs = 0;
	py_unwind(w, ts);
	if (!w->rec.nr_frames) {
		atomic_long_inc(&py_torn);
		return false;
	}
	atomic_long_inc(&py_records);
	atomic_long_add(w->rec.nr_frames, &py_frames);
	w->rec.hdr.type = USTACK_REC_INTERP;
	w->rec.hdr.size = ALIGN(sizeof(w->rec) + w->rec.nr_frames * sizeof(w->f[0]) +
				w->strtab_len, 8);
	w->rec.cookie = cookie;
	w->rec.pid = task_tgid_nr(current);
	w->rec.tid = task_pid_nr(current);
	w->rec.strtab_len = w->strtab_len;
	snprintf(w->rec.lang, sizeof(w->rec.lang), "python%u.%u",
		 (unsigned int)(w->l.version >> 24) & 0xff,
		 (unsigned int)(w->l.version >> 16) & 0xff);
	/* the header and frames are contiguous in @w, then the strings */
	return ustack_ring_write(&w->rec, sizeof(w->rec) +
				 w->rec.nr_frames * sizeof(w->f[0]),
				 w->strtab, w->strtab_len);
}

/**
 * ustack_py_show() - the CPython reader's lines of the stats file
 * @m: the stats file
 */
void ustack_py_show(struct seq_file *m)
{
	seq_printf(m, "py_lookups %ld\n", atomic_long_read(&py_lookups));
	seq_printf(m, "py_found %ld\n", atomic_long_read(&py_found));
	seq_printf(m, "py_no_thread %ld\n", atomic_long_read(&py_no_thread));
	seq_printf(m, "py_records %ld\n", atomic_long_read(&py_records));
	seq_printf(m, "py_frames %ld\n", atomic_long_read(&py_frames));
	seq_printf(m, "py_idle %ld\n", atomic_long_read(&py_idle));
	seq_printf(m, "py_torn %ld\n", atomic_long_read(&py_torn));
}
