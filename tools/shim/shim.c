// SPDX-License-Identifier: GPL-2.0
/*
 * shim.c - libsframe-register.so: register every loaded object's SFrame
 * data with /dev/sframe, at start and after dlopen/dlclose.
 *
 * Per object (dl_iterate_phdr):
 *   - PT_GNU_SFRAME: the section is already mapped; register it in place.
 *   - else the per-user cache (sframe_entry.h), keyed by the GNU build-id read
 *     from the mapped PT_NOTE and by the identity of the object's file
 *     (device, inode, size, times).  On a miss, `sframe-register gen --cache`
 *     fills it: a separate process (posix_spawn, waited for), so the shim
 *     stays small (no libelf/libdw in every process) and a generator crash
 *     cannot take the program down.  The entry is mapped privately, its v3
 *     FDE start offsets are shifted for the load bias, and it is registered
 *     for the object's executable range.
 *
 * Following dlopen/dlclose: interposition, not rtld-audit.  An audit module
 * needs LD_AUDIT (it cannot come from /etc/ld.so.preload), runs in its own
 * link namespace with its own libc, and makes ld.so take its slower audited
 * paths; a preloaded dlopen/dlclose wrapper costs nothing until called.
 * The catch: glibc's dlopen finds the caller's object from its return
 * address (for DT_RUNPATH, DT_RPATH, $ORIGIN and the namespace), so calling
 * the real dlopen from a wrapper would change that lookup.  Our dlopen is
 * therefore an assembly stub: for a name with a '/' and no '$' (where the
 * caller plays no part), it calls shim_dlopen_full(), which calls the real
 * dlopen and then registers the new objects; for any other name it jumps to
 * the real dlopen with the caller's return address intact (dlopen_<arch>.S),
 * and the new objects are registered at the next dlopen or dlclose (dl_iterate_phdr's
 * adds/subs counters tell when something changed); not by
 * ustack_backtrace(), which must stay async-signal-safe.
 * Objects loaded by libc itself (NSS, iconv) are caught the same way.
 * The vDSO is handled like a file: its image is written to the cache
 * directory (<build-id>.vdso.so) for the helper.
 * dlclose: after the real one, objects that are gone are unregistered.
 *
 * Root's shim (uid = euid = 0) uses the system store instead, the one
 * ustackd keeps (sframe_store.h, /var/cache/ustack/sframe: the same names,
 * trust checks and atomic writes, from the same source): a file-backed
 * object's entry is looked up there (its helper writes a missing one with
 * `gen --store`), and registered with SFRAME_IOC_STORE_ADD for the very
 * file mapped (opened through /proc/self/map_files/), so every process
 * mapping that object is covered, not only this one; an object with an
 * entry keeps it (SFRAME_STORE_KEEP, store_add()).  Where STORE_ADD is
 * unavailable or refused (an older module, no CAP_SYS_ADMIN or
 * CAP_PERFMON, a full store) or the mapped file cannot be opened, the
 * entry is registered for this process as before; so is the vDSO, whose
 * image lives in /var/cache/ustack.  An object registered with STORE_ADD
 * stays registered when the process ends (ustackd --flush drops all).
 * Other users' shims read the store too (after root's cache): entries
 * they register for themselves.
 *
 * Silent and harmless: if /dev/sframe cannot be opened the shim does nothing
 * at all (no cache, no helper).  Nothing is printed unless USTACK_SHIM_DEBUG
 * is set; no error changes what the program sees (errno is preserved).
 *
 * Privileged processes ignore the environment: with `sudo -E`, or any other
 * way a user passes variables to a root process, USTACK_SFRAME_REGISTER
 * would run the user's program as root and USTACK_CACHE_DIR would feed it
 * the user's cache entries.  So every USTACK_* variable is ignored when
 * euid is 0 or differs from uid (or gid from egid, or AT_SECURE is set);
 * root (uid = euid = 0) then uses /var/cache/ustack and the helper found
 * at a fixed place (next to this library, or under the configured
 * prefix), owned by root and writable by nobody else.  Set-id processes
 * (AT_SECURE, or ids that differ) use PT_GNU_SFRAME only: no cache, no
 * helper.  In the helper itself (its executable is the helper) the shim
 * is off, which USTACK_SHIM_OFF=1 alone could not ensure for root.
 *
 * The helper is not started under seccomp (a sandbox could kill us for
 * it) nor with USTACK_SHIM_NOGEN=1; then only existing entries are used.
 * A program with a SIGCHLD handler sees the helper's exit (only on a miss).
 *
 * Environment (unprivileged processes only, see above):
 * USTACK_SHIM_OFF=1 (do nothing; set for the helper),
 * USTACK_SHIM_DEBUG=1 (log to stderr), USTACK_CACHE_DIR (another cache
 * directory, e.g. for tests), USTACK_SYSTEM_CACHE (another read-only
 * root-owned directory, with the store as its sframe/, instead of
 * /var/cache/ustack), USTACK_SHIM_FORCE=1 (tests: work
 * without /dev/sframe, registering nothing), USTACK_SFRAME_REGISTER (the
 * helper's path; default: next to this library, then the build tree's
 * ../sframe-register, ../bin,
 * USTACK_PREFIX/bin (the install prefix), /usr/local/bin, /usr/bin).
 *
 * This file: the shim's life (start, scan, dlopen/dlclose, fork); how the
 * others divide the rest of the work, shim_int.h says.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include "sframe_ioctl.h"
#include "shim_int.h"

static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static struct obj *objs;
static size_t nobjs, capobjs;
static unsigned long long last_adds, last_subs;
static int state;		/* 0 not started, 1 active, -1 off */

