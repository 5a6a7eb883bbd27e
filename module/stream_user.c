// SPDX-License-Identifier: GPL-2.0
/*
 * The stream's client of the deferred engine: turns one walk into one
 * "user" record, naming each frame's mapped object and file offset.
 * Runs in task context (the walk's task_work), so it may sleep.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dcache.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "internal.h"
#include "deferred.h"

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

static const char *object_of(struct user_rec_buf *b, struct vm_area_struct *vma,
			     u64 ip, u64 *offset)
{
	char *p;

	*offset = ip;
	if (!vma)
		return "[unknown]";
	if (vma->vm_file) {
		*offset = ip - vma->vm_start + ((u64)vma->vm_pgoff << PAGE_SHIFT);
		p = file_path(vma->vm_file, b->path, PATH_MAX);
		return IS_ERR(p) ? "[unknown]" : p;
	}
	if (vma->vm_mm && vma->vm_start == (unsigned long)vma->vm_mm->context.vdso) {
		*offset = ip - vma->vm_start;
		return "[vdso]";
	}
	return "[anon]";
}

static void deliver(const struct ustack_task *st)
{
	struct user_rec_buf *b;
	struct mm_struct *mm = current->mm;
	u32 i, strtab_len = 0, alen;

	if (!ustack_stream_active())
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
	if (mm && st->nr)
		mmap_read_lock(mm);
	for (i = 0; i < st->nr; i++) {
		struct vm_area_struct *vma = mm ? vma_lookup(mm, st->ips[i]) : NULL;
		const char *obj = object_of(b, vma, st->ips[i], &b->frames[i].offset);

		b->frames[i].ip = st->ips[i];
		b->frames[i].method = st->methods[i];
		memset(b->frames[i].reserved, 0, sizeof(b->frames[i].reserved));
		b->frames[i].object = strtab_add(b, &strtab_len, obj);
	}
	if (mm && st->nr)
		mmap_read_unlock(mm);

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
	ustack_stream_write(&b->rec, alen, b->strtab, strtab_len);
out:
	if (b) {
		kfree(b->strtab);
		if (b->path)
			__putname(b->path);
	}
	kfree(b);
}

static const struct ustack_client stream_client = {
	.deliver = deliver,
};

void ustack_stream_user_init(void)
{
	ustack_client_register(USTACK_CLIENT_STREAM, &stream_client);
}

void ustack_stream_user_exit(void)
{
	ustack_client_unregister(USTACK_CLIENT_STREAM);
}
