// SPDX-License-Identifier: GPL-2.0
/*
 * The system-wide SFrame store: unwind data for ELF objects, keyed by file
 * (device, inode number, generation, ctime and size, as ELF discovery keys
 * files; no reference to the object is held), so that every process
 * mapping an object is covered, in any mount namespace.
 *
 * An entry holds a reference to its store file and the section's decoded
 * header, never its bytes: walks read them through the page cache
 * (store_read.c).  A file replaced on disk, or written since STORE_ADD,
 * has another key and never matches the entry.  Entries are in an RCU
 * hash; a removed entry's file reference is dropped after a grace period
 * (call_rcu), so a walk that found it under RCU can still take one.  Each
 * removal (STORE_DEL, a replacing STORE_ADD, STORE_FLUSH) ends a store
 * generation, which the per-CPU rule cache (user_walk.c) is tagged with: no
 * rule of a removed entry is served after its removal.
 *
 * The vDSO has no file: its one entry (SFRAME_STORE_VDSO) is keyed by the
 * kernel's image of it, which every 64-bit process maps, and is looked up
 * for PCs in a process's vDSO mapping.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cleanup.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <uapi/ustack.h>
#include "arch.h"
#include "file_id.h"
#include "ustack_limits.h"
#include "store.h"
#include "pc_mapping.h"
#include "ustack_elf.h"

static unsigned int store_max = 16384;
module_param(store_max, uint, 0644);
MODULE_PARM_DESC(store_max, "most objects in the SFrame store (STORE_ADD: ENOSPC beyond)");

#define STORE_HASH_BITS		10
#define STORE_MAX_PHDRS		64
#define STORE_MAX_LOADS		2

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
	struct rcu_head rcu;
};

/* Where an object's ELF headers are read: its file, or the vDSO's image. */
struct store_obj {
	struct file *file;
	const void *img;
	size_t len;
};

static DEFINE_MUTEX(store_lock);	/* serialises changes */
static struct hlist_head store_hash[1U << STORE_HASH_BITS];
static unsigned int store_count;	/* under store_lock */
static struct store_ent __rcu *store_vdso;	/* the vDSO's entry */
static atomic_long_t store_bytes, store_lookups, store_hits, store_full;
static atomic_long_t store_kept;
static atomic_long_t store_vdso_lookups, store_vdso_hits;
static atomic64_t store_gen = ATOMIC64_INIT(1);

/**
 * ustack_store_generation() - the store's generation
 *
 * Return: a value that changes after every removal of an entry (acquire:
 * a lookup after reading it does not find an entry removed before).
 */
u64 ustack_store_generation(void)
{
	return (u64)atomic64_read_acquire(&store_gen);
}

static struct hlist_head *store_bucket(const struct ustack_file_id *k)
{
	return &store_hash[hash_64((u64)k->dev << 32 ^ k->ino, STORE_HASH_BITS)];
}

/* Under RCU or store_lock. */
static struct store_ent *store_find(const struct ustack_file_id *k)
{
	struct store_ent *e;

	hlist_for_each_entry_rcu(e, store_bucket(k), node,
				 lockdep_is_held(&store_lock))
		if (ustack_file_id_eq(&e->key, k))
			return e;
	return NULL;
}

/* fput() defers the final release itself when called from softirq. */
static void store_free_rcu(struct rcu_head *head)
{
	struct store_ent *e = container_of(head, struct store_ent, rcu);

	fput(e->file);
	kfree(e);
}

static struct store_ent *store_vdso_locked(void)
{
	return rcu_dereference_protected(store_vdso,
					 lockdep_is_held(&store_lock));
}

static void store_remove(struct store_ent *e)
{
	lockdep_assert_held(&store_lock);
	if (e->vdso)
		RCU_INIT_POINTER(store_vdso, NULL);
	else
		hlist_del_rcu(&e->node);
	store_count--;
	atomic_long_sub(ksize(e), &store_bytes);
	/* after the unlink: a walk that reads the new value cannot find @e */
	atomic64_inc_return_release(&store_gen);
	call_rcu(&e->rcu, store_free_rcu);
}

static bool store_obj_read(const struct store_obj *o, void *dst, size_t len,
			   u64 off)
{
	loff_t pos = off;

	if (o->file)
		return kernel_read(o->file, dst, len, &pos) == len;
	if (off > o->len || len > o->len - off)
		return false;
	memcpy(dst, o->img + off, len);
	return true;
}

