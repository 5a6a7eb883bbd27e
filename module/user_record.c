// SPDX-License-Identifier: GPL-2.0
/*
 * The user records of /dev/ustack: a client of the deferred engine that
 * turns each walk it asked for into one "user" record in the ring,
 * naming each frame's mapped object and file offset, and into one trace
 * event ustack:user_stack.  Runs in task context (the walk's task_work),
 * so it may sleep.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dcache.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include "arch.h"
#include "deferred.h"
#include "path_cache.h"
#include "ustack_limits.h"
#include "render.h"
#include "ring.h"
#include "stage_times.h"
#include "user_record.h"
#include "ustack_trace.h"

/*
 * One delivery's record, in one allocation laid out as it goes into the
 * ring: the record, its frames, then its string table (strtab, up to
 * USTACK_STRTAB_MAX bytes).  A sample's record is made at every tick, so
 * it costs one allocation, not one per part.
 */
struct user_rec_buf {
	char *strtab;		/* after frames[nr] */
	u32 strtab_len;
	struct ustack_path_cache *names;	/* the task's, or NULL */
	struct ustack_rec_user rec;
	struct ustack_frame frames[];
};

/* The offset of @name in the string table, or -1. */
static int strtab_find(const struct user_rec_buf *b, const char *name)
{
	u32 off = 0;

	while (off < b->strtab_len) {
		if (!strcmp(b->strtab + off, name))
			return off;
		off += strlen(b->strtab + off) + 1;
	}
	return -1;
}

/* Add @name to the string table (once); returns its offset. */
static u32 strtab_add(struct user_rec_buf *b, const char *name)
{
	size_t n = strlen(name) + 1;
	int off = strtab_find(b, name);

	if (off >= 0)
		return off;
	if (b->strtab_len + n > USTACK_STRTAB_MAX)
		return 0;	/* full: the first name stands in */
	memmove(b->strtab + b->strtab_len, name, n);
	off = b->strtab_len;
	b->strtab_len += n;
	return off;
}

/*
 * The path of @file, into the string table.  d_path() writes at the end
 * of the buffer it is given: the table's free tail is that buffer, and a
 * new path is moved down into place, so no PATH_MAX buffer is needed.  A
 * path too long for the tail is made again in one (it may be in the
 * table already, or be the first name's stand-in).  A path made, not an
 * error's stand-in, is kept in @k's cache for the task's next records.
 *
 * Return: its offset, or -ENOMEM.
 */
static int path_make(struct user_rec_buf *b, struct file *file,
		     const struct ustack_path_key *k)
{
	u32 room = min_t(u32, USTACK_STRTAB_MAX - b->strtab_len, PATH_MAX);
	char *p = file_path(file, b->strtab + b->strtab_len, room);
	char *buf;
	u32 off;

	if (!IS_ERR(p)) {
		if (k)
			ustack_path_cache_put(b->names, k, p);
		return strtab_add(b, p);
	}
	if (PTR_ERR(p) != -ENAMETOOLONG || room >= PATH_MAX)
		return strtab_add(b, "[unknown]");
	buf = __getname();
	if (!buf)
		return -ENOMEM;
	p = file_path(file, buf, PATH_MAX);
	if (!IS_ERR(p) && k)
		ustack_path_cache_put(b->names, k, p);
	off = strtab_add(b, IS_ERR(p) ? "[unknown]" : p);
	__putname(buf);
	return off;
}

/*
 * The path of @file, into the string table: from the task's cache if an
 * earlier record made it (path_cache.c says when a name is the same),
 * else made now.  The table holds the same bytes either way.
 *
 * Return: its offset, or -ENOMEM.
 */
static int path_add(struct user_rec_buf *b, struct file *file)
{
	struct ustack_path_key k;
	const char *name;

	if (!b->names || !ustack_path_key_make(&k, file))
		return path_make(b, file, NULL);
	name = ustack_path_cache_get(b->names, &k);
	if (name)
		return strtab_add(b, name);
	return path_make(b, file, &k);
}

/* The file offset of @ip in its mapping (offset from the vDSO's start). */
static u64 offset_in(struct vm_area_struct *vma, u64 ip)
{
	if (!vma)
		return ip;
	if (vma->vm_file)
		return ip - vma->vm_start + ((u64)vma->vm_pgoff << PAGE_SHIFT);
	if (ustack_arch_is_vdso(vma))
		return ip - vma->vm_start;
	return ip;
}

/* Files this record has named already, and their names' offsets. */
#define NAMED_MAX	8

struct named {
	const struct file *file[NAMED_MAX];
	u32 off[NAMED_MAX];
	u32 nr;
};

