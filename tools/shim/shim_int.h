/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shim_int.h - what the shim's files share.  One concept per file:
 *   shim.c          the shim's life: start, the scan of the loaded objects,
 *                   dlopen and dlclose, fork
 *   shim_env.c      whose environment it is, which cache directories and
 *                   which helper to use, whether it may run now, the log
 *   shim_object.c   one loaded object: its text, its SFrame (its own, or an
 *                   entry's), its registration
 *   shim_entry.c    cache and store entries: named, trusted, mapped, or
 *                   registered for the file (STORE_ADD, root)
 *   shim_helper.c   the helper (`sframe-register gen`) that fills a missing
 *                   entry: started, bounded in time, one per entry
 *   libustack.c     the public C API (ustack.h): register, backtrace
 *   interp*.c       interpreter frames: the unwinders, the signal, the answer
 * Every symbol is hidden but the public API's (EXPORT) and dlopen/dlclose.
 */
#ifndef SHIM_INT_H
#define SHIM_INT_H

#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include "sframe_entry.h"
#include "sframe_store.h"

#define EXPORT __attribute__((visibility("default")))
#define SHIM_HIDDEN __attribute__((visibility("hidden")))

#define MAX_BUILD_ID 64
#ifndef HELPER_TIMEOUT_MS	/* tests build with a shorter one */
#define HELPER_TIMEOUT_MS 30000
#endif
#define SYSTEM_CACHE "/var/cache/ustack"

/* ---- shim_env.c: set once at start, read-only after ---------------------- */

struct shim_config {
	bool debug;		/* USTACK_SHIM_DEBUG: log to stderr */
	bool force;		/* USTACK_SHIM_FORCE: no /dev/sframe needed */
	bool secure;		/* set-id: PT_GNU_SFRAME only */
	bool trust_env;		/* not set-id, not root: USTACK_* apply */
	bool nogen;		/* no helper (also once one timed out) */
	bool sys_cache;		/* sys_dir is root's and usable */
	bool store_rw;		/* root: the store is ours to fill */
	char cache_dir[512];	/* this user's cache, "" if none */
	char sys_dir[512];	/* root's cache, read by other users */
	char helper[512];	/* sframe-register, "" if none */
	char store_dir[560];	/* the store (sframe_store.h) */
};
extern struct shim_config shim;

void shim_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Privileges and USTACK_* variables; false if USTACK_SHIM_OFF says so. */
bool shim_env_init(void);
/* Find the helper; false if this process is the helper itself. */
bool shim_helper_init(void);
/* The cache directories and the store's. */
void shim_dirs_init(void);
/* May a helper be started now (not told not to, not under seccomp)? */
bool may_spawn(void);

/* ---- shim_object.c ------------------------------------------------------- */

struct obj {
	uintptr_t base;		/* load bias */
	uintptr_t text_lo, text_hi;
	char *name;
	void *map;		/* cache mapping, or NULL */
	size_t maplen;
	const void *sframe;	/* registered section, or NULL */
	unsigned long gen;	/* its entry is being generated: a token */
	bool seen, vdso;
	bool stored;		/* STORE_ADDed: nothing to undo */
};

/*
 * Which cache entry serves an object: its build-id, and the identity of
 * the file it was made from (sframe_entry.h).  name is "<id>-<16 hex>".
 */
struct entry_key {
	char id[2 * MAX_BUILD_ID + 1];
	char name[2 * MAX_BUILD_ID + 18];
	struct cache_src src;
	/* the store's name for it (sframe_store.h), "" if none */
	char sname[STORE_NAME_MAX];
	bool need_src;		/* store entry: its identity compared */
	bool store_only;	/* root: the store, not the cache */
	char range[48];		/* its /proc/self/map_files name, or "" */
};

/* An object whose cache entry is generated after the scan, unlocked. */
struct pending {
	unsigned long gen;
	struct entry_key key;
	char file[600];
};

/* The SFrame length of the entry mapped for @o. */
static inline size_t entry_len(const struct obj *o)
{
	return ((const struct cache_hdr *)o->map)->sframe_len;
}

/*
 * Find and register the SFrame data of a newly seen object (@vdso: the
 * vDSO's address, if it is the vDSO).  Returns true when its cache entry
 * is to be generated first: @pd says which, for the scan to do once it
 * has dropped its lock.
 */
bool obj_setup(struct obj *o, const struct dl_phdr_info *info, int fd,
	       uintptr_t vdso, struct pending *pd);
void obj_register(struct obj *o, int fd, size_t len);
/* Unregister and unmap; an object registered with STORE_ADD stays. */
void obj_release(struct obj *o, int fd);

/* ---- shim_entry.c -------------------------------------------------------- */

/* The store for this scan (under the shim's lock): opened, closed. */
void store_begin(void);
void store_end(void);
/* The names and identity of @key, from the object's file @st. */
void entry_key_init(struct entry_key *key, const struct stat *st, bool vdso);
/*
 * Open the entry @name in @dir if it can be trusted: owned by @owner,
 * writable by nobody else, well-formed, made from the file @src.  The
 * descriptor with *@h filled, or -1.
 */
int entry_open(const char *dir, const char *name, uid_t owner,
	       const struct cache_src *src, struct cache_hdr *h);
/*
 * Map (or, root's store entries, STORE_ADD) the entry for @key: 0; or 1
 * on a miss that the helper may fill (then again with @quiet); else -1.
 */
int cache_map(struct obj *o, const struct entry_key *key, const char *file,
	      bool quiet, int devfd);

/* ---- shim_helper.c ------------------------------------------------------- */

/* Fill the entry for @key from @file: the helper, one per entry. */
void generate(const struct entry_key *key, const char *file);

#endif
