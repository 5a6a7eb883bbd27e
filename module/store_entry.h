/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An entry of the SFrame store (store.c), and how a STORE_ADD request
 * makes one (store_entry.c).  Private to the store's files.
 */
#ifndef USTACK_STORE_ENTRY_H
#define USTACK_STORE_ENTRY_H

#include <linux/rcupdate.h>
#include <linux/types.h>
#include "file_id.h"
#include "store_owner.h"
#include "ustack_sframe.h"

#define STORE_MAX_LOADS		2

struct sframe_store_reg;

/* An executable PT_LOAD of the object: what maps a mapping to ELF addresses. */
struct store_load {
	u64 offset, vaddr, filesz;
};

struct store_ent {
	struct hlist_node node;
	struct ustack_file_id key;
	struct file *file;	/* the store file, referenced */
	u64 off;		/* the section's offset in it */
	struct sframe_sec sec;	/* decoded at STORE_ADD, vaddr = sframe_vaddr */
	struct store_load load[STORE_MAX_LOADS];
	u32 nloads;
	const void *vdso;	/* the vDSO's entry: the image it is for */
	struct store_owner owner;	/* whose object, if a user's */
	struct ustack_python *py;	/* its CPython (STORE_ADD's), or NULL */
	struct rcu_head rcu;
};

/* Where an object's ELF headers are read: its file, or the vDSO's image. */
struct store_obj {
	struct file *file;
	const void *img;
	size_t len;
};

/* A file of @fd open for reading: the reference, or an ERR_PTR. */
struct file *ustack_store_fget(int fd);

/* @err, after a rate-limited line saying why (@code: an SFrame error). */
int ustack_store_refuse(int err, const char *why, int code);

/*
 * The entry that request @r asks for, of the object read from @src: its
 * executable loads, its store file and its valid section; key and owner
 * are the caller's to set.  Return: the entry or an ERR_PTR (refused).
 */
struct store_ent *ustack_store_ent_new(const struct sframe_store_reg *r,
				       const struct store_obj *src);

/* Drop @e's store file and free it. */
void ustack_store_ent_free(struct store_ent *e);

#endif /* USTACK_STORE_ENTRY_H */
