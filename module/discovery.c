// SPDX-License-Identifier: GPL-2.0
/*
 * ELF discovery: a PC in a file-backed executable mapping with no
 * registration uses the file's PT_GNU_SFRAME section, read in place from
 * the mapped image.  The program headers are read once per file with
 * kernel_read() and cached by inode identity (device, inode number,
 * generation, ctime, size; no inode reference is held), in a small table
 * (disc_slot(): no user's churn evicts a system object's verdict).  A
 * section is validated (every FDE and FRE) the first time it is used,
 * from the file's own bytes: the verdict is applied to every process
 * mapping the file, so it must not come from one process's private
 * (maybe copy-on-write modified) copy.  A file whose
 * section fails (malformed, truncated, or shaped for linear lookups) is
 * remembered as having none.  Only regular files outside FUSE are read: a
 * FIFO, a device or a FUSE server could block the walk, and rmmod with it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cleanup.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/hash.h>
#include "file_id.h"
#include "ustack_limits.h"
#include "registry.h"
#include "ustack_sframe.h"
#include "pc_mapping.h"
#include "ustack_elf.h"
#include "user_share.h"

#define UDISC_SLOTS	64
#define UDISC_USER_MAX	(UDISC_SLOTS / 4)	/* entries one user brings in */
#define UDISC_LOCK_BITS	3	/* validation locks of users' objects */
#define UDISC_MAX_PHDRS	64
#define UDISC_MAX_LOADS	8

struct disc_load {
	u64 offset, vaddr, filesz;
};

struct disc_ent {
	struct ustack_file_id id;
	u64 who;		/* the user whose walk brought it in */
	u64 seq;		/* when, in disc_seq */
	bool system;		/* disc_system() */
	/* result */
	bool used;
	bool has;		/* a PT_GNU_SFRAME, not known bad */
	bool checked;		/* validated once */
	u64 sf_vaddr, sf_size, sf_offset;
	u32 nloads;
	struct disc_load load[UDISC_MAX_LOADS];	/* executable PT_LOADs */
};

/*
 * Writers of the table hold disc_lock.  Lookups, one per frame of a walk
 * that no cached rule answers, take no lock: a user's churn through its
 * own files (each a miss, a read and an insert under disc_lock) would
 * otherwise make every other walk wait on it.  They copy an entry under
 * disc_seqc, retrying while a writer is in (writers never sleep or are
 * preempted there), and the table is freed after an RCU grace period.
 */
static DEFINE_MUTEX(disc_lock);
static seqcount_t disc_seqc = SEQCNT_ZERO(disc_seqc);
/*
 * Sections are read and validated one at a time per lock: one lock for
 * system objects, and users' objects hashed by their owner among the
 * others, so that no user's slow section (up to REG_MAX_BYTES, read and
 * checked) delays the system's verdicts or most other users'.  Memory:
 * one section per lock at most, each charged to the reader's memcg.
 */
static struct mutex disc_check_locks[(1 << UDISC_LOCK_BITS) + 1];
static struct disc_ent __rcu *disc_tab;
static unsigned int disc_next;
static u64 disc_seq;
static atomic_long_t disc_checks, disc_checks_system;	/* stats */

/*
 * A system object: owned by root and writable by no one else, so no user
 * can make a new identity of it (a new ctime, inode or size).
 */
static bool disc_system(const struct inode *inode)
{
	return uid_eq(inode->i_uid, GLOBAL_ROOT_UID) &&
	       !(inode->i_mode & 0022);	/* group, others: no write */
}

static bool disc_same(const struct disc_ent *a, const struct disc_ent *b)
{
	return a->used && ustack_file_id_eq(&a->id, &b->id);
}

