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
 * A user's entry supersedes those of earlier versions of its object (the
 * same device, inode, generation and owner, another ctime or size): a
 * file written since never matches them again, and a user who touches a
 * program in a loop must not leave one entry per round.  Entries of objects a user may
 * write are charged to their owner (store_owner.c): a bounded share each,
 * and none of the system's objects refused for room users took.
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
#include "store_entry.h"
#include "store_owner.h"
#include "pc_mapping.h"

static unsigned int store_max = 16384;
module_param(store_max, uint, 0644);
MODULE_PARM_DESC(store_max, "most objects in the SFrame store (STORE_ADD: ENOSPC beyond)");

#define STORE_HASH_BITS		10

static DEFINE_MUTEX(store_lock);	/* serialises changes */
static struct hlist_head store_hash[1U << STORE_HASH_BITS];
static unsigned int store_count;	/* under store_lock */
static struct store_ent __rcu *store_vdso;	/* the vDSO's entry */
static atomic_long_t store_bytes, store_lookups, store_hits, store_full;
static atomic_long_t store_kept, store_superseded, store_evicted;
static atomic_long_t store_user_evicted;
static atomic_long_t store_vdso_lookups, store_vdso_hits;
static atomic64_t store_gen = ATOMIC64_INIT(1);

/* Entries with a CPython: none, and no walk looks for one. */
static atomic_t store_py_nr = ATOMIC_INIT(0);

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
	ustack_store_ent_free(container_of(head, struct store_ent, rcu));
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
	ustack_store_owner_release(&e->owner);
	store_count--;
	if (e->py)
		atomic_dec(&store_py_nr);
	atomic_long_sub(ksize(e), &store_bytes);
	/* after the unlink: a walk that reads the new value cannot find @e */
	atomic64_inc_return_release(&store_gen);
	call_rcu(&e->rcu, store_free_rcu);
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

/*
 * Drop the entries of @e's object, this version (replaced) or, for a
 * user's object, earlier ones charged to the same user (superseded: a file
 * written since has another ctime or size, and never matches them
 * again).  Only users' entries: device, inode and generation do not name
 * one file on btrfs, whose subvolumes share the superblock and number
 * their inodes alike, and the system's objects of two subvolumes must
 * not take turns evicting each other.  They hash to @e's bucket.
 */
static void store_drop_versions(const struct store_ent *e)
{
	struct store_ent *old;
	struct hlist_node *t;

	hlist_for_each_entry_safe(old, t, store_bucket(&e->key), node) {
		if (ustack_file_id_eq(&old->key, &e->key)) {
			store_remove(old);
			continue;
		}
		if (old->key.dev != e->key.dev || old->key.ino != e->key.ino ||
		    old->key.gen != e->key.gen || !e->owner.user ||
		    !old->owner.user ||
		    ustack_store_owner_key(&old->owner) != ustack_store_owner_key(&e->owner))
			continue;
		atomic_long_inc(&store_superseded);
		store_remove(old);
	}
}

static void store_evict(struct store_owner *o, atomic_long_t *counter)
{
	atomic_long_inc(counter);
	store_remove(container_of(o, struct store_ent, owner));
}

/*
 * Room for @e: a user's entry first evicts its owner's oldest at the
 * owner's share; a full store evicts the oldest of users' entries, and
 * refuses (ENOSPC) only when the system's entries fill it.
 */
static int store_make_room(struct store_ent *e)
{
	struct store_owner *v;
	bool refuse;

	if (e->owner.user) {
		v = ustack_store_owner_victim(&e->owner, &refuse);
		if (v)
			store_evict(v, &store_user_evicted);
		if (refuse) {
			atomic_long_inc(&store_full);
			return -ENOSPC;
		}
	}
	while (store_count >= READ_ONCE(store_max)) {
		v = ustack_store_owner_oldest();
		if (!v) {
			atomic_long_inc(&store_full);
			return -ENOSPC;
		}
		store_evict(v, &store_evicted);
	}
	return 0;
}

