/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sframe_store.h - the root-owned SFrame store of ustackd and of root's
 * shim: one file per ELF object, an entry of sframe_entry.h (a header, then
 * an SFrame v3 section at vaddr 0 of the object's ELF address space), so
 * that the kernel reads the section at offset hdr_size of the file.
 *
 * Entry names (what makes an entry reusable for an object):
 *   <build-id>.v3.sframe    a root-owned object nobody else can write:
 *                           its build-id is as trustworthy as its bytes;
 *   c-<hash>.v3.sframe      the same without a build-id: a hash of the
 *                           object's contents;
 *   u-<hash>.v3.sframe      any other object (a user's file can carry any
 *                           build-id): a hash of its identity (device,
 *                           inode, size, mtime, ctime), which the header
 *                           holds and which must match for reuse.
 * So no file a user controls can give its SFrame to a root-owned object.
 *
 * One implementation for everyone who writes or reads the store: ustackd,
 * root's shim (which looks entries up and registers them with STORE_ADD),
 * its helper (`sframe-register gen --store`, which writes them) and other
 * users' shims (which only read them).
 */
#ifndef TOOLS_SFRAME_STORE_H
#define TOOLS_SFRAME_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include "sframe_entry.h"

#define STORE_DEFAULT	"/var/cache/ustack/sframe"
#define STORE_NAME_MAX	160

/*
 * Open (creating it, mode 0755, if missing) the store directory @path and
 * check it and every directory above it: owned by root, writable by no one
 * else (unless sticky, as /tmp), no symbolic link.  Returns a directory
 * descriptor, or -errno with a message in @err.
 */
int store_open(const char *path, char *err, size_t errlen);

/* Is @st an object whose build-id may name a shared entry? */
bool store_trusted_object(const struct stat *st);
/*
 * @fd (open as @path) or, when @fd's mount is nosuid, the same file as PID
 * 1 sees it: a service's sandbox (systemd's ProtectSystem=strict with
 * RestrictSUIDSGID=, ustackd's own and logind's among them) binds the
 * system's file systems nosuid, which is no user's mount.  Root's file on
 * a mount PID 1 has without nosuid is the system's, here and in the
 * module (the descriptor registered is this one).  Closes @fd when it
 * returns another.
 */
int store_system_view(int fd, const char *path);

/* FNV-1a of the first @size bytes of @fd (0 with *@err = errno on error). */
uint64_t store_content_hash(int fd, uint64_t size, int *err);

/*
 * Name the entry of the object open as @fd (@st its fstat, @bid its
 * build-id in hex, "" if none) into @name; *@need_src says whether
 * store_get() must compare the entry's identity with the object's.  A
 * shared name (build-id, content hash) only for a trusted object on a
 * file system root mounted for the system (not FUSE, not nosuid): any
 * other gets a name bound to its own identity, which no other file can
 * claim.  A content-keyed object needs its whole file read: with @fd < 0
 * (the shim, which does not hash files in every process) that gives
 * -EAGAIN.
 * Returns 0 or -errno.
 */
int store_entry_name(int fd, const struct stat *st, const char *bid,
		     char *name, size_t len, bool *need_src);

/*
 * Open the entry @name and check it: a regular file (no symbolic link),
 * owned by root, writable by no one else, one link, with a valid header
 * whose SFrame lies inside the file; when @src is given, the header's
 * identity must equal it.  Returns the descriptor with *@h filled, -ENOENT
 * when there is no entry, or another -errno (an entry not to trust: the
 * caller replaces it).
 */
int store_get(int dirfd, const char *name, const struct cache_src *src,
	      struct cache_hdr *h);

/*
 * Write the entry @name: header @h then @len bytes of @sf, to a temporary
 * file that is fsync()ed and renamed over @name (the directory is synced
 * too), so that a reader sees the old entry or the whole new one.
 * Returns 0 or -errno.
 */
int store_put(int dirfd, const char *name, const struct cache_hdr *h,
	      const void *sf, size_t len);

#endif