/* The entry of @pd is made: map and register it, if its object is there. */
static void pending_done(const struct pending *pd, int fd)
{
	for (size_t j = 0; j < nobjs; j++) {
		struct obj *o = &objs[j];

		if (o->gen != pd->gen)
			continue;
		o->gen = 0;
		if (!cache_map(o, &pd->key, pd->file, true, fd) && !o->stored)
			obj_register(o, fd, entry_len(o));
		return;
	}
}

/*
 * Generate the entries scan() found missing, without the lock: the helper
 * may take seconds, and a fork() in another thread meanwhile waits for
 * the lock (fork_prepare).  Then map and register each entry for its
 * object, if the object is still there (the token tells a dlclose and a
 * new dlopen at the same address apart).
 */
static void generate_pending(const struct pending *pd, size_t n)
{
	int fd;

	for (size_t i = 0; i < n; i++)
		generate(&pd[i].key, pd[i].file);
	pthread_mutex_lock(&lock);
	fd = sframe_dev_open();
	if (fd >= 0 || shim.force) {
		store_begin();
		for (size_t i = 0; i < n; i++)
			pending_done(&pd[i], fd);
		store_end();
	}
	if (fd >= 0)
		close(fd);
	pthread_mutex_unlock(&lock);
}

/* ---- scanning ---------------------------------------------------------- */

struct seen {
	struct dl_phdr_info *v;
	size_t n, cap;
	unsigned long long adds, subs;
	bool changed;
};

static int count_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct seen *s = data;

	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) +
		    sizeof(info->dlpi_subs)) {
		s->adds = info->dlpi_adds;
		s->subs = info->dlpi_subs;
		s->changed = s->adds != last_adds || s->subs != last_subs;
	} else {
		s->changed = true;
	}
	return 1;
}

static int collect_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct seen *s = data;

	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 64;
		struct dl_phdr_info *v = realloc(s->v, nc * sizeof(*v));

		if (!v)
			return 1;
		s->v = v;
		s->cap = nc;
	}
	s->v[s->n] = *info;
	/* the name may go away with the object; copy it now */
	s->v[s->n].dlpi_name = strdup(info->dlpi_name ? info->dlpi_name : "");
	if (!s->v[s->n].dlpi_name)
		return 1;
	s->n++;
	return 0;
}

/* The objects whose entries are to be generated after the scan. */
struct pendings {
	struct pending *v;
	size_t n;
};

/* An object seen before is marked seen: true.  False for a new one. */
static bool scan_known(const struct dl_phdr_info *info)
{
	for (size_t j = 0; j < nobjs; j++) {
		if (objs[j].base == info->dlpi_addr &&
		    !strcmp(objs[j].name, info->dlpi_name)) {
			objs[j].seen = true;
			return true;
		}
	}
	return false;
}

/*
 * A newly seen object: added to the table and set up (obj_setup()).  False
 * when the table cannot grow: the rest waits for the next scan.
 */
static bool scan_new(const struct dl_phdr_info *info, int fd, uintptr_t vdso,
		     struct pendings *pd)
{
	bool is_vdso = (vdso && info->dlpi_addr == vdso) ||
		       !strcmp(info->dlpi_name, "linux-vdso.so.1");
	struct pending p;
	struct obj *o;

	if (nobjs == capobjs) {
		size_t nc = capobjs ? capobjs * 2 : 32;
		struct obj *no = realloc(objs, nc * sizeof(*no));

		if (!no)
			return false;
		objs = no;
		capobjs = nc;
	}
	o = &objs[nobjs];
	memset(o, 0, sizeof(*o));
	o->base = info->dlpi_addr;
	o->name = strdup(info->dlpi_name);
	if (!o->name)
		return false;
	o->seen = true;
	if (obj_setup(o, info, fd, is_vdso ? vdso : 0, &p)) {
		struct pending *np = realloc(pd->v, (pd->n + 1) * sizeof(*np));

		if (np) {
			pd->v = np;
			pd->v[pd->n++] = p;
		} else {
			o->gen = 0;
		}
	}
	nobjs++;
	return true;
}