/* The executable PT_LOADs of the ELF object @obj into @e. */
static int store_read_loads(const struct store_obj *obj, struct store_ent *e)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	u32 i;

	if (!store_obj_read(obj, &eh, sizeof(eh), 0) ||
	    !ustack_elf_usable(&eh, STORE_MAX_PHDRS))
		return -EINVAL;
	for (i = 0; i < eh.e_phnum && e->nloads < STORE_MAX_LOADS; i++) {
		if (!store_obj_read(obj, &ph, sizeof(ph),
				    eh.e_phoff + (u64)i * sizeof(ph)))
			return -EINVAL;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		e->load[e->nloads++] = (struct store_load) {
			.offset = ph.p_offset,
			.vaddr = ph.p_vaddr,
			.filesz = ph.p_filesz,
		};
	}
	return e->nloads ? 0 : -EINVAL;
}

/* A file of @fd open for reading: the reference, or an ERR_PTR. */
static struct file *store_fget(int fd)
{
	struct file *f = fget(fd);

	if (!f)
		return ERR_PTR(-EBADF);
	if (!(f->f_mode & FMODE_READ)) {
		fput(f);
		return ERR_PTR(-EBADF);
	}
	if (!S_ISREG(file_inode(f)->i_mode)) {
		fput(f);
		return ERR_PTR(-EINVAL);
	}
	return f;
}

/*
 * SFrame of the vDSO names functions of its image, which is small: more
 * FDEs than bytes of text, or one outside the text, is SFrame of another
 * object.
 */
static bool store_vdso_funcs_ok(const struct store_ent *e)
{
	const struct store_load *l = &e->load[0];
	struct sframe_fde fde;
	u32 i;

	if (e->nloads != 1 || e->sec.num_fdes > l->filesz)
		return false;
	for (i = 0; i < e->sec.num_fdes; i++) {
		if (ustack_sframe_read_fde(&e->sec, i, &fde) ||
		    fde.func_start < l->vaddr ||
		    fde.func_start - l->vaddr > l->filesz ||
		    fde.func_size > l->filesz - (fde.func_start - l->vaddr))
			return false;
	}
	return true;
}

static int store_refuse(int err, const char *why, int code)
{
	pr_info_ratelimited("pid %d (%s): store entry refused: %s\n",
			    task_tgid_nr(current), current->comm,
			    code ? ustack_sframe_strerror(code) : why);
	return err;
}

/*
 * Decode and validate the section of @e's store file, read as walks do.
 * Return: 0 or the refusal's errno.
 */
static int store_check_section(struct store_ent *e, u64 len, u64 vaddr)
{
	struct store_reader rd = {};
	int err;

	ustack_store_rd_bind(&rd, get_file(e->file), e->off, len);
	err = ustack_sframe_sec_init_rd(&e->sec, &rd.sf, 0, len, vaddr, 0, 0);
	if (!err)
		err = ustack_sframe_validate(&e->sec);
	if (err)
		err = store_refuse(ustack_sframe_errno(err, -EBADMSG), NULL, err);
	else if (e->vdso && !store_vdso_funcs_ok(e))
		err = store_refuse(-EBADMSG, "functions outside the vDSO's text", 0);
	ustack_store_rd_release(&rd);
	e->sec.rd = NULL;
	return err;
}

/*
 * SFRAME_STORE_KEEP: whether the object of @k (the vDSO of image @vdso if
 * set) has an entry that serves it.  Under RCU or store_lock.
 */
static bool store_has(const struct ustack_file_id *k, const void *vdso)
{
	struct store_ent *e;

	if (!vdso)
		return store_find(k);
	e = rcu_dereference_check(store_vdso, lockdep_is_held(&store_lock));
	return e && e->vdso == vdso;
}

static bool store_has_rcu(const struct ustack_file_id *k, const void *vdso)
{
	guard(rcu)();
	return store_has(k, vdso);
}

static int store_kept_one(void)
{
	atomic_long_inc(&store_kept);
	return -EEXIST;
}

/* Insert @e, replacing an entry of the same object unless @keep. */
static int store_insert(struct store_ent *e, bool keep)
{
	struct store_ent *old;

	guard(mutex)(&store_lock);
	/* another caller's STORE_ADD since store_add()'s first look */
	if (keep && store_has(&e->key, e->vdso))
		return store_kept_one();
	old = e->vdso ? store_vdso_locked() : store_find(&e->key);
	if (old) {
		store_remove(old);
	} else if (store_count >= READ_ONCE(store_max)) {
		atomic_long_inc(&store_full);
		return -ENOSPC;
	}
	if (e->vdso)
		rcu_assign_pointer(store_vdso, e);
	else
		hlist_add_head_rcu(&e->node, store_bucket(&e->key));
	store_count++;
	atomic_long_add(ksize(e), &store_bytes);
	return 0;
}

/*
 * @e's store file and section, of request @r (whose range ends at @end):
 * opened, readable as walks read it, and valid.  0, or the refusal's
 * errno with no reference kept.
 */
