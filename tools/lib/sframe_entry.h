/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sframe_entry.h - an SFrame entry on disk: a header, then an SFrame v3
 * section for one ELF object.  The shim's per-user cache holds these
 * files, and so does the root-owned store (sframe_store.h: other names,
 * the same format); the header's check is entry_hdr_read() for both.
 *
 * The cache's directory: $XDG_CACHE_HOME/ustack, else $HOME/.cache/ustack (mode 0700);
 * for root (euid 0) /var/cache/ustack (mode 0755, entries 0644), which
 * other users' shims also read (after their own directory, before
 * generating: a daemon without a writable home still finds root's entries).
 * Only directories owned by the user (or root, for the system one) and not
 * writable by group or others are used, and in them only entries owned by
 * the user (root) and writable by nobody else, opened with O_NOFOLLOW.
 * One file per object file, named "<build-id hex>-<16 hex>.v3.sframe"
 * (objects without a build-id are not cached): the 16 hex digits hash the
 * identity of the file the entry was made from (struct cache_src: device,
 * inode, size, mtime, ctime), which the header holds and the shim compares
 * with the object's own.  A build-id is whatever the object's builder
 * wrote: keyed by it alone, one forged object run once by root would give
 * its SFrame to every root process using the real one.  Nobody can give
 * another file the real one's device and inode, nor choose a ctime.
 * Written by `sframe-register gen --cache OUT --build-id HEX FILE`, which
 * refuses when FILE's build-id is not HEX (the file was replaced since it
 * was mapped), atomically (temporary file + rename).
 *
 * Next to the entries: <name>.lock (flock: one generator per entry when
 * processes start together) and <build-id>.vdso.so (the vDSO's image, the
 * generator's input for it).
 *
 * File: struct cache_hdr, then the SFrame v3 section (PCREL) encoded as if
 * placed at vaddr 0 of the object's file address space, at offset hdr_size.
 * To use it at address S for an object loaded with bias B, add B - S to
 * every FDE's 64-bit start offset (v3 PCREL: func = field address + start).
 */
#ifndef TOOLS_SFRAME_ENTRY_H
#define TOOLS_SFRAME_ENTRY_H

#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include "ustack_sframe.h"

/*
 * The magic changes with the format, and with a generator that makes
 * better entries from the same file (3: v3 flex FDEs for CFAs in other
 * registers, .init/.fini; 4: libgcc's crtbegin code; 5: gcc's DRAP
 * functions): readers take an old entry for none and make it again.
 */
#define CACHE_MAGIC	"USFRCAC5"
#define CACHE_SUFFIX	".v3.sframe"
#define CACHE_SFRAME_VERSION	SFRAME_VERSION_3	/* CACHE_SUFFIX says it */

/* The file an entry was made from (fstat of what the generator read). */
struct cache_src {
	uint64_t dev, ino, size;
	int64_t mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
};

static inline void cache_src_of(struct cache_src *c, const struct stat *st)
{
	memset(c, 0, sizeof(*c));
	c->dev = st->st_dev;
	c->ino = st->st_ino;
	c->size = st->st_size;
	c->mtime_sec = st->st_mtim.tv_sec;
	c->mtime_nsec = st->st_mtim.tv_nsec;
	c->ctime_sec = st->st_ctim.tv_sec;
	c->ctime_nsec = st->st_ctim.tv_nsec;
}

/*
 * FNV-1a, the hash in entry names: of a file's identity (the cache's and
 * the store's u- names), of an object's contents (the store's c- names),
 * of the vDSO's image.  Continue a hash with @h, start one with
 * ENTRY_HASH_INIT.
 */
#define ENTRY_HASH_INIT	0xcbf29ce484222325ull
static inline uint64_t entry_hash(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* Names the entry only; the header's copy is what is compared. */
static inline uint64_t cache_src_hash(const struct cache_src *c)
{
	return entry_hash(ENTRY_HASH_INIT, c, sizeof(*c));
}

struct cache_hdr {
	char magic[8];		/* CACHE_MAGIC */
	uint32_t hdr_size;	/* sizeof(struct cache_hdr): SFrame starts here */
	uint32_t sframe_version;	/* CACHE_SFRAME_VERSION */
	uint64_t sframe_len;
	uint64_t sframe_vaddr;	/* 0 */
	uint32_t funcs;		/* .eh_frame FDEs */
	uint32_t left_out;	/* functions SFrame could not express */
	struct cache_src src;	/* the object file it was made from */
};

/*
 * The header of an entry of @len bytes of SFrame made from the file @src
 * (as it was when read, not what its path names now: readers compare).
 */
void entry_hdr_init(struct cache_hdr *h, uint64_t len, uint32_t funcs,
		    uint32_t left_out, const struct cache_src *src);

/*
 * Read and check the header of the entry open as @fd (@st its fstat): a
 * header of this format and version whose SFrame lies inside the file.
 * Who may own the file is the caller's rule.  Returns 0 or -EBADMSG.
 */
int entry_hdr_read(int fd, const struct stat *st, struct cache_hdr *h);

#endif