/* Read the program headers of @file into @e: the section and loads. */
static void disc_read(struct file *file, struct disc_ent *e)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
	loff_t pos = 0;
	size_t len;
	u32 i;

	e->has = false;
	e->nloads = 0;
	if (kernel_read(file, &eh, sizeof(eh), &pos) != sizeof(eh))
		return;
	if (!ustack_elf_usable(&eh, UDISC_MAX_PHDRS))
		return;
	len = eh.e_phnum * sizeof(*ph);
	ph = kmalloc(len, GFP_KERNEL);
	if (!ph)
		return;
	pos = eh.e_phoff;
	if (kernel_read(file, ph, len, &pos) != len)
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_GNU_SFRAME && ph[i].p_memsz &&
		    ph[i].p_memsz <= REG_MAX_BYTES &&
		    ph[i].p_filesz >= ph[i].p_memsz &&
		    ph[i].p_offset <= e->id.size &&
		    ph[i].p_memsz <= e->id.size - ph[i].p_offset) {
			e->sf_vaddr = ph[i].p_vaddr;
			e->sf_size = ph[i].p_memsz;
			e->sf_offset = ph[i].p_offset;
			e->has = true;
		}
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X) &&
		    e->nloads < UDISC_MAX_LOADS) {
			e->load[e->nloads].offset = ph[i].p_offset;
			e->load[e->nloads].vaddr = ph[i].p_vaddr;
			e->load[e->nloads].filesz = ph[i].p_filesz;
			e->nloads++;
		}
	}
	if (!e->nloads)
		e->has = false;
out:
	kfree(ph);
}

static struct disc_ent *disc_tab_locked(void)
{
	return rcu_dereference_protected(disc_tab, lockdep_is_held(&disc_lock));
}

static void disc_write_begin(void)
{
	lockdep_assert_held(&disc_lock);
	preempt_disable();
	write_seqcount_begin(&disc_seqc);
}

static void disc_write_end(void)
{
	write_seqcount_end(&disc_seqc);
	preempt_enable();
}

/* A system object's good verdict: no user's churn replaces it. */
static bool disc_protected(const struct disc_ent *e)
{
	return e->system && e->checked && e->has;
}

/*
 * The slot @key goes into, or -1 (then it is not kept).  A user whose
 * walks brought in UDISC_USER_MAX entries replaces its own oldest, so a
 * user's churn through any number of files costs the others at most
 * UDISC_USER_MAX entries; else a round-robin hand replaces any entry but
 * a system object's good verdict, which only another system object's
 * entry may replace.  Under disc_lock.
 */
static int disc_slot(const struct disc_ent *tab, const struct disc_ent *key)
{
	unsigned int i, own = 0, oldest = UDISC_SLOTS;

	for (i = 0; i < UDISC_SLOTS; i++) {
		const struct disc_ent *e = &tab[i];

		if (!e->used)
			return i;
		if (e->who != key->who || disc_protected(e))
			continue;
		own++;
		if (oldest == UDISC_SLOTS || e->seq < tab[oldest].seq)
			oldest = i;
	}
	if (own >= UDISC_USER_MAX)
		return oldest;
	for (i = 0; i < UDISC_SLOTS; i++) {
		unsigned int j = (disc_next + i) % UDISC_SLOTS;

		if (key->system || !disc_protected(&tab[j])) {
			disc_next = (j + 1) % UDISC_SLOTS;
			return j;
		}
	}
	return -1;
}

/* The cached entry for @key, if cached (copied to @key).  No lock. */
static bool disc_find(struct disc_ent *key)
{
	const struct disc_ent *tab;
	struct disc_ent e;
	unsigned int seq, i;
	bool found;

	guard(rcu)();
	tab = rcu_dereference(disc_tab);
	if (!tab)
		return false;
	/*
	 * A torn copy is retried, never used; it goes to @e, not @key, so
	 * that the retry compares with the key it was given.
	 */
	do {
		found = false;
		seq = read_seqcount_begin(&disc_seqc);
		for (i = 0; i < UDISC_SLOTS && !found; i++) {
			if (disc_same(&tab[i], key)) {
				e = tab[i];
				found = true;
			}
		}
	} while (read_seqcount_retry(&disc_seqc, seq));
	if (found)
		*key = e;
	return found;
}