static int store_open_section(struct store_ent *e,
			      const struct sframe_store_reg *r, u64 end)
{
	int err;

	e->file = store_fget(r->sframe_fd);
	if (IS_ERR(e->file)) {
		err = PTR_ERR(e->file);
		e->file = NULL;
		return store_refuse(err, "store fd", 0);
	}
	if (!ustack_store_rd_usable(e->file))
		err = store_refuse(-EINVAL, "store file not readable through the page cache", 0);
	else if (end > i_size_read(file_inode(e->file)))
		err = store_refuse(-EINVAL, "range past the store file's end", 0);
	else
		err = store_check_section(e, r->sframe_len, r->sframe_vaddr);
	if (err) {
		fput(e->file);
		e->file = NULL;
	}
	return err;
}

static int store_add(const struct sframe_store_reg *r)
{
	struct file *obj __free(fput) = NULL;
	bool vdso = r->flags & SFRAME_STORE_VDSO;
	bool keep = r->flags & SFRAME_STORE_KEEP;
	struct store_obj src = {};
	struct ustack_file_id k = {};
	struct store_ent *e;
	u64 end;
	int err;

	if (vdso) {
		/* the caller's own: the image the SFrame must be made from */
		src.img = current->mm ?
			  ustack_arch_vdso_image(current->mm, &src.len) : NULL;
		if (!src.img)
			return store_refuse(-EOPNOTSUPP, "the caller has no vDSO", 0);
	} else {
		obj = store_fget(r->object_fd);
		if (IS_ERR(obj))
			return store_refuse(PTR_ERR(obj), "object fd", 0);
		src.file = obj;
		ustack_file_id_of(file_inode(obj), &k);
	}
	/* before any read: an entry kept costs the caller nothing else */
	if (keep && store_has_rcu(&k, src.img))
		return store_kept_one();
	if (!r->sframe_len || check_add_overflow(r->sframe_off, r->sframe_len, &end))
		return store_refuse(-EINVAL, "empty or wrapping range", 0);
	if (r->sframe_len > USTACK_SFRAME_MAX_BYTES)
		return store_refuse(-EBADMSG, "section too large", 0);
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->off = r->sframe_off;
	e->vdso = src.img;
	err = store_read_loads(&src, e);
	if (err) {
		kfree(e);
		if (vdso)
			return store_refuse(-EOPNOTSUPP, "the caller's vDSO is not " USTACK_ARCH_NAME " ELF64", 0);
		return store_refuse(err, "object not an " USTACK_ARCH_NAME " ELF file", 0);
	}
	err = store_open_section(e, r, end);
	if (err) {
		kfree(e);
		return err;
	}
	e->key = k;
	err = store_insert(e, keep);
	if (err)
		goto fail;
	if (obj)
		ustack_store_miss_forget(&e->key);
	return 0;
fail:
	fput(e->file);
	kfree(e);
	return err;
}

static int store_del_vdso(void)
{
	struct store_ent *e;

	guard(mutex)(&store_lock);
	e = store_vdso_locked();
	if (!e)
		return -ENOENT;
	store_remove(e);
	return 0;
}

static int store_del(const struct sframe_store_reg *r)
{
	struct file *obj __free(fput) = NULL;
	struct ustack_file_id k;
	struct store_ent *e;

	if (r->flags & SFRAME_STORE_VDSO)
		return store_del_vdso();
	obj = store_fget(r->object_fd);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	ustack_file_id_of(file_inode(obj), &k);
	guard(mutex)(&store_lock);
	e = store_find(&k);
	if (!e)
		return -ENOENT;
	store_remove(e);
	return 0;
}

static void store_flush(void)
{
	struct store_ent *e;
	struct hlist_node *t;
	u32 i;

	guard(mutex)(&store_lock);
	for (i = 0; i < ARRAY_SIZE(store_hash); i++)
		hlist_for_each_entry_safe(e, t, &store_hash[i], node)
			store_remove(e);
	e = store_vdso_locked();
	if (e)
		store_remove(e);
}

/**
 * ustack_store_ioctl() - the store's /dev/sframe ioctls
 * @cmd: SFRAME_IOC_STORE_ADD, _DEL, _FLUSH or _MISSES
 * @uarg: its argument
 *
 * Return: 0 or a negative errno (include/uapi/ustack.h).
 */
long ustack_store_ioctl(unsigned int cmd, void __user *uarg)
{
	struct sframe_store_reg r;

	if (!perfmon_capable())
		return -EPERM;
	if (cmd == SFRAME_IOC_STORE_MISSES)
		return ustack_store_misses_ioctl(uarg);
	if (cmd == SFRAME_IOC_STORE_FLUSH) {
		store_flush();
		return 0;
	}
	if (copy_from_user(&r, uarg, sizeof(r)))
		return -EFAULT;
	if (r.size < sizeof(r) ||
	    (r.flags & ~(SFRAME_STORE_VDSO | SFRAME_STORE_KEEP)))
		return -EINVAL;
	if (cmd == SFRAME_IOC_STORE_ADD)
		return store_add(&r);
	if (r.flags & SFRAME_STORE_KEEP)
		return -EINVAL;
	return store_del(&r);
}

