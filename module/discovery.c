// SPDX-License-Identifier: GPL-2.0
/*
 * ELF discovery: a PC in a file-backed executable mapping with no
 * registration uses the file's PT_GNU_SFRAME section, read in place from
 * the mapped image.  The program headers are read once per file with
 * kernel_read() and cached by inode identity (device, inode number,
 * generation, ctime, size; no inode reference is held), in a small table
 * replaced round-robin.  A section is validated (every FDE and FRE) the
 * first time it is used; a file whose section fails (malformed, faulting,
 * or shaped for linear lookups) is remembered as having none.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cleanup.h>
#include <linux/elf.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include "internal.h"
#include "registry.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

#define UDISC_SLOTS	64
#define UDISC_MAX_PHDRS	64
#define UDISC_MAX_LOADS	8

struct disc_load {
	u64 offset, vaddr, filesz;
};

struct disc_ent {
	/* identity */
	dev_t dev;
	unsigned long ino;
	u32 gen;
	s64 ctime_sec;
	long ctime_nsec;
	loff_t size;
	/* result */
	bool used;
	bool has;		/* a PT_GNU_SFRAME, not known bad */
	bool checked;		/* validated once */
	u64 sf_vaddr, sf_size;
	u32 nloads;
	struct disc_load load[UDISC_MAX_LOADS];	/* executable PT_LOADs */
};

static DEFINE_MUTEX(disc_lock);
static struct disc_ent *disc_tab;
static unsigned int disc_next;

static void disc_ident(struct inode *inode, struct disc_ent *e)
{
	struct timespec64 ct = ustack_inode_ctime(inode);

	e->dev = inode->i_sb->s_dev;
	e->ino = inode->i_ino;
	e->gen = inode->i_generation;
	e->ctime_sec = ct.tv_sec;
	e->ctime_nsec = ct.tv_nsec;
	e->size = i_size_read(inode);
}

static bool disc_same(const struct disc_ent *a, const struct disc_ent *b)
{
	return a->used && a->dev == b->dev && a->ino == b->ino &&
	       a->gen == b->gen && a->ctime_sec == b->ctime_sec &&
	       a->ctime_nsec == b->ctime_nsec && a->size == b->size;
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
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_machine != EM_X86_64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    !eh.e_phnum || eh.e_phnum > UDISC_MAX_PHDRS)
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
		    ph[i].p_memsz <= REG_MAX_BYTES) {
			e->sf_vaddr = ph[i].p_vaddr;
			e->sf_size = ph[i].p_memsz;
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

/* The cached entry for @key (copied to @key), read if needed. */
static void disc_get(struct file *file, struct disc_ent *key)
{
	unsigned int i;

	scoped_guard(mutex, &disc_lock) {
		for (i = 0; disc_tab && i < UDISC_SLOTS; i++) {
			if (disc_same(&disc_tab[i], key)) {
				*key = disc_tab[i];
				return;
			}
		}
	}
	disc_read(file, key);
	key->used = true;
	key->checked = false;
	guard(mutex)(&disc_lock);
	if (disc_tab) {
		disc_tab[disc_next] = *key;
		disc_next = (disc_next + 1) % UDISC_SLOTS;
	}
}

static void disc_set_checked(const struct disc_ent *key, bool ok)
{
	unsigned int i;

	guard(mutex)(&disc_lock);
	for (i = 0; disc_tab && i < UDISC_SLOTS; i++) {
		if (disc_same(&disc_tab[i], key)) {
			disc_tab[i].checked = true;
			disc_tab[i].has = ok;
		}
	}
}

/**
 * ustack_discovery_lookup() - the PT_GNU_SFRAME section covering a PC
 * @pc: a user address of current->mm
 * @sec: set to the section, its text range the mapping of @pc
 * @lo: set to the start of the range known to have the same answer
 * @hi: set to its end
 *
 * Reads the file's program headers once (cached by inode), validates the
 * section the first time it is used.  May sleep.
 *
 * Return: 0, or -ENOENT (no usable section), -EINTR.
 */
int ustack_discovery_lookup(u64 pc, struct sframe_sec *sec, u64 *lo, u64 *hi)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct disc_ent key = {};
	struct file *file;
	u64 start, end, off, bias = 0, sf;
	bool found = false;
	u32 i;
	int err;

	might_sleep();
	*lo = pc;
	*hi = pc + 1;
	if (!mm || !READ_ONCE(disc_tab))
		return -ENOENT;
	if (mmap_read_lock_killable(mm))
		return -EINTR;
	vma = find_vma(mm, pc);
	if (!vma || vma->vm_start > pc) {
		mmap_read_unlock(mm);
		return -ENOENT;
	}
	start = vma->vm_start;
	end = vma->vm_end;
	off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	if (!(vma->vm_flags & VM_EXEC) || !vma->vm_file) {
		mmap_read_unlock(mm);
		*lo = start;
		*hi = end;
		return -ENOENT;
	}
	file = get_file(vma->vm_file);
	mmap_read_unlock(mm);

	*lo = start;
	*hi = end;
	disc_ident(file_inode(file), &key);
	disc_get(file, &key);
	err = -ENOENT;
	if (!key.has)
		goto out;

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
		goto out;
	sf = key.sf_vaddr + bias;
	if (sf + key.sf_size < sf || sf + key.sf_size > TASK_SIZE)
		goto out;
	err = ustack_sframe_sec_init(sec, sf, key.sf_size, sf, start, end);
	if (!err && !key.checked) {
		err = ustack_sframe_validate(sec);
		/*
		 * A failure is remembered, a fault too (a section that
		 * faults at its last byte is not read again on every
		 * lookup); only a validation cut short by a fatal signal is
		 * no verdict.
		 */
		if (err != SFRAME_E_INTR)
			disc_set_checked(&key, !err);
		if (err)
			pr_info_ratelimited("%s: PT_GNU_SFRAME unusable: %s\n",
					    file_dentry(file)->d_name.name,
					    ustack_sframe_strerror(err));
	}
	if (err)
		err = -ENOENT;
out:
	fput(file);
	return err;
}

/**
 * ustack_discovery_init() - allocate the file table
 *
 * Return: 0 or -ENOMEM.
 */
int ustack_discovery_init(void)
{
	disc_tab = kcalloc(UDISC_SLOTS, sizeof(*disc_tab), GFP_KERNEL);
	return disc_tab ? 0 : -ENOMEM;
}

/**
 * ustack_discovery_exit() - free the file table
 *
 * Late walks (if any) find no table and use frame pointers.
 */
void ustack_discovery_exit(void)
{
	guard(mutex)(&disc_lock);
	kfree(disc_tab);
	disc_tab = NULL;
}
