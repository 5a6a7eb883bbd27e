// SPDX-License-Identifier: GPL-2.0
/*
 * shim_entry.c - the entries that serve an object: the per-user cache
 * (sframe_entry.h), root's cache as a second one, and the store
 * (sframe_store.h).  An entry is used only if it can be trusted: owned by
 * whom it must be, writable by nobody else, well-formed, made from the
 * very file the object was loaded from.  Root's shim registers a store
 * entry for the file itself (SFRAME_IOC_STORE_ADD), so that every process
 * mapping it is covered; any other entry is mapped privately, relocated,
 * and registered for this process.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "sframe_ioctl.h"
#include "sframe_section.h"
#include "shim_int.h"

static int store_fd = -1;	/* while the shim's lock is held (store_begin) */

/*
 * Open the entry @name in @dir if it can be trusted: a regular file (not a
 * link) owned by @owner (us in our directory, root in the system one),
 * writable by nobody else, well-formed, and made from the very file @src
 * describes.  A build-id alone is chosen by whoever builds the object: a
 * forged one must not give its entry to the real object.
 */
int entry_open(const char *dir, const char *name, uid_t owner,
	       const struct cache_src *src, struct cache_hdr *h)
{
	char path[700];
	struct stat st;
	int fd;

	if (!dir[0] || snprintf(path, sizeof(path), "%s/%s%s", dir, name,
				CACHE_SUFFIX) >= (int)sizeof(path))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != owner ||
	    (st.st_mode & 022) || entry_hdr_read(fd, &st, h) ||
	    memcmp(&h->src, src, sizeof(*src))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Open the store for this scan; the shim's lock is held. */
void store_begin(void)
{
	char err[256] = "";
	struct stat st;

	/* only root's creates the store's directories */
	if (!shim.store_rw &&
	    (lstat(shim.store_dir, &st) || !S_ISDIR(st.st_mode)))
		return;
	if (shim.store_dir[0] && store_fd < 0) {
		store_fd = store_open(shim.store_dir, err, sizeof(err));
		if (store_fd < 0 && shim.store_rw)
			shim_log("ustack-shim: store: %s\n",
				 err[0] ? err : strerror(-store_fd));
	}
}

void store_end(void)
{
	if (store_fd >= 0)
		close(store_fd);
	store_fd = -1;
}

void entry_key_init(struct entry_key *key, const struct stat *st, bool vdso)
{
	cache_src_of(&key->src, st);
	snprintf(key->name, sizeof(key->name), "%s-%016llx", key->id,
		 (unsigned long long)cache_src_hash(&key->src));
	key->sname[0] = 0;
	key->need_src = false;
	if (!vdso && shim.store_dir[0] &&
	    store_entry_name(-1, st, key->id, key->sname, sizeof(key->sname),
			     &key->need_src))
		key->sname[0] = 0;
	/* a store root cannot open (not root's): the cache, as before */
	key->store_only = shim.store_rw && key->sname[0] && store_fd >= 0;
}

/* Set once a module refused SFRAME_STORE_KEEP (older than the flag). */
static bool store_no_keep;

/*
 * Register the store entry @sffd (@h) for the file that holds @o's text,
 * for every process (STORE_ADD).  The object is the very file mapped
 * (/proc/self/map_files/), and only if it is still the file @key was
 * made from: keyed by inode, a file put in the path's place since the
 * object was loaded must never get its SFrame.  An object with an entry
 * already (ustackd's, an earlier root process's) keeps it: with
 * SFRAME_STORE_KEEP the kernel neither reads nor validates the section
 * again, which each root process start would otherwise pay for every
 * object it maps.  Returns 0 or -errno.
 */
static int store_add(int devfd, const struct entry_key *key, int sffd,
		     const struct cache_hdr *h)
{
	struct sframe_store_reg r = {
		.size = sizeof(r), .sframe_fd = sffd,
		.flags = __atomic_load_n(&store_no_keep, __ATOMIC_RELAXED) ?
			 0 : SFRAME_STORE_KEEP,
		.sframe_off = h->hdr_size, .sframe_len = h->sframe_len,
		.sframe_vaddr = h->sframe_vaddr,
	};
	struct cache_src now;
	char path[80];
	struct stat st;
	int objfd, ret = 0;
	bool no_keep = false;

	if (devfd < 0 || !key->range[0])
		return -ENODEV;
	snprintf(path, sizeof(path), "/proc/self/map_files/%s", key->range);
	objfd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (objfd < 0)
		return -errno;
	if (fstat(objfd, &st)) {
		ret = -errno;
	} else {
		cache_src_of(&now, &st);
		if (memcmp(&now, &key->src, sizeof(now)))
			ret = -ESTALE;
	}
	r.object_fd = objfd;
	if (!ret)
		ret = sframe_dev_store_add(devfd, &r);
	if (ret == -EINVAL && r.flags) {
		/* an older module; a bad request fails again */
		r.flags = 0;
		no_keep = true;
		ret = sframe_dev_store_add(devfd, &r);
	}
	close(objfd);
	if (!ret && no_keep)
		__atomic_store_n(&store_no_keep, true, __ATOMIC_RELAXED);
	/* EEXIST: the object has its entry, which serves this process too */
	return ret == -EEXIST ? 0 : ret;
}

/*
 * Map the cache entry for @key: 0; or 1 on a miss that the helper may
 * fill (generate(), then cache_map() again with @quiet); else -1.  An
 * entry that cannot be trusted is a miss: the helper replaces it.  Root's
 * store entries are registered with STORE_ADD when the kernel takes them
 * (0, @o->stored set, nothing mapped), else mapped like the others.
 */
int cache_map(struct obj *o, const struct entry_key *key, const char *file,
	      bool quiet, int devfd)
{
	bool from_store = false;
	struct cache_hdr h;
	void *m;
	int fd = -1, rc;

	if (!key->store_only) {
		fd = entry_open(shim.cache_dir, key->name, geteuid(), &key->src,
				&h);
		if (fd < 0 && shim.sys_cache)
			fd = entry_open(shim.sys_dir, key->name, 0, &key->src,
					&h);
	}
	if (fd < 0 && key->sname[0] && store_fd >= 0) {
		fd = store_get(store_fd, key->sname,
			       key->need_src ? &key->src : NULL, &h);
		from_store = fd >= 0;
	}
	if (fd < 0)
		return (key->store_only ? store_fd >= 0 : !!shim.cache_dir[0]) &&
		       shim.helper[0] && file && file[0] && !quiet &&
		       may_spawn() ? 1 : -1;
	if (!quiet)
		shim_log("ustack-shim: %s: %s hit\n", file,
			 from_store ? "store" : "cache");
	if (!h.sframe_len) {	/* nothing SFrame can say for this object */
		close(fd);
		return -1;
	}
	if (from_store && shim.store_rw) {
		rc = store_add(devfd, key, fd, &h);
		shim_log("ustack-shim: %s: store add %s\n", file,
			 rc ? strerror(-rc) : "ok");
		if (!rc) {
			close(fd);
			o->stored = true;
			return 0;
		}
	}
	m = mmap(NULL, sizeof(h) + h.sframe_len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	o->map = m;
	o->maplen = sizeof(h) + h.sframe_len;
	o->sframe = (uint8_t *)m + sizeof(h);
	if (sframe_section_relocate((uint8_t *)o->sframe, h.sframe_len,
			       (int64_t)(o->base - (uintptr_t)o->sframe))) {
		munmap(m, o->maplen);
		o->map = NULL;
		o->sframe = NULL;
		return -1;
	}
	mprotect(m, o->maplen, PROT_READ);
	return 0;
}