/* The cached entry for @key (copied to @key), read if needed. */
static void disc_get(struct file *file, struct disc_ent *key)
{
	struct disc_ent *tab;
	int slot;

	if (disc_find(key))
		return;
	disc_read(file, key);
	key->used = true;
	key->checked = false;
	key->system = disc_system(file_inode(file));
	key->who = ustack_user_of(current);
	guard(mutex)(&disc_lock);
	tab = disc_tab_locked();
	if (!tab)
		return;
	slot = disc_slot(tab, key);
	if (slot < 0)
		return;
	key->seq = ++disc_seq;
	disc_write_begin();
	tab[slot] = *key;
	disc_write_end();
}

static void disc_set_checked(const struct disc_ent *key, bool ok)
{
	struct disc_ent *tab;
	unsigned int i;

	guard(mutex)(&disc_lock);
	tab = disc_tab_locked();
	for (i = 0; tab && i < UDISC_SLOTS; i++) {
		if (disc_same(&tab[i], key)) {
			/* (a lookup sees both fields or neither) */
			disc_write_begin();
			tab[i].checked = true;
			tab[i].has = ok;
			disc_write_end();
		}
	}
}

/* A file's section in a kernel buffer, read by the SFrame core. */
struct disc_buf_reader {
	struct sframe_reader sf;
	const u8 *buf;
	u64 len;
};

static int disc_buf_copy(struct sframe_reader *srd, void *dst, u64 off,
			 size_t len)
{
	struct disc_buf_reader *rd = container_of(srd, struct disc_buf_reader,
						  sf);

	if (off > rd->len || len > rd->len - off)
		return -EFAULT;
	memcpy(dst, rd->buf + off, len);
	return 0;
}

/*
 * Validate the section of @file as it is in the file (read with
 * kernel_read(), not through any process's mapping), as if mapped at @sf
 * for the text [@lo, @hi).  0, an SFrame error, or SFRAME_E_INTR for no
 * verdict (no memory, a fatal signal, a short read).
 */
static int disc_validate_file(struct file *file, const struct disc_ent *key,
			      u64 sf, u64 lo, u64 hi)
{
	struct disc_buf_reader rd = { .sf.copy = disc_buf_copy };
	struct sframe_sec sec;
	loff_t pos = key->sf_offset;
	size_t done = 0;
	ssize_t n;
	u8 *buf;
	int err;

	buf = kvmalloc(key->sf_size, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!buf)
		return SFRAME_E_INTR;
	/* Bounded: each pass reads at least one byte of sf_size. */
	while (done < key->sf_size) {
		if (fatal_signal_pending(current)) {
			err = SFRAME_E_INTR;
			goto out;
		}
		n = kernel_read(file, buf + done, key->sf_size - done, &pos);
		if (n <= 0) {
			/* Truncated since the headers were read: no section. */
			err = n ? SFRAME_E_INTR : SFRAME_E_FAULT;
			goto out;
		}
		done += n;
	}
	rd.buf = buf;
	rd.len = key->sf_size;
	err = ustack_sframe_sec_init_rd(&sec, &rd.sf, 0, key->sf_size, sf, lo,
					hi);
	if (!err)
		err = ustack_sframe_validate(&sec);
out:
	kvfree(buf);
	return err;
}

/*
 * The verdict on @key's section, from the file, once per file: 0 usable,
 * else an SFrame error (SFRAME_E_INTR: none yet).  Updates @key.
 */
static int disc_check(struct file *file, struct disc_ent *key, u64 sf,
		      u64 lo, u64 hi)
{
	struct inode *inode = file_inode(file);
	struct mutex *lock;
	int err;

	lock = key->system ? &disc_check_locks[1 << UDISC_LOCK_BITS] :
	       &disc_check_locks[hash_32(__kuid_val(inode->i_uid),
					 UDISC_LOCK_BITS)];
	if (mutex_lock_killable(lock))
		return SFRAME_E_INTR;
	/* Another task may have given the verdict meanwhile. */
	if (disc_find(key) && key->checked) {
		err = key->has ? 0 : SFRAME_E_NOINFO;
		goto out;
	}
	err = disc_validate_file(file, key, sf, lo, hi);
	atomic_long_inc(&disc_checks);
	if (key->system)
		atomic_long_inc(&disc_checks_system);
	if (err != SFRAME_E_INTR)
		disc_set_checked(key, !err);
	if (err && err != SFRAME_E_INTR)
		pr_info_ratelimited("%s: PT_GNU_SFRAME unusable: %s\n",
				    file_dentry(file)->d_name.name,
				    ustack_sframe_strerror(err));
out:
	mutex_unlock(lock);
	return err;
}

