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
#include "arch.h"
#include "deferred.h"
#include "path_cache.h"
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
 * One delivery's record (struct ustack_rec_user_packed), in one buffer
 * laid out as it goes into the ring, but with room for an object per
 * frame: the objects are known only once every frame is named, and
 * pack() then moves what follows them down.  The string table comes last
 * (up to USTACK_STRTAB_MAX bytes) and grows the buffer when it needs to.
 */
#define STRS_MAX	8	/* names found again in the table: a stack's few */

struct rec_build {
	struct ustack_rec_user_packed *rec;	/* the buffer */
	u32 size;			/* its bytes */
	u32 nr;				/* frames */
	u32 nr_objects;
	u32 strtab_len;
	struct ustack_path_cache *names;	/* the task's, or NULL */
	u32 nr_strs;
	struct { u32 off, len; } str[STRS_MAX];	/* the table's first names */
};

#define FRAME_BYTES	(sizeof(u64) + sizeof(u16) + sizeof(u8))

static size_t rec_size(u32 nr, u32 nr_objects, u32 strtab)
{
	return sizeof(struct ustack_rec_user_packed) + nr * FRAME_BYTES +
	       nr_objects * sizeof(struct ustack_object) + strtab;
}

/* Bytes of the buffer before the string table, while it is built. */
static size_t build_size(u32 nr, u32 strtab)
{
	return rec_size(nr, nr, strtab);
}

static u64 *ips_of(const struct rec_build *b)
{
	return (u64 *)(b->rec + 1);
}

static struct ustack_object *objects_of(const struct rec_build *b)
{
	return (struct ustack_object *)(ips_of(b) + b->nr);
}

/* Each frame's object, after the room for one object per frame. */
static u16 *index_of(const struct rec_build *b)
{
	return (u16 *)(objects_of(b) + b->nr);
}

static u8 *methods_of(const struct rec_build *b)
{
	return (u8 *)(index_of(b) + b->nr);
}

static char *strtab_of(const struct rec_build *b)
{
	return (char *)(methods_of(b) + b->nr);
}

/* The string table's room, its names included. */
static u32 strtab_room(const struct rec_build *b)
{
	return min_t(size_t, b->size - build_size(b->nr, 0), USTACK_STRTAB_MAX);
}

/* Room for the largest string table.  Return: 0, or -ENOMEM. */
static int rec_grow(struct rec_build *b)
{
	size_t size = build_size(b->nr, USTACK_STRTAB_MAX);
	void *p = krealloc(b->rec, size, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	b->rec = p;
	b->size = size;
	return 0;
}

/*
 * The offset of @name (@len bytes) in the string table, or -1.  Only the
 * first STRS_MAX names are found again: a name twice costs bytes, and the
 * files of a record's names are told apart before (name_of()).
 */
static int strtab_find(const struct rec_build *b, const char *name, u32 len)
{
	u32 i;

	for (i = 0; i < b->nr_strs; i++)
		if (b->str[i].len == len &&
		    !memcmp(strtab_of(b) + b->str[i].off, name, len))
			return b->str[i].off;
	return -1;
}

/*
 * Add @name, of @len bytes and its NUL, to the string table (once).  A
 * name made in the table's free tail always fits: only a name from
 * elsewhere grows the buffer.
 *
 * Return: its offset, or -ENOMEM.
 */
static int strtab_add(struct rec_build *b, const char *name, u32 len)
{
	int off = strtab_find(b, name, len);

	if (off >= 0)
		return off;
	if (b->strtab_len + len + 1 > strtab_room(b) &&
	    strtab_room(b) < USTACK_STRTAB_MAX && rec_grow(b))
		return -ENOMEM;
	if (b->strtab_len + len + 1 > strtab_room(b))
		return 0;	/* full: the first name stands in */
	memmove(strtab_of(b) + b->strtab_len, name, len + 1);
	off = b->strtab_len;
	if (b->nr_strs < STRS_MAX)
		b->str[b->nr_strs++] = (typeof(b->str[0])) { off, len };
	b->strtab_len += len + 1;
	return off;
}

#define strtab_add_const(b, s)	strtab_add(b, s, sizeof(s) - 1)

/* d_path() of @file into the string table's free tail. */
static char *path_in_tail(struct rec_build *b, struct file *file)
{
	u32 free = min_t(u32, strtab_room(b) - b->strtab_len, PATH_MAX);

	return file_path(file, strtab_of(b) + b->strtab_len, free);
}

/*
 * The path of @file, into the string table.  d_path() writes at the end
 * of the buffer it is given: the table's free tail is that buffer, and a
 * new path is moved down into place, so no PATH_MAX buffer is needed.  A
 * path too long for the tail is made again in a grown table, then in a
 * buffer of its own (it may be in the table already, or be the first
 * name's stand-in).  A path made, not an error's stand-in, is kept in
 * @k's cache for the task's next records.
 *
 * Return: its offset, or -ENOMEM.
 */
static int path_make(struct rec_build *b, struct file *file,
		     const struct ustack_path_key *k)
{
	char *p, *buf = NULL;
	int off;

	p = path_in_tail(b, file);
	if (p == ERR_PTR(-ENAMETOOLONG) && strtab_room(b) < USTACK_STRTAB_MAX) {
		if (rec_grow(b))
			return -ENOMEM;
		p = path_in_tail(b, file);
	}
	if (p == ERR_PTR(-ENAMETOOLONG) && b->strtab_len) {
		buf = __getname();
		if (!buf)
			return -ENOMEM;
		p = file_path(file, buf, PATH_MAX);
	}
	if (IS_ERR(p)) {
		off = strtab_add_const(b, "[unknown]");
	} else {
		u32 len = strlen(p);

		if (k)
			ustack_path_cache_put(b->names, k, p, len);
		off = strtab_add(b, p, len);
	}
	if (buf)
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
static int path_add(struct rec_build *b, struct file *file)
{
	struct ustack_path_key k;
	const char *name;
	u32 len;

	if (!b->names || !ustack_path_key_make(&k, file))
		return path_make(b, file, NULL);
	name = ustack_path_cache_get(b->names, &k, &len);
	if (name)
		return strtab_add(b, name, len);
	return path_make(b, file, &k);
}

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
static int name_of(struct rec_build *b, struct named *seen,
		   struct vm_area_struct *vma)
{
	struct file *f = vma ? vma->vm_file : NULL;
	int i, off;

	if (!f) {
		if (!vma)
			return strtab_add_const(b, "[unknown]");
		if (ustack_arch_is_vdso(vma))
			return strtab_add_const(b, "[vdso]");
		return strtab_add_const(b, "[anon]");
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
 * The index of @vma's object in the record's objects, added if it is not
 * among the last NAMED_MAX: a stack meets its few objects again and
 * again, and an object twice in the table costs bytes, not correctness.
 *
 * Return: the index, or -ENOMEM.
 */
static int object_of(struct rec_build *b, struct named *seen,
		     struct vm_area_struct *vma)
{
	struct ustack_object o = { .bias = bias_of(vma) };
	struct ustack_object *objs;
	int name = name_of(b, seen, vma);	/* may move the buffer */
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
static int frame_object(struct rec_build *b, struct named *seen,
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
	struct named seen = { .nr = 0 };
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
	u64 t0 = ustack_stage_begin();
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
	ustack_stage_end(USTACK_STAGE_RECORD, t0);
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