/* Insert @e, replacing an entry of the same object unless @keep. */
static int store_insert(struct store_ent *e, bool keep)
{
	struct store_ent *old;
	int err;

	guard(mutex)(&store_lock);
	/* another caller's STORE_ADD since store_add()'s first look */
	if (keep && store_has(&e->key, e->vdso))
		return store_kept_one();
	if (e->vdso) {
		old = store_vdso_locked();
		if (old)
			store_remove(old);
	} else {
		store_drop_versions(e);
	}
	err = store_make_room(e);
	if (!err && e->owner.user)
		err = ustack_store_owner_charge(&e->owner);
	if (err)
		return err;
	if (e->vdso)
		rcu_assign_pointer(store_vdso, e);
	else
		hlist_add_head_rcu(&e->node, store_bucket(&e->key));
	store_count++;
	if (e->py)
		atomic_inc(&store_py_nr);
	atomic_long_add(ksize(e), &store_bytes);
	return 0;
}

static int store_add(const struct sframe_store_reg *r)
{
	struct file *obj __free(fput) = NULL;
	bool keep = r->flags & SFRAME_STORE_KEEP;
	struct store_obj src = {};
	struct ustack_file_id k = {};
	struct store_ent *e;
	int err;

	if (r->flags & SFRAME_STORE_VDSO) {
		struct mm_struct *mm = current->mm;

		/*
		 * the caller's own: the image the SFrame must be made from
		 * (found under the mmap lock: arm64 looks at the mapping)
		 */
		if (mm && !mmap_read_lock_killable(mm)) {
			src.img = ustack_arch_vdso_image(mm, &src.len);
			mmap_read_unlock(mm);
		}
		if (!src.img)
			return ustack_store_refuse(-EOPNOTSUPP, "the caller has no vDSO", 0);
	} else {
		obj = ustack_store_fget(r->object_fd);
		if (IS_ERR(obj))
			return ustack_store_refuse(PTR_ERR(obj), "object fd", 0);
		src.file = obj;
		ustack_file_id_of(file_inode(obj), &k);
	}
	/* before any read: an entry kept costs the caller nothing else */
	if (keep && store_has_rcu(&k, src.img))
		return store_kept_one();
	e = ustack_store_ent_new(r, &src);
	if (IS_ERR(e))
		return PTR_ERR(e);
	e->key = k;
	if (obj)
		ustack_store_owner_of(obj, r->flags & SFRAME_STORE_USER,
				      r->user, &e->owner);
	err = store_insert(e, keep);
	if (err) {
		ustack_store_ent_free(e);
		return err;
	}
	if (obj)
		ustack_store_miss_forget(&e->key);
	return 0;
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
	obj = ustack_store_fget(r->object_fd);
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

/* @uarg's struct, of any size from the first UAPI's on: 0 or -errno. */
static int store_reg_copy(struct sframe_store_reg *r, void __user *uarg)
{
	u32 size;
	int err;

	if (get_user(size, (u32 __user *)uarg))
		return -EFAULT;
	if (size < SFRAME_STORE_REG_SIZE0)
		return -EINVAL;
	err = copy_struct_from_user(r, sizeof(*r), uarg, size);
	if (err)
		return err;
	if (r->flags & ~(SFRAME_STORE_VDSO | SFRAME_STORE_KEEP | SFRAME_STORE_USER))
		return -EINVAL;
	if (!(r->flags & SFRAME_STORE_USER) && r->user)
		return -EINVAL;
	/* A uid or a namespace's inode number, and the namespace flag. */
	if (r->user & ~(USTACK_USER_NS | U32_MAX))
		return -EINVAL;
	return 0;
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
	int err;

	if (!perfmon_capable())
		return -EPERM;
	if (cmd == SFRAME_IOC_STORE_MISSES)
		return ustack_store_misses_ioctl(uarg);
	if (cmd == SFRAME_IOC_STORE_FLUSH) {
		store_flush();
		return 0;
	}
	err = store_reg_copy(&r, uarg);
	if (err)
		return err;
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

/* @k's entry (*@found) and its section for @t, if it has one there. */
static struct file *store_get(const struct ustack_file_id *k,
			      const struct ustack_text_map *t,
			      struct sframe_sec *sec, u64 *sf_off, bool *found)
{
	struct store_ent *e;

	guard(rcu)();
	e = store_find(k);
	*found = e;
	return e ? store_use(e, t->start, t->end, t->off, sec, sf_off) : NULL;
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
	bool found;

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
	sf = store_get(&k, t, sec, &sf_off, &found);
	if (!found) {
		ustack_store_miss(&k, t->start, t->end);
		/* met first now: ustackd covers it in a moment */
		if (ustack_store_miss_wait(&k))
			sf = store_get(&k, t, sec, &sf_off, &found);
	}
	if (!sf)
		return -ENOENT;
bind:
	sec->rd = &rd->sf;
	ustack_store_rd_bind(rd, sf, sf_off, sec->len);
	atomic_long_inc(&store_hits);
	return 0;
}

/**
 * ustack_store_has_python() - may any object of the store hold a CPython?
 *
 * Return: false when no entry has one: a walk need not look.
 */
bool ustack_store_has_python(void)
{
	return atomic_read(&store_py_nr);
}

/**
 * ustack_store_python() - the CPython of the object mapped at a PC
 * @pc: a PC of current (a frame of its walk)
 * @py: set to the object's CPython layout
 * @bias: set to the load bias of the object in current
 * @lo: set to the start of the mapping looked up (of @pc alone if none)
 * @hi: set to its end: the answer holds for every PC in [lo, hi)
 *
 * Sleeps (the mapping is looked up under the mmap lock).
 *
 * Return: true when @pc's object has a store entry with a CPython.
 */
bool ustack_store_python(u64 pc, struct ustack_python *py, u64 *bias,
			 u64 *lo, u64 *hi)
{
	struct ustack_text_map t;
	struct ustack_file_id k;
	struct store_ent *e;
	bool ok = false;

	might_sleep();
	*lo = pc;
	*hi = pc + 1;
	if (ustack_text_map_get(pc, &t))
		return false;
	*lo = t.start;
	*hi = t.end;
	if (t.file) {
		ustack_file_id_of(file_inode(t.file), &k);
		guard(rcu)();
		e = store_find(&k);
		if (e && e->py && store_bias(e, t.start, t.off, bias)) {
			*py = *e->py;
			ok = true;
		}
	}
	ustack_text_map_put(&t);
	return ok;
}

/**
 * ustack_store_show() - the store's lines of the stats file
 * @m: the stats file
 */
void ustack_store_show(struct seq_file *m)
{
	unsigned int n;

	scoped_guard(mutex, &store_lock) {
		n = store_count;
		ustack_store_owner_show(m);
	}
	seq_printf(m, "store_entries %u\n", n);
	seq_printf(m, "store_bytes %ld\n", atomic_long_read(&store_bytes));
	seq_printf(m, "store_entry_size %zu\n", sizeof(struct store_ent));
	seq_printf(m, "store_python %d\n", atomic_read(&store_py_nr));
	seq_printf(m, "store_lookups %ld\n", atomic_long_read(&store_lookups));
	seq_printf(m, "store_hits %ld\n", atomic_long_read(&store_hits));
	seq_printf(m, "store_full %ld\n", atomic_long_read(&store_full));
	seq_printf(m, "store_kept %ld\n", atomic_long_read(&store_kept));
	seq_printf(m, "store_superseded %ld\n", atomic_long_read(&store_superseded));
	seq_printf(m, "store_user_evicted %ld\n",
		   atomic_long_read(&store_user_evicted));
	seq_printf(m, "store_evicted %ld\n", atomic_long_read(&store_evicted));
	ustack_store_miss_show(m);
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
