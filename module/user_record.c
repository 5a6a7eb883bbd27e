// SPDX-License-Identifier: GPL-2.0
/*
 * The user records of /dev/ustack: a client of the deferred engine that
 * turns each walk it asked for into one "user" record in the ring,
 * naming each frame's mapped object and file offset, and into one trace
 * event ustack:user_stack.  Runs in task context (the walk's task_work),
 * so it may sleep.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include "arch.h"
#include "deferred.h"
#include "path_cache.h"
#include "record_build.h"
#include "ustack_limits.h"
#include "render.h"
#include "ring.h"
#include "stage_times.h"
#include "task_pool.h"
#include "user_record.h"
#include "ustack_trace.h"

/*
 * What a pool entry keeps from one of its task's records to the next:
 * the names of its files (path_cache.c) and the record's buffer.  A task
 * sampled at 999 Hz makes a record a thousand times a second, and an
 * allocation is not cheap where every one is zeroed (Debian's kernels
 * set init_on_alloc): a small buffer is kept and used again, a larger
 * one freed.  Made at the entry's first record and kept with the entry,
 * their memory is bounded by the pool's size (max_tasks); each user's
 * share of the pool bounds the share a user can hold.  Only the task that
 * holds the entry uses them, in its task_work, so they take no lock.
 */
struct rec_keep {
	struct ustack_path_cache names;
	struct ustack_rec_user_packed *buf;	/* NULL, or REC_KEEP_MAX at most */
	u32 size;
};

#define REC_KEEP_MAX	2048		/* a buffer kept: some 65 frames */
#define REC_STRTAB_FIRST	256	/* a new buffer's room for names */

static struct rec_keep **keeps;
static u32 nr_keeps;

/*
 * What @vma's frames less their file offsets give (offsets in the vDSO
 * are from its start): 0 where the offset is the ip itself.
 */
static u64 bias_of(struct vm_area_struct *vma)
{
	if (!vma)
		return 0;
	if (vma->vm_file)
		return vma->vm_start - ((u64)vma->vm_pgoff << PAGE_SHIFT);
	if (ustack_arch_is_vdso(vma))
		return vma->vm_start;
	return 0;
}

/*
 * The index of @vma's object in the record's objects, added if it is not
 * among the last NAMED_MAX: a stack meets its few objects again and
 * again, and an object twice in the table costs bytes, not correctness.
 *
 * Return: the index, or -ENOMEM.
 */
static int object_of(struct rec_build *b, struct rec_named *seen,
		     struct vm_area_struct *vma)
{
	struct ustack_object o = { .bias = bias_of(vma) };
	struct ustack_object *objs;
	int name = ustack_record_name(b, seen, vma);	/* may move the buffer */
	u32 i;

	if (name < 0)
		return name;
	o.name = name;
	objs = objects_of(b);
	for (i = b->nr_objects; i > 0 && b->nr_objects - i < NAMED_MAX; i--)
		if (objs[i - 1].name == o.name && objs[i - 1].bias == o.bias)
			return i - 1;
	objs[b->nr_objects] = o;
	return b->nr_objects++;
}

/*
 * The mappings this record has met, and their objects: a stack goes back
 * and forth between a few (the program's main and _start around the C
 * library's __libc_start_main), and a mapping met again needs neither a
 * lookup in the mm nor its object found again.
 */
#define MET_MAX	4

struct met {
	struct vm_area_struct *vma[MET_MAX];
	int obj[MET_MAX];
	u32 nr;		/* entries used, the newest at (nr - 1) % MET_MAX */
	int unmapped;	/* the object of ips in no mapping, or -1 */
};

/* The object of @ip's mapping if met, else -1. */
static int met_find(const struct met *m, u64 ip)
{
	u32 i;

	for (i = 0; i < min_t(u32, m->nr, MET_MAX); i++) {
		const struct vm_area_struct *v = m->vma[(m->nr - 1 - i) % MET_MAX];

		if (ip >= v->vm_start && ip < v->vm_end)
			return m->obj[(m->nr - 1 - i) % MET_MAX];
	}
	return -1;
}

/*
 * The object of @ip's mapping, looked up in @mm (or "[unknown]") if not
 * met yet.  Return: its index, or -ENOMEM.
 */
static int frame_object(struct rec_build *b, struct rec_named *seen,
			struct met *m, struct mm_struct *mm, u64 ip)
{
	struct vm_area_struct *vma;
	int obj = met_find(m, ip);

	if (obj >= 0)
		return obj;
	vma = mm ? vma_lookup(mm, ip) : NULL;
	if (!vma && m->unmapped >= 0)
		return m->unmapped;
	obj = object_of(b, seen, vma);
	if (obj < 0)
		return obj;
	if (!vma) {
		m->unmapped = obj;
	} else {
		m->vma[m->nr % MET_MAX] = vma;
		m->obj[m->nr++ % MET_MAX] = obj;
	}
	return obj;
}

/*
 * Name each frame's object.  The mmap lock keeps the mappings met.
 *
 * Return: 0, or -ENOMEM.
 */
