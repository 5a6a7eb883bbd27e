// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a store section at walk time: through the store file's page
 * cache, a page at a time, with the last STORE_RD_PAGES pages kept mapped
 * for the walk (a binary search and its FRE reads touch few pages).  Only
 * in faultable task context: a page not cached is read from the disk.
 *
 * Every read is bounded by the section length validated at STORE_ADD and
 * by the file's size now: a store file truncated since is a fault, never
 * a read past its end; a page truncated away while referenced here is
 * still memory of ours.
 *
 * tmpfs has no read_folio (its pages may be in swap): its own reader.
 * Other filesystems without one cannot hold store files.
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/shmem_fs.h>
#include <uapi/linux/magic.h>
#include "compat.h"
#include "store_read.h"

static void rd_put_pages(struct store_reader *rd)
{
	int i;

	for (i = 0; i < STORE_RD_PAGES; i++) {
		if (rd->page[i])
			put_page(rd->page[i]);
		rd->page[i] = NULL;
	}
}

/*
 * Root may rewrite a store file in place while walks read it; what they
 * read meanwhile is bounded, but may be torn.  Every change to a file sets
 * its ctime to the current time before it changes a byte (a write) or
 * while the bytes it removes still read as before (a truncation).  So if
 * the file's ctime is older than the current time, read first, any later
 * change moves the ctime past the one seen here.
 */
static void rd_stamp(struct store_reader *rd)
{
	struct inode *inode = file_inode(rd->file);
	struct timespec64 now = current_time(inode);

	smp_rmb();	/* the time before the ctime it is compared with */
	rd->ctime = ustack_inode_ctime(inode);
	rd->settled = timespec64_compare(&rd->ctime, &now) < 0;
}

/**
 * ustack_store_rd_unchanged() - whether what @rd read may be kept
 * @rd: a bound reader
 *
 * For the rule cache, which must not keep a rule read from a store file
 * while it was being rewritten: only a file that had settled at the bind
 * and whose ctime has not moved since.  Any context.
 *
 * Return: true if the bytes read through @rd were the file's settled ones.
 */
bool ustack_store_rd_unchanged(const struct store_reader *rd)
{
	struct timespec64 ct;

	if (!rd->file || !rd->settled)
		return false;
	smp_rmb();	/* the bytes read before the ctime that vouches for them */
	ct = ustack_inode_ctime(file_inode(rd->file));
	return timespec64_equal(&ct, &rd->ctime);
}

static int store_rd_copy(struct sframe_reader *srd, void *dst, u64 off,
			 size_t len);

/**
 * ustack_store_rd_bind() - point a walk's reader at a store section
 * @rd: the walk's reader
 * @file: the store file; the reference passes to @rd
 * @off: the section's offset in @file
 * @len: its length
 */
void ustack_store_rd_bind(struct store_reader *rd, struct file *file, u64 off,
			  u32 len)
{
	if (rd->file == file) {
		fput(file);	/* the window stays valid: same file */
	} else {
		ustack_store_rd_release(rd);
		rd->file = file;
	}
	rd->sf.copy = store_rd_copy;
	rd->off = off;
	rd->len = len;
	rd_stamp(rd);
}

/**
 * ustack_store_rd_release() - drop a reader's pages and file
 * @rd: the reader; zeroed, reusable
 */
void ustack_store_rd_release(struct store_reader *rd)
{
	rd_put_pages(rd);
	if (rd->file)
		fput(rd->file);
	rd->file = NULL;
	rd->next = 0;
}

static bool rd_is_shmem(struct file *file)
{
	return file_inode(file)->i_sb->s_magic == TMPFS_MAGIC;
}

/**
 * ustack_store_rd_usable() - whether @file can be read as a store file
 * @file: a regular file
 *
 * Return: true if its pages can be read through its page cache.
 */
bool ustack_store_rd_usable(struct file *file)
{
	return rd_is_shmem(file) || file->f_mapping->a_ops->read_folio;
}

static struct page *rd_read_page(struct file *file, pgoff_t idx)
{
	struct address_space *m = file->f_mapping;

	if (rd_is_shmem(file))
		return shmem_read_mapping_page_gfp(m, idx, mapping_gfp_mask(m));
	return read_mapping_page(m, idx, file);
}

static struct page *rd_page(struct store_reader *rd, pgoff_t idx)
{
	struct page *p;
	int i;

	for (i = 0; i < STORE_RD_PAGES; i++)
		if (rd->page[i] && rd->idx[i] == idx)
			return rd->page[i];
	p = rd_read_page(rd->file, idx);
	if (IS_ERR(p))
		return p;
	i = rd->next;
	rd->next = (rd->next + 1) % STORE_RD_PAGES;
	if (rd->page[i])
		put_page(rd->page[i]);
	rd->page[i] = p;
	rd->idx[i] = idx;
	return p;
}

/*
 * The SFrame core's reader of a store section (struct sframe_reader's
 * copy, set by ustack_store_rd_bind()): 0, or -EFAULT past the section,
 * past the file's end, or for a page that cannot be read.
 */
static int store_rd_copy(struct sframe_reader *srd, void *dst, u64 off,
			 size_t len)
{
	struct store_reader *rd = container_of(srd, struct store_reader, sf);
	loff_t pos = rd->off + off;
	struct page *p;
	size_t in, n;

	might_sleep();
	if (!rd->file || off > rd->len || len > rd->len - off ||
	    pos + len > i_size_read(file_inode(rd->file)))
		return -EFAULT;
	while (len) {
		in = offset_in_page(pos);
		n = min_t(size_t, len, PAGE_SIZE - in);
		p = rd_page(rd, pos >> PAGE_SHIFT);
		if (IS_ERR(p))
			return -EFAULT;
		memcpy_from_page(dst, p, in, n);
		dst += n;
		pos += n;
		len -= n;
	}
	return 0;
}