/*
 * The offset of @vma's object name in the string table, or -ENOMEM.  A
 * stack goes back and forth between a few objects (the program, the C
 * library, the program's _start): each file's path is made once per
 * record, not at every change of mapping.  The mmap lock keeps each file
 * mapped.
 */
static int object_of(struct user_rec_buf *b, struct named *seen,
		     struct vm_area_struct *vma)
{
	struct file *f = vma ? vma->vm_file : NULL;
	int i, off;

	if (!f) {
		if (!vma)
			return strtab_add(b, "[unknown]");
		return strtab_add(b, ustack_arch_is_vdso(vma) ? "[vdso]" :
							       "[anon]");
	}
	for (i = 0; i < seen->nr; i++)
		if (seen->file[i] == f)
			return seen->off[i];
	off = path_add(b, f);
	if (off >= 0 && seen->nr < NAMED_MAX) {
		seen->file[seen->nr] = f;
		seen->off[seen->nr++] = off;
	}
	return off;
}

/*
 * Name each frame's object.  Neighbouring frames mostly share a mapping,
 * so the mapping is looked up again only when it changes.
 *
 * Return: 0, or -ENOMEM.
 */
static int name_frames(struct user_rec_buf *b, const struct ustack_task *st,
		       struct mm_struct *mm)
{
	struct vm_area_struct *vma, *last = NULL;
	struct named seen = { .nr = 0 };
	int obj = 0;
	u32 i;

	if (mm && st->nr)
		mmap_assert_locked(mm);

	for (i = 0; i < st->nr; i++) {
		u64 ip = st->ips[i];

		if (last && ip >= last->vm_start && ip < last->vm_end)
			vma = last;
		else
			vma = mm ? vma_lookup(mm, ip) : NULL;
		if (i == 0 || vma != last)
			obj = object_of(b, &seen, vma);
		if (obj < 0)
			return obj;
		last = vma;
		b->frames[i] = (struct ustack_frame) {
			.ip = ip,
			.offset = offset_in(vma, ip),
			.object = obj,
			.method = st->methods[i],
		};
	}
	return 0;
}

static void deliver(const struct ustack_task *st)
{
	struct user_rec_buf *b;
	struct mm_struct *mm = current->mm;
	u64 t0 = ustack_stage_begin();
	u32 alen;
	int err;

	trace_user_stack(st->cookie, ustack_render_end(st->end), st->nr,
			 st->ips, st->methods);
	if (!ustack_ring_active())
		return;
	b = kmalloc(size_add(struct_size(b, frames, st->nr),
			     USTACK_STRTAB_MAX), GFP_KERNEL);
	if (!b) {
		ustack_stat_inc(nomem);
		return;
	}
	b->strtab = (char *)&b->frames[st->nr];
	b->strtab_len = 0;
	b->names = st->nr ? ustack_path_cache_of(st) : NULL;
	if (mm && st->nr) {
		mmap_read_lock(mm);
		err = name_frames(b, st, mm);
		mmap_read_unlock(mm);
	} else {
		err = name_frames(b, st, NULL);
	}
	if (err) {
		ustack_stat_inc(nomem);
		goto out;
	}

	alen = sizeof(b->rec) + st->nr * sizeof(b->frames[0]);
	BUILD_BUG_ON(offsetof(struct user_rec_buf, frames) !=
		     offsetof(struct user_rec_buf, rec) + sizeof(b->rec));
	b->rec = (struct ustack_rec_user) {
		.hdr = {
			.type = USTACK_REC_USER,
			.size = ALIGN(alen + b->strtab_len, 8),
		},
		.cookie = st->cookie,
		.pid = task_tgid_nr(current),
		.tid = task_pid_nr(current),
		.nr_frames = st->nr,
		.end_reason = st->end,
		.strtab_len = b->strtab_len,
	};
	ustack_stage_end(USTACK_STAGE_RECORD, t0);
	/* The string table follows the frames: the record is one piece. */
	ustack_ring_write(&b->rec, alen + b->strtab_len, NULL, 0);
out:
	kfree(b);
}

static const struct ustack_client user_record_client = {
	.deliver = deliver,
};

void ustack_user_record_init(void)
{
	/* Without its caches, records name their files afresh. */
	if (ustack_path_cache_init())
		pr_warn("no memory for the path caches\n");
	ustack_deferred_client_register(USTACK_CLIENT_STREAM,
					&user_record_client);
}

void ustack_user_record_exit(void)
{
	ustack_deferred_client_unregister(USTACK_CLIENT_STREAM);
	ustack_path_cache_exit();
}