static int name_frames(struct rec_build *b, const struct ustack_task *st,
		       struct mm_struct *mm)
{
	struct rec_named seen = { .nr = 0 };
	struct met met = { .nr = 0, .unmapped = -1 };
	int obj;
	u32 i;

	if (mm && st->nr)
		mmap_assert_locked(mm);

	for (i = 0; i < st->nr; i++) {
		obj = frame_object(b, &seen, &met, mm, st->ips[i]);
		if (obj < 0)
			return obj;
		index_of(b)[i] = obj;	/* after object_of(): it may grow b */
	}
	memcpy(ips_of(b), st->ips, st->nr * sizeof(u64));
	memcpy(methods_of(b), st->methods, st->nr);
	return 0;
}

/*
 * Close the room of the objects not made: move the frames' indexes,
 * methods and string table down behind the last object.
 *
 * Return: the record's bytes.
 */
static size_t pack(struct rec_build *b)
{
	char *from = (char *)index_of(b);
	char *to = (char *)(objects_of(b) + b->nr_objects);

	memmove(to, from, b->nr * (sizeof(u16) + sizeof(u8)) + b->strtab_len);
	return rec_size(b->nr, b->nr_objects, b->strtab_len);
}

/* The keep of pool entry @st, made at its first record; NULL without memory. */
static struct rec_keep *keep_of(const struct ustack_task *st)
{
	u32 i = ustack_task_index(st);

	might_sleep();
	if (i >= nr_keeps)
		return NULL;
	if (!keeps[i])
		keeps[i] = kzalloc(sizeof(*keeps[i]), GFP_KERNEL);
	return keeps[i];
}

/*
 * A buffer for a record of @nr frames: @k's, grown if too small.
 *
 * Return: 0, or -ENOMEM.
 */
static int rec_start(struct rec_build *b, struct rec_keep *k, u32 nr)
{
	size_t need = build_size(nr, REC_STRTAB_FIRST);
	void *p;

	*b = (struct rec_build) { .nr = nr, .names = k ? &k->names : NULL };
	if (k) {
		swap(b->rec, k->buf);
		swap(b->size, k->size);
	}
	if (b->size >= need)
		return 0;
	p = krealloc(b->rec, need, GFP_KERNEL);
	if (!p) {
		kfree(b->rec);
		return -ENOMEM;
	}
	b->rec = p;
	b->size = need;
	return 0;
}

/* @b's buffer kept in @k for the next record if small, else freed. */
static void rec_end(struct rec_build *b, struct rec_keep *k)
{
	if (k && b->size <= REC_KEEP_MAX) {
		k->buf = b->rec;
		k->size = b->size;
	} else {
		kfree(b->rec);
	}
}

static void deliver(const struct ustack_task *st)
{
	struct mm_struct *mm = st->nr ? current->mm : NULL;
	unsigned long sw;
	u64 t0 = ustack_stage_task_begin(&sw);
	struct rec_build b;
	struct rec_keep *k;
	size_t len;
	int err;

	trace_user_stack(st->cookie, ustack_render_end(st->end), st->nr,
			 st->ips, st->methods);
	if (!ustack_ring_active())
		return;
	k = keep_of(st);
	if (rec_start(&b, k, st->nr)) {
		ustack_stat_inc(nomem);
		return;
	}
	if (mm) {
		mmap_read_lock(mm);
		err = name_frames(&b, st, mm);
		mmap_read_unlock(mm);
	} else {
		err = name_frames(&b, st, NULL);
	}
	if (err) {
		ustack_stat_inc(nomem);
		goto out;
	}

	len = pack(&b);
	*b.rec = (struct ustack_rec_user_packed) {
		.hdr = {
			.type = USTACK_REC_USER_PACKED,
			.size = ALIGN(len, 8),
		},
		.cookie = st->cookie,
		.pid = task_tgid_nr(current),
		.tid = task_pid_nr(current),
		.nr_frames = st->nr,
		.end_reason = st->end,
		.nr_objects = b.nr_objects,
		.strtab_len = b.strtab_len,
	};
	ustack_stage_task_end(USTACK_STAGE_RECORD, t0, sw);
	/* The string table follows the frames: the record is one piece. */
	ustack_ring_write(b.rec, len, NULL, 0);
out:
	rec_end(&b, k);
}

static const struct ustack_client user_record_client = {
	.deliver = deliver,
};

void ustack_user_record_init(void)
{
	/* Without them, records name their files afresh, in new buffers. */
	keeps = kvcalloc(ustack_deferred_max_tasks, sizeof(*keeps), GFP_KERNEL);
	if (keeps)
		nr_keeps = ustack_deferred_max_tasks;
	else
		pr_warn("no memory for the records' keeps\n");
	ustack_deferred_client_register(USTACK_CLIENT_STREAM,
					&user_record_client);
}

/* After the last record: its client is unregistered first. */
void ustack_user_record_exit(void)
{
	u32 i;

	ustack_deferred_client_unregister(USTACK_CLIENT_STREAM);
	for (i = 0; i < nr_keeps; i++) {
		if (keeps[i])
			kfree(keeps[i]->buf);
		kfree(keeps[i]);
	}
	kvfree(keeps);
	keeps = NULL;
	nr_keeps = 0;
}
