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
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "arch.h"
#include "deferred.h"
#include "ustack_limits.h"
#include "render.h"
#include "ring.h"
#include "stage_times.h"
#include "user_record.h"
#include "ustack_trace.h"

/* One delivery's record, sized for its frames (slab, not vmalloc). */
struct user_rec_buf {
	char *strtab;		/* USTACK_STRTAB_MAX */
	char *path;		/* PATH_MAX, from names_cache */
	struct ustack_rec_user rec;
	struct ustack_frame frames[];
};

/* Add @name to the string table (once); returns its offset. */
static u32 strtab_add(struct user_rec_buf *b, u32 *len, const char *name)
{
	size_t n = strlen(name) + 1;
	u32 off = 0;

	while (off < *len) {
		if (!strcmp(b->strtab + off, name))
			return off;
		off += strlen(b->strtab + off) + 1;
	}
	if (*len + n > USTACK_STRTAB_MAX)
		return 0;	/* full: the first name stands in */
	memcpy(b->strtab + *len, name, n);
	*len += n;
	return off;
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

static const char *name_of(struct user_rec_buf *b, struct vm_area_struct *vma)
{
	char *p;

	if (!vma)
		return "[unknown]";
	if (vma->vm_file) {
		p = file_path(vma->vm_file, b->path, PATH_MAX);
		return IS_ERR(p) ? "[unknown]" : p;
	}
	if (ustack_arch_is_vdso(vma))
		return "[vdso]";
	return "[anon]";
}

/* Files this record has named already, and their names' offsets. */
#define NAMED_MAX	8

struct named {
	const struct file *file[NAMED_MAX];
	u32 off[NAMED_MAX];
	u32 nr;
};

/*
 * The offset of @vma's object name in the string table.  A stack goes
 * back and forth between a few objects (the program, the C library, the
 * program's _start): each file's path is made once per record, not at
 * every change of mapping.  The mmap lock keeps each file mapped.
 */
static u32 object_of(struct user_rec_buf *b, u32 *len, struct named *seen,
		     struct vm_area_struct *vma)
{
	const struct file *f = vma ? vma->vm_file : NULL;
	u32 i, off;

	for (i = 0; f && i < seen->nr; i++)
		if (seen->file[i] == f)
			return seen->off[i];
	off = strtab_add(b, len, name_of(b, vma));
	if (f && seen->nr < NAMED_MAX) {
		seen->file[seen->nr] = f;
		seen->off[seen->nr++] = off;
	}
	return off;
}

/*
 * Name each frame's object.  Neighbouring frames mostly share a mapping,
 * so the mapping is looked up again only when it changes.
 */
static u32 name_frames(struct user_rec_buf *b, const struct ustack_task *st,
		       struct mm_struct *mm)
{
	struct vm_area_struct *vma, *last = NULL;
	u32 i, strtab_len = 0, last_obj = 0;
	struct named seen = { .nr = 0 };

	if (mm && st->nr)
		mmap_assert_locked(mm);

	for (i = 0; i < st->nr; i++) {
		u64 ip = st->ips[i];

		if (last && ip >= last->vm_start && ip < last->vm_end)
			vma = last;
		else
			vma = mm ? vma_lookup(mm, ip) : NULL;
		if (i == 0 || vma != last)
			last_obj = object_of(b, &strtab_len, &seen, vma);
		last = vma;
		b->frames[i].ip = ip;
		b->frames[i].offset = offset_in(vma, ip);
		b->frames[i].method = st->methods[i];
		memset(b->frames[i].reserved, 0, sizeof(b->frames[i].reserved));
		b->frames[i].object = last_obj;
	}
	return strtab_len;
}

static void deliver(const struct ustack_task *st)
{
	struct user_rec_buf *b;
	struct mm_struct *mm = current->mm;
	u64 t0 = ustack_stage_begin();
	u32 strtab_len, alen;

	trace_user_stack(st->cookie, ustack_render_end(st->end), st->nr,
			 st->ips, st->methods);
	if (!ustack_ring_active())
		return;
	b = kmalloc(struct_size(b, frames, st->nr), GFP_KERNEL);
	if (b) {
		b->strtab = kmalloc(USTACK_STRTAB_MAX, GFP_KERNEL);
		b->path = __getname();
	}
	if (!b || !b->strtab || !b->path) {
		atomic_long_inc(&ustack_stats.nomem);
		goto out;
	}
	if (mm && st->nr) {
		mmap_read_lock(mm);
		strtab_len = name_frames(b, st, mm);
		mmap_read_unlock(mm);
	} else {
		strtab_len = name_frames(b, st, NULL);
	}

	alen = sizeof(b->rec) + st->nr * sizeof(b->frames[0]);
	BUILD_BUG_ON(offsetof(struct user_rec_buf, frames) !=
		     offsetof(struct user_rec_buf, rec) + sizeof(b->rec));
	b->rec = (struct ustack_rec_user) {
		.hdr = {
			.type = USTACK_REC_USER,
			.size = ALIGN(alen + strtab_len, 8),
		},
		.cookie = st->cookie,
		.pid = task_tgid_nr(current),
		.tid = task_pid_nr(current),
		.nr_frames = st->nr,
		.end_reason = st->end,
		.strtab_len = strtab_len,
	};
	ustack_stage_end(USTACK_STAGE_RECORD, t0);
	ustack_ring_write(&b->rec, alen, b->strtab, strtab_len);
out:
	if (b) {
		kfree(b->strtab);
		if (b->path)
			__putname(b->path);
	}
	kfree(b);
}

static const struct ustack_client user_record_client = {
	.deliver = deliver,
};

void ustack_user_record_init(void)
{
	ustack_deferred_client_register(USTACK_CLIENT_STREAM,
					&user_record_client);
}

void ustack_user_record_exit(void)
{
	ustack_deferred_client_unregister(USTACK_CLIENT_STREAM);
}
