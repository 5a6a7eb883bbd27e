/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A user record while user_record.c builds it, and the names of its
 * objects (record_names.c).
 */
#ifndef USTACK_RECORD_BUILD_H
#define USTACK_RECORD_BUILD_H

#include <linux/types.h>
#include <uapi/ustack.h>

struct ustack_path_cache;
struct vm_area_struct;

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

static inline size_t rec_size(u32 nr, u32 nr_objects, u32 strtab)
{
	return sizeof(struct ustack_rec_user_packed) + nr * FRAME_BYTES +
	       nr_objects * sizeof(struct ustack_object) + strtab;
}

/* Bytes of the buffer before the string table, while it is built. */
static inline size_t build_size(u32 nr, u32 strtab)
{
	return rec_size(nr, nr, strtab);
}

static inline u64 *ips_of(const struct rec_build *b)
{
	return (u64 *)(b->rec + 1);
}

static inline struct ustack_object *objects_of(const struct rec_build *b)
{
	return (struct ustack_object *)(ips_of(b) + b->nr);
}

/* Each frame's object, after the room for one object per frame. */
static inline u16 *index_of(const struct rec_build *b)
{
	return (u16 *)(objects_of(b) + b->nr);
}

static inline u8 *methods_of(const struct rec_build *b)
{
	return (u8 *)(index_of(b) + b->nr);
}

static inline char *strtab_of(const struct rec_build *b)
{
	return (char *)(methods_of(b) + b->nr);
}

/* Files this record has named already, and their names' offsets. */
#define NAMED_MAX	8

struct rec_named {
	const struct file *file[NAMED_MAX];
	u32 off[NAMED_MAX];
	u32 nr;
};

int ustack_record_name(struct rec_build *b, struct rec_named *seen,
		       struct vm_area_struct *vma);

#endif /* USTACK_RECORD_BUILD_H */
