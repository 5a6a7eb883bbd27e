// SPDX-License-Identifier: GPL-2.0
/*
 * The names of a user record's objects: its string table.  Each object
 * is named by its file's path (d_path), made into the table's free tail,
 * or taken from the task's path cache (path_cache.c), or by "[vdso]",
 * "[anon]" or "[unknown]".  A name is in the table once: a stack meets
 * its few objects again and again.  Task context, for user_record.c.
 */
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include "arch.h"
#include "path_cache.h"
#include "record_build.h"
#include "ustack_limits.h"

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
 * files of a record's names are told apart before (ustack_record_name()).
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

/**
 * ustack_record_name - the name of @vma's object, in @b's string table
 * @b: the record
 * @seen: the files @b has named already (zeroed for a new record)
 * @vma: a mapping of current->mm, or NULL (no mapping: "[unknown]")
 *
 * A stack goes back and forth between a few objects (the program, the C
 * library, the program's _start): each file's path is made once per
 * record, not at every change of mapping.  It may grow (move) @b's buffer.
 *
 * Context: task context, current->mm's mmap lock held (it keeps the file
 * mapped).
 * Return: the name's offset, or -ENOMEM.
 */
int ustack_record_name(struct rec_build *b, struct rec_named *seen,
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