/* The objects no longer loaded: unregistered and dropped. */
static void scan_gone(int fd)
{
	for (size_t i = 0; i < nobjs;) {
		if (objs[i].seen) {
			i++;
			continue;
		}
		shim_log("ustack-shim: %s: gone, unregister\n", objs[i].name);
		obj_release(&objs[i], fd);
		objs[i] = objs[--nobjs];
	}
}

/*
 * Catch up with the loaded objects (@always: even if dl_iterate_phdr's
 * counters say nothing changed): set up the new ones, release the gone.
 */
static void scan(bool always)
{
	struct seen s = { 0 };
	uintptr_t vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	struct pendings pd = { 0 };
	int fd = -1, saved = errno;

	if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != 1)
		return;
	pthread_mutex_lock(&lock);
	dl_iterate_phdr(count_cb, &s);
	if (!always && !s.changed)
		goto out;
	dl_iterate_phdr(collect_cb, &s);
	fd = sframe_dev_open();
	if (fd < 0 && !shim.force)
		goto out;
	store_begin();
	for (size_t i = 0; i < nobjs; i++)
		objs[i].seen = false;
	for (size_t i = 0; i < s.n; i++)
		if (!scan_known(&s.v[i]) && !scan_new(&s.v[i], fd, vdso, &pd))
			break;
	scan_gone(fd);
	last_adds = s.adds;
	last_subs = s.subs;
	store_end();
out:
	if (fd >= 0)
		close(fd);
	for (size_t i = 0; i < s.n; i++)
		free((void *)s.v[i].dlpi_name);
	free(s.v);
	pthread_mutex_unlock(&lock);
	if (pd.n)
		generate_pending(pd.v, pd.n);
	free(pd.v);
	errno = saved;
}

/*
 * A fork while another thread scans must not leave the child's lock held.
 * The lock is never held while waiting for a helper or another process
 * (generate_pending), so fork() never waits for one.
 */
static void fork_prepare(void)
{
	pthread_mutex_lock(&lock);
}

static void fork_release(void)
{
	pthread_mutex_unlock(&lock);
}

__attribute__((constructor)) static void shim_init(void)
{
	int fd;

	if (!shim_env_init()) {
		state = -1;
		return;
	}
	fd = sframe_dev_open();
	if (fd < 0 && !shim.force) {
		shim_log("ustack-shim: /dev/sframe: %s: doing nothing\n",
			 strerror(-fd));
		state = -1;
		return;
	}
	if (fd >= 0)
		close(fd);
	if (!shim_helper_init()) {
		state = -1;
		return;
	}
	shim_dirs_init();
	pthread_atfork(fork_prepare, fork_release, fork_release);
	__atomic_store_n(&state, 1, __ATOMIC_RELEASE);
	scan(true);
}

/* ---- dlopen / dlclose ------------------------------------------------------ */

static void *(*real_dlopen)(const char *, int);
static int (*real_dlclose)(void *);

/* Called by the dlopen stub: catch up, resolve, choose the path. */
SHIM_HIDDEN void *shim_dlopen_prep(const char *file)
{
	if (!real_dlopen)
		real_dlopen = (void *(*)(const char *, int))
			      dlsym(RTLD_NEXT, "dlopen");
	if (state == 1)
		scan(false);
	/* 1: the caller does not matter for this name */
	return (void *)(uintptr_t)(file && strchr(file, '/') &&
				   !strchr(file, '$'));
}

SHIM_HIDDEN void *shim_dlopen_real(void)
{
	return (void *)real_dlopen;
}

SHIM_HIDDEN void *shim_dlopen_full(const char *file, int mode)
{
	void *h;

	if (!real_dlopen) {
		errno = ENOSYS;
		return NULL;
	}
	h = real_dlopen(file, mode);
	if (h && state == 1)
		scan(false);
	return h;
}

/* dlopen itself is the architecture's stub: dlopen_<arch>.S. */

EXPORT int dlclose(void *handle)
{
	int rc;

	if (!real_dlclose)
		real_dlclose = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
	if (!real_dlclose)
		return -1;
	/* catch up first: the object may have come from a tail-jumped dlopen */
	if (state == 1)
		scan(false);
	rc = real_dlclose(handle);
	if (state == 1)
		scan(false);
	return rc;
}