/* kernel_read() cannot block on it (no FIFO, device or FUSE server). */
static bool disc_readable(struct file *file)
{
	struct inode *inode = file_inode(file);
	const char *fs = inode->i_sb->s_type->name;

	return S_ISREG(inode->i_mode) && strcmp(fs, "fuse") &&
	       strcmp(fs, "fuseblk");
}

/**
 * ustack_discovery_lookup() - the PT_GNU_SFRAME section of a mapping
 * @t: the mapping of a PC of current->mm
 * @sec: set to the section, its text range the mapping
 *
 * Reads the file's program headers once (cached by inode), validates the
 * section the first time it is used.  May sleep.
 *
 * Return: 0, or -ENOENT (no usable section).
 */
int ustack_discovery_lookup(const struct ustack_text_map *t,
			    struct sframe_sec *sec)
{
	struct file *file = t->file;
	struct disc_ent key = {};
	u64 start = t->start, end = t->end, off = t->off, bias = 0, sf;
	bool found = false;
	u32 i;
	int err;

	might_sleep();
	if (!file || !rcu_access_pointer(disc_tab) || !disc_readable(file))
		return -ENOENT;
	ustack_file_id_of(file_inode(file), &key.id);
	disc_get(file, &key);
	if (!key.has)
		return -ENOENT;

	/* The executable PT_LOAD this mapping comes from gives the bias. */
	for (i = 0; i < key.nloads; i++) {
		const struct disc_load *l = &key.load[i];

		if (off >= (l->offset & PAGE_MASK) &&
		    off < l->offset + l->filesz) {
			bias = start - (off - l->offset + l->vaddr);
			found = true;
			break;
		}
	}
	if (!found)
		return -ENOENT;
	sf = key.sf_vaddr + bias;
	if (sf + key.sf_size < sf || sf + key.sf_size > TASK_SIZE)
		return -ENOENT;
	/*
	 * The file's verdict, remembered either way; this process's copy is
	 * then read as it is: a walk is bounded whatever it finds there.
	 */
	err = key.checked ? 0 : disc_check(file, &key, sf, start, end);
	if (!err)
		err = ustack_sframe_sec_init(sec, sf, key.sf_size, sf, start,
					     end);
	return err ? -ENOENT : 0;
}

/**
 * ustack_discovery_show() - discovery's counters, for the stats
 * @m: the stats file
 */
void ustack_discovery_show(struct seq_file *m)
{
	seq_printf(m, "discovery_checks %ld\n", atomic_long_read(&disc_checks));
	seq_printf(m, "discovery_checks_system %ld\n",
		   atomic_long_read(&disc_checks_system));
}

/**
 * ustack_discovery_init() - allocate the file table
 *
 * Return: 0 or -ENOMEM.
 */
int ustack_discovery_init(void)
{
	struct disc_ent *tab;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(disc_check_locks); i++)
		mutex_init(&disc_check_locks[i]);
	tab = kcalloc(UDISC_SLOTS, sizeof(*tab), GFP_KERNEL);
	rcu_assign_pointer(disc_tab, tab);
	return tab ? 0 : -ENOMEM;
}

/**
 * ustack_discovery_exit() - free the file table
 *
 * Late walks (if any) find no table and use frame pointers; lookups that
 * found it are done before it is freed.
 */
void ustack_discovery_exit(void)
{
	struct disc_ent *tab;

	scoped_guard(mutex, &disc_lock) {
		tab = disc_tab_locked();
		rcu_assign_pointer(disc_tab, NULL);
	}
	synchronize_rcu();
	kfree(tab);
}