/* The ELF load bias of the mapping at @start of file offset @off, if any. */
static bool store_bias(const struct store_ent *e, u64 start, u64 off, u64 *bias)
{
	u32 i;

	for (i = 0; i < e->nloads; i++) {
		const struct store_load *l = &e->load[i];

		if (off >= (l->offset & PAGE_MASK) && off < l->offset + l->filesz) {
			*bias = start - (off - l->offset + l->vaddr);
			return true;
		}
	}
	return false;
}

/*
 * Under RCU: @e's section for the mapping [start, end) at file offset
 * @off into @sec and its offset in the store file into *@sf_off; its
 * store file, referenced, or NULL.
 */
static struct file *store_use(struct store_ent *e, u64 start, u64 end,
			      u64 off, struct sframe_sec *sec, u64 *sf_off)
{
	u64 bias;

	if (!store_bias(e, start, off, &bias))
		return NULL;
	*sec = e->sec;
	sec->vaddr += bias;
	sec->text_lo = start;
	sec->text_hi = end;
	*sf_off = e->off;
	return get_file(e->file);
}

/**
 * ustack_store_lookup() - the store's section for a mapping
 * @t: the mapping of a PC of current->mm
 * @sec: set to the section, its text range the mapping
 * @rd: the walk's reader, bound to the entry's store file
 *
 * An executable file mapping without an entry is queued as a miss; the
 * vDSO is looked up in the vDSO's entry.  Sleeps.
 *
 * Return: 0, or -ENOENT.
 */
int ustack_store_lookup(const struct ustack_text_map *t, struct sframe_sec *sec,
			struct store_reader *rd)
{
	struct file *sf = NULL;
	struct store_ent *e;
	struct ustack_file_id k;
	u64 sf_off = 0;

	might_sleep();
	if (t->vdso) {
		atomic_long_inc(&store_lookups);
		atomic_long_inc(&store_vdso_lookups);
		/* the mapping starts at the image's start: offset 0 */
		scoped_guard(rcu) {
			e = rcu_dereference(store_vdso);
			if (e && e->vdso == t->vdso)
				sf = store_use(e, t->start, t->end, 0, sec,
					       &sf_off);
		}
		if (!sf) {
			/* no entry, or one for another image: a flush */
			ustack_store_miss(NULL, t->start, t->end);
			return -ENOENT;
		}
		atomic_long_inc(&store_vdso_hits);
		goto bind;
	}
	if (!t->file)
		return -ENOENT;
	atomic_long_inc(&store_lookups);
	ustack_file_id_of(file_inode(t->file), &k);
	scoped_guard(rcu) {
		e = store_find(&k);
		if (e)
			sf = store_use(e, t->start, t->end, t->off, sec, &sf_off);
	}
	if (!e)
		ustack_store_miss(&k, t->start, t->end);
	if (!sf)
		return -ENOENT;
bind:
	sec->rd = &rd->sf;
	ustack_store_rd_bind(rd, sf, sf_off, sec->len);
	atomic_long_inc(&store_hits);
	return 0;
}

/**
 * ustack_store_show() - the store's lines of the stats file
 * @m: the stats file
 */
void ustack_store_show(struct seq_file *m)
{
	unsigned int n;

	scoped_guard(mutex, &store_lock)
		n = store_count;
	seq_printf(m, "store_entries %u\n", n);
	seq_printf(m, "store_bytes %ld\n", atomic_long_read(&store_bytes));
	seq_printf(m, "store_entry_size %zu\n", sizeof(struct store_ent));
	seq_printf(m, "store_lookups %ld\n", atomic_long_read(&store_lookups));
	seq_printf(m, "store_hits %ld\n", atomic_long_read(&store_hits));
	seq_printf(m, "store_full %ld\n", atomic_long_read(&store_full));
	seq_printf(m, "store_kept %ld\n", atomic_long_read(&store_kept));
	seq_printf(m, "store_miss_dropped %llu\n", ustack_store_miss_dropped());
	scoped_guard(rcu)
		n = !!rcu_dereference(store_vdso);
	seq_printf(m, "store_vdso %u\n", n);
	seq_printf(m, "store_vdso_lookups %ld\n",
		   atomic_long_read(&store_vdso_lookups));
	seq_printf(m, "store_vdso_hits %ld\n", atomic_long_read(&store_vdso_hits));
}

/**
 * ustack_store_exit() - drop every entry
 *
 * Called by module exit after the last walk and ioctl.
 */
void ustack_store_exit(void)
{
	store_flush();
	rcu_barrier();	/* store_free_rcu() is this module's code */
}
