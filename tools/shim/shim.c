// SPDX-License-Identifier: GPL-2.0
/*
 * shim.c - libsframe-register.so: register every loaded object's SFrame
 * data with /dev/sframe, at start and after dlopen/dlclose.
 *
 * Per object (dl_iterate_phdr):
 *   - PT_GNU_SFRAME: the section is already mapped; register it in place.
 *   - else the per-user cache (cache_fmt.h), keyed by the GNU build-id read
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
 * the real dlopen with the caller's return address intact, and the new
 * objects are registered at the next dlopen or dlclose (dl_iterate_phdr's
 * adds/subs counters tell when something changed); not by
 * ustack_backtrace(), which must stay async-signal-safe.
 * Objects loaded by libc itself (NSS, iconv) are caught the same way.
 * The vDSO is handled like a file: its image is written to the cache
 * directory (<build-id>.vdso.so) for the helper.
 * dlclose: after the real one, objects that are gone are unregistered.
 *
 * Root's shim (uid = euid = 0) uses the system store instead, the one
 * ustackd keeps (store.h, /var/cache/ustack/sframe: the same entry names,
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
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "shim_int.h"
#include "sframe_entry.h"
#include "sframe_section.h"
#include "sframe_store.h"
#include "uapi/ustack.h"

#define EXPORT __attribute__((visibility("default")))
#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME 0x6474e554
#endif
#define MAX_BUILD_ID 64
#ifndef HELPER_TIMEOUT_MS	/* tests build with a shorter one */
#define HELPER_TIMEOUT_MS 30000
#endif
#define SYSTEM_CACHE "/var/cache/ustack"
#ifndef USTACK_PREFIX
#define USTACK_PREFIX "/usr"
#endif

extern char **environ;

struct obj {
	uintptr_t base;		/* load bias */
	uintptr_t text_lo, text_hi;
	char *name;
	void *map;		/* cache mapping, or NULL */
	size_t maplen;
	const void *sframe;	/* registered section, or NULL */
	unsigned long gen;	/* its entry is being generated: a token */
	bool seen, vdso;
	bool stored;		/* registered with STORE_ADD: nothing to undo */
};

/*
 * Which cache entry serves an object: its build-id, and the identity of
 * the file it was made from (cache_fmt.h).  name is "<id>-<16 hex>".
 */
struct entry_key {
	char id[2 * MAX_BUILD_ID + 1];
	char name[2 * MAX_BUILD_ID + 18];
	struct cache_src src;
	/* the store's name for it (store.h), "" if none */
	char sname[STORE_NAME_MAX];
	bool need_src;		/* the store entry's identity is compared */
	bool store_only;	/* root: the store, not the cache */
	char range[48];		/* its mapping in /proc/self/map_files, or "" */
};

/* An object whose cache entry is generated after the scan, unlocked. */
struct pending {
	unsigned long gen;
	struct entry_key key;
	char file[600];
};

static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static struct obj *objs;
static size_t nobjs, capobjs;
static unsigned long long last_adds, last_subs;
static unsigned long last_gen;
static int state;		/* 0 not started, 1 active, -1 off */
static bool debug, force, secure, trust_env, nogen, sys_cache;
static char cache_dir[512];
static char sys_dir[512] = SYSTEM_CACHE;
static char helper[512];
/* The store (store.h): written and STORE_ADDed by root, read by others. */
static char store_dir[560];
static bool store_rw;
static int store_fd = -1;	/* while the lock is held (store_begin) */

static void logf_(const char *fmt, ...)
{
	va_list ap;
	char buf[768];
	int n;

	if (!debug)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0) {
		if ((size_t)n >= sizeof(buf))
			n = sizeof(buf) - 1;
		if (write(2, buf, n) < 0)
			return;
	}
}

/* ---- environment ------------------------------------------------------ */

/*
 * Whose environment is this?  A process whose ids differ (set-id) or that
 * runs as root may have been given its variables by another user.
 */
static void init_privilege(void)
{
	uid_t uid = getuid(), euid = geteuid();

	secure = getauxval(AT_SECURE) || euid != uid || getegid() != getgid();
	trust_env = !secure && euid != 0;
}

static const char *env_get(const char *name)
{
	return trust_env ? getenv(name) : NULL;
}

static bool env_on(const char *name)
{
	const char *v = env_get(name);

	return v && *v && strcmp(v, "0");
}

/* Create @path (@mode) or accept it if it is ours and not writable by others. */
static int mkdir_owned(const char *path, mode_t mode)
{
	struct stat st;

	if (mkdir(path, mode) && errno != EEXIST)
		return -1;
	if (lstat(path, &st) || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 022))
		return -1;
	return 0;
}

/*
 * The per-user directory (see cache_fmt.h).  Root's is SYSTEM_CACHE, mode
 * 0755, which other users read as a second, read-only cache: daemons whose
 * user has no writable home still find the entries root's processes made.
 */
static void setup_cache_dir(void)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	const char *o = env_get("USTACK_CACHE_DIR");
	char parent[480];
	struct stat st;

	cache_dir[0] = 0;
	sys_cache = false;
	if (secure)
		return;
	if (o && o[0] == '/') {	/* tests: this directory only */
		snprintf(cache_dir, sizeof(cache_dir), "%s", o);
		if (mkdir_owned(cache_dir, 0700))
			cache_dir[0] = 0;
		return;
	}
	if (geteuid() == 0) {
		/* trust_env is false here: fixed places only */
		if (!mkdir_owned(SYSTEM_CACHE, 0755))
			snprintf(cache_dir, sizeof(cache_dir), "%s",
				 SYSTEM_CACHE);
		snprintf(store_dir, sizeof(store_dir), "%s", STORE_DEFAULT);
		store_rw = true;
		return;
	}
	o = env_get("USTACK_SYSTEM_CACHE");
	if (o && o[0] == '/')
		snprintf(sys_dir, sizeof(sys_dir), "%s", o);
	/* the store is "sframe" in the system cache (STORE_DEFAULT) */
	snprintf(store_dir, sizeof(store_dir), "%s/sframe", sys_dir);
	sys_cache = !lstat(sys_dir, &st) && S_ISDIR(st.st_mode) &&
		    st.st_uid == 0 && !(st.st_mode & 022);
	if (x && x[0] == '/') {
		snprintf(parent, sizeof(parent), "%s", x);
	} else if (home && home[0] == '/') {
		char h[480];

		snprintf(h, sizeof(h), "%s/.cache", home);
		if (mkdir(h, 0700) && errno != EEXIST)
			return;
		snprintf(parent, sizeof(parent), "%s", h);
	} else {
		return;
	}
	snprintf(cache_dir, sizeof(cache_dir), "%s/ustack", parent);
	if (mkdir_owned(cache_dir, 0700)) {
		logf_("ustack-shim: cache dir %s unusable\n", cache_dir);
		cache_dir[0] = 0;
	}
}

/*
 * A helper candidate.  Root runs it only if nobody but root could have
 * put it there: a regular file owned by root (or by us), not writable by
 * group or others.
 */
static bool try_helper(const char *dir, const char *rel)
{
	struct stat st;

	if (snprintf(helper, sizeof(helper), "%s%s", dir, rel) >=
	    (int)sizeof(helper))
		return false;
	if (access(helper, X_OK))
		return false;
	if (trust_env)
		return true;
	return !stat(helper, &st) && S_ISREG(st.st_mode) &&
	       (st.st_uid == 0 || st.st_uid == geteuid()) &&
	       !(st.st_mode & 022);
}

static void setup_helper(void)
{
	const char *e = env_get("USTACK_SFRAME_REGISTER");
	Dl_info di;
	char dir[400];

	helper[0] = 0;
	if (secure)
		return;
	if (e && *e) {
		snprintf(helper, sizeof(helper), "%s", e);
		return;
	}
	if (dladdr((void *)setup_helper, &di) && di.dli_fname &&
	    strchr(di.dli_fname, '/')) {
		char *slash;

		snprintf(dir, sizeof(dir), "%s", di.dli_fname);
		slash = strrchr(dir, '/');
		*slash = 0;
		if (try_helper(dir, "/sframe-register") ||
		    try_helper(dir, "/../sframe-register/sframe-register") ||
		    try_helper(dir, "/../bin/sframe-register") ||
		    try_helper(dir, "/../../bin/sframe-register"))
			return;
	}
	if (try_helper(USTACK_PREFIX, "/bin/sframe-register") ||
	    try_helper("", "/usr/local/bin/sframe-register") ||
	    try_helper("", "/usr/bin/sframe-register"))
		return;
	helper[0] = 0;
}

/* Are we the helper?  Then generating would recurse. */
static bool is_helper(void)
{
	struct stat a, b;

	return helper[0] && !stat("/proc/self/exe", &a) && !stat(helper, &b) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* ---- one object ---------------------------------------------------------- */

/*
 * Does @ph lie inside one readable PT_LOAD segment of the object?  ld.so
 * maps only PT_LOAD; PT_NOTE and PT_GNU_SFRAME are not checked by it, and
 * a malformed object's may point anywhere: reading them blindly would
 * crash the program that loaded it.
 */
static bool in_load(const struct dl_phdr_info *info, const ElfW(Phdr) *ph)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *l = &info->dlpi_phdr[i];

		if (l->p_type == PT_LOAD && (l->p_flags & PF_R) &&
		    ph->p_vaddr >= l->p_vaddr &&
		    ph->p_vaddr - l->p_vaddr <= l->p_memsz &&
		    ph->p_memsz <= l->p_memsz - (ph->p_vaddr - l->p_vaddr))
			return true;
	}
	return false;
}

static size_t mem_build_id(const struct dl_phdr_info *info, char *hex,
			   size_t hexlen)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *p, *end;

		if (ph->p_type != PT_NOTE || !in_load(info, ph))
			continue;
		p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (end - p >= (ptrdiff_t)sizeof(ElfW(Nhdr))) {
			ElfW(Nhdr) nh;
			size_t nsz, dsz;

			memcpy(&nh, p, sizeof(nh));
			nsz = (nh.n_namesz + 3) & ~3u;
			dsz = (nh.n_descsz + 3) & ~3u;
			if ((size_t)(end - p) - sizeof(nh) < nsz ||
			    (size_t)(end - p) - sizeof(nh) - nsz < dsz)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp(p + sizeof(nh), "GNU", 4) &&
			    nh.n_descsz && nh.n_descsz <= MAX_BUILD_ID &&
			    hexlen > 2 * nh.n_descsz) {
				const uint8_t *d = p + sizeof(nh) + nsz;

				for (size_t k = 0; k < nh.n_descsz; k++) {
					hex[2 * k] = "0123456789abcdef"[d[k] >> 4];
					hex[2 * k + 1] = "0123456789abcdef"[d[k] & 15];
				}
				hex[2 * nh.n_descsz] = 0;
				return nh.n_descsz;
			}
			p += sizeof(nh) + nsz + dsz;
		}
	}
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Run the helper to fill the entry @path (@how "--cache": a cache entry
 * path; "--store": the store's directory); waits for it.
 */
static void run_helper(const char *how, const char *path, const char *id,
		       const char *file)
{
	char *argv[] = { helper, "gen", (char *)how, (char *)path,
			 "--build-id", (char *)id, (char *)file, NULL };
	char **env;
	size_t n = 0, k = 0;
	pid_t pid;
	int st, pidfd;

	for (char **e = environ; e && *e; e++)
		n++;
	env = calloc(n + 2, sizeof(*env));
	if (!env)
		return;
	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, "LD_PRELOAD=", 11) &&
		    strncmp(*e, "USTACK_SHIM_", 12))
			env[k++] = *e;
	env[k++] = "USTACK_SHIM_OFF=1";
	env[k] = NULL;
	{
		posix_spawn_file_actions_t fa;
		int rc;

		/* the helper's own output must never reach the program's */
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		if (!debug)
			posix_spawn_file_actions_addopen(&fa, 2, "/dev/null",
							 O_WRONLY, 0);
		/*
		 * Nor may it hold the program's descriptors: a pipe's write end
		 * keeps its reader from seeing end of file, a flock or a
		 * listening socket outlives the program while it runs.
		 */
		posix_spawn_file_actions_addclosefrom_np(&fa, 3);
		rc = posix_spawn(&pid, helper, &fa, NULL, argv, env);
		posix_spawn_file_actions_destroy(&fa);
		free(env);
		if (rc)
			return;
	}
	/*
	 * A helper stuck on a bad file must not hang the program: 30 s from
	 * now, however many signals interrupt the wait (a profiling timer
	 * would otherwise restart it forever).
	 */
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd >= 0) {
		struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
		int64_t deadline = now_ms() + HELPER_TIMEOUT_MS, left;
		int rc;

		do {
			left = deadline - now_ms();
			rc = left > 0 ? poll(&pfd, 1, (int)left) : 0;
		} while (rc < 0 && errno == EINTR);
		if (rc == 0) {
			logf_("ustack-shim: %s: helper timed out\n", file);
			kill(pid, SIGKILL);
			/* not again in this process */
			__atomic_store_n(&nogen, true, __ATOMIC_RELAXED);
		}
		close(pidfd);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
}

/*
 * May we start the helper?  Not when told not to, and not under seccomp: a
 * sandbox (set up after start, e.g. before a later dlopen) may kill the
 * process for a fork or exec.
 */
static bool may_spawn(void)
{
	char buf[4096];
	const char *p;
	ssize_t n;
	int fd;

	if (__atomic_load_n(&nogen, __ATOMIC_RELAXED))
		return false;
	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	p = strstr(buf, "\nSeccomp:");
	if (!p)
		return true;	/* the kernel has no seccomp */
	p += strlen("\nSeccomp:");
	while (*p == ' ' || *p == '\t')
		p++;
	return *p == '0';
}

/*
 * Open the entry @name in @dir if it can be trusted: a regular file (not a
 * link) owned by @owner (us in our directory, root in the system one),
 * writable by nobody else, well-formed, and made from the very file @src
 * describes.  A build-id alone is chosen by whoever builds the object: a
 * forged one must not give its entry to the real object.
 */
static int entry_open(const char *dir, const char *name, uid_t owner,
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
	    (st.st_mode & 022) || (size_t)st.st_size < sizeof(*h) ||
	    pread(fd, h, sizeof(*h), 0) != (ssize_t)sizeof(*h) ||
	    memcmp(h->magic, CACHE_MAGIC, sizeof(h->magic)) ||
	    h->hdr_size != sizeof(*h) || h->sframe_version != CACHE_SFRAME_VERSION ||
	    h->sframe_vaddr != 0 ||
	    h->sframe_len > (uint64_t)st.st_size - sizeof(*h) ||
	    memcmp(&h->src, src, sizeof(*src))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Take <dir>/@name (a lock file), waiting a bounded time; -1 if none. */
static int lock_entry(int dirfd, const char *name)
{
	int lfd = openat(dirfd, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
			 0600);

	if (lfd >= 0) {
		/* bounded: a stopped lock holder must not stop us */
		for (int i = 0; i < HELPER_TIMEOUT_MS / 10; i++) {
			if (!flock(lfd, LOCK_EX | LOCK_NB))
				break;
			usleep(10000);
		}
	}
	return lfd;
}

/*
 * Root: fill the store entry for @key, as generate() does the cache's.
 * The lock is a dot file (never taken for an entry).  The helper names
 * the entry from the file it reads (store_entry_name()): if that is not
 * the file @key was made from, the entry it writes is another one.
 */
static void generate_store(const struct entry_key *key, const char *file)
{
	char err[256] = "", lock_name[STORE_NAME_MAX + 8];
	struct cache_hdr h;
	int dfd, lfd, fd;

	dfd = store_open(store_dir, err, sizeof(err));
	if (dfd < 0) {
		logf_("ustack-shim: store: %s\n", err[0] ? err : strerror(-dfd));
		return;
	}
	snprintf(lock_name, sizeof(lock_name), ".%s.lock", key->sname);
	lfd = lock_entry(dfd, lock_name);
	fd = store_get(dfd, key->sname, key->need_src ? &key->src : NULL, &h);
	if (fd < 0) {
		logf_("ustack-shim: %s: store miss, generating\n", file);
		run_helper("--store", store_dir, key->id, file);
	} else {
		close(fd);
	}
	if (lfd >= 0)
		close(lfd);
	close(dfd);
}

/*
 * Fill the entry for @key in cache_dir.  Processes starting together (a
 * build under /etc/ld.so.preload) take turns on <name>.lock, so one helper
 * runs per object and the others then find its entry.  Called without the
 * shim's lock held: this waits for other processes.
 */
static void generate(const struct entry_key *key, const char *file)
{
	char lock_path[700], path[700];
	struct cache_hdr h;
	int lfd, fd = -1;

	if (key->store_only) {
		generate_store(key, file);
		return;
	}
	if (snprintf(lock_path, sizeof(lock_path), "%s/%s.lock", cache_dir,
		     key->name) >= (int)sizeof(lock_path) ||
	    snprintf(path, sizeof(path), "%s/%s%s", cache_dir, key->name,
		     CACHE_SUFFIX) >= (int)sizeof(path))
		return;
	lfd = lock_entry(AT_FDCWD, lock_path);
	fd = entry_open(cache_dir, key->name, geteuid(), &key->src, &h);
	if (fd < 0) {
		logf_("ustack-shim: %s: cache miss, generating\n", file);
		run_helper("--cache", path, key->id, file);
	} else {
		logf_("ustack-shim: %s: cache hit (after waiting)\n", file);
		close(fd);
	}
	if (lfd >= 0)
		close(lfd);	/* drops the lock; the file stays */
}

/* Open the store for this scan; the shim's lock is held. */
static void store_begin(void)
{
	char err[256] = "";
	struct stat st;

	/* only root's creates the store's directories */
	if (!store_rw && (lstat(store_dir, &st) || !S_ISDIR(st.st_mode)))
		return;
	if (store_dir[0] && store_fd < 0) {
		store_fd = store_open(store_dir, err, sizeof(err));
		if (store_fd < 0 && store_rw)
			logf_("ustack-shim: store: %s\n",
			      err[0] ? err : strerror(-store_fd));
	}
}

static void store_end(void)
{
	if (store_fd >= 0)
		close(store_fd);
	store_fd = -1;
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
	int objfd, ret = 0, tries = 0;
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
	/* bounded: a profiling timer must not keep us here */
	while (!ret && ioctl(devfd, SFRAME_IOC_STORE_ADD, &r)) {
		ret = -errno;
		if (ret == -EINTR && ++tries < 16) {
			ret = 0;
		} else if (ret == -EINVAL && r.flags) {
			/* an older module; a bad request fails again */
			r.flags = 0;
			ret = 0;
			no_keep = true;
		}
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
static int cache_map(struct obj *o, const struct entry_key *key,
		     const char *file, bool quiet, int devfd)
{
	bool from_store = false;
	struct cache_hdr h;
	void *m;
	int fd = -1, rc;

	if (!key->store_only) {
		fd = entry_open(cache_dir, key->name, geteuid(), &key->src, &h);
		if (fd < 0 && sys_cache)
			fd = entry_open(sys_dir, key->name, 0, &key->src, &h);
	}
	if (fd < 0 && key->sname[0] && store_fd >= 0) {
		fd = store_get(store_fd, key->sname,
			       key->need_src ? &key->src : NULL, &h);
		from_store = fd >= 0;
	}
	if (fd < 0)
		return (key->store_only ? store_fd >= 0 : cache_dir[0] != 0) &&
		       helper[0] && file && file[0] && !quiet &&
		       may_spawn() ? 1 : -1;
	if (!quiet)
		logf_("ustack-shim: %s: %s hit\n", file,
		      from_store ? "store" : "cache");
	if (!h.sframe_len) {	/* nothing SFrame can say for this object */
		close(fd);
		return -1;
	}
	if (from_store && store_rw) {
		rc = store_add(devfd, key, fd, &h);
		logf_("ustack-shim: %s: store add %s\n", file,
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
	if (shim_sframe_relocate((uint8_t *)o->sframe, h.sframe_len,
			       (int64_t)(o->base - (uintptr_t)o->sframe))) {
		munmap(m, o->maplen);
		o->map = NULL;
		o->sframe = NULL;
		return -1;
	}
	mprotect(m, o->maplen, PROT_READ);
	return 0;
}

/* An object registered with STORE_ADD stays: other processes map it. */
static void obj_release(struct obj *o, int fd)
{
	if (o->sframe && fd >= 0)
		shim_dev_unregister(fd, o->sframe);
	if (o->map)
		munmap(o->map, o->maplen);
	free(o->name);
	memset(o, 0, sizeof(*o));
}

/*
 * The vDSO has no file: write its image (the whole ELF file is mapped,
 * section headers included) next to the cache entries as <id>.vdso.so, so
 * the helper can read it.  Returns the path, or NULL.
 */
static const char *vdso_file(uintptr_t vdso, const char *id, char *path,
			     size_t len)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)vdso;
	size_t size;
	char tmp[760];
	int fd, ok;

	if (!cache_dir[0] ||
	    snprintf(path, len, "%s/%s.vdso.so", cache_dir, id) >= (int)len)
		return NULL;
	/* no helper will run: the entry may still be there */
	if (!access(path, R_OK) || !may_spawn())
		return path;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_shentsize != sizeof(ElfW(Shdr)) || eh->e_shoff > (1u << 20) ||
	    eh->e_shnum > 256)
		return NULL;
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	ok = write(fd, eh, size) == (ssize_t)size;
	ok = !close(fd) && ok && !rename(tmp, path);
	if (!ok) {
		unlink(tmp);
		return NULL;
	}
	return path;
}

static const char *obj_label(const struct obj *o)
{
	return o->vdso ? "[vdso]" : o->name[0] ? o->name : "[main]";
}

static void obj_register(struct obj *o, int fd, size_t len)
{
	int rc;

	if (fd < 0) {
		logf_("ustack-shim: %s: ready, no device\n", obj_label(o));
		return;
	}
	rc = shim_dev_register(fd, o->sframe, len, (void *)o->text_lo,
			       (void *)o->text_hi);
	logf_("ustack-shim: %s: register %s\n", obj_label(o),
	      rc ? strerror(-rc) : "ok");
}

/*
 * The mapping that holds @addr, as "<start>-<end>": its name in
 * /proc/self/map_files/.  Bounded by the size of the maps file, read in
 * pieces (a process may have very many mappings).
 */
static bool find_mapping(uintptr_t addr, char *range, size_t len)
{
	char buf[4096];
	size_t have = 0;
	bool found = false;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	for (int reads = 0; reads < (1 << 16) && !found; reads++) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *p = buf, *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += n;
		buf[have] = 0;
		while ((nl = strchr(p, '\n'))) {
			unsigned long lo, hi;

			*nl = 0;
			if (sscanf(p, "%lx-%lx", &lo, &hi) == 2 &&
			    addr >= lo && addr < hi) {
				snprintf(range, len, "%lx-%lx", lo, hi);
				found = true;
				break;
			}
			p = nl + 1;
		}
		have -= p - buf;
		memmove(buf, p, have);
		if (have == sizeof(buf) - 1)	/* one line longer than buf */
			have = 0;
	}
	close(fd);
	return found;
}

/*
 * Find and register the SFrame data of a newly seen object.  Returns true
 * when its cache entry is to be generated first: @pd says which, for
 * scan() to do once it has dropped the lock.
 */
static bool obj_setup(struct obj *o, const struct dl_phdr_info *info, int fd,
		      uintptr_t vdso, struct pending *pd)
{
	const char *label;
	const ElfW(Phdr) *sf = NULL;
	struct entry_key key;
	size_t len = 0;
	struct stat st;
	int rc;

	o->vdso = vdso != 0;
	label = obj_label(o);

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
			uintptr_t hi = lo + ph->p_memsz;

			if (!o->text_hi || lo < o->text_lo)
				o->text_lo = lo;
			if (hi > o->text_hi)
				o->text_hi = hi;
		} else if (ph->p_type == PT_GNU_SFRAME) {
			if (in_load(info, ph))
				sf = ph;
			else
				logf_("ustack-shim: %s: PT_GNU_SFRAME outside "
				      "PT_LOAD, ignored\n", label);
		}
	}
	if (!o->text_hi)
		return false;
	if (sf) {
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr +
						     sf->p_vaddr);

		len = shim_sframe_len(p, sf->p_memsz);
		if (len) {
			o->sframe = p;
			logf_("ustack-shim: %s: PT_GNU_SFRAME v%u\n", label,
			      p[2]);
		}
	}
	if (!o->sframe && !secure) {
		char exe[600];
		const char *file = o->name;

		if (vdso) {
			file = NULL;	/* after the build-id, below */
		} else if (!file[0]) {
			ssize_t n = readlink("/proc/self/exe", exe,
					     sizeof(exe) - 1);

			if (n <= 0)
				return false;
			exe[n] = 0;
			file = exe;
		}
		if (!mem_build_id(info, key.id, sizeof(key.id))) {
			logf_("ustack-shim: %s: no build-id\n", label);
			return false;
		}
		if (vdso) {
			file = vdso_file(vdso, key.id, exe, sizeof(exe));
			if (!file)
				return false;
		}
		key.range[0] = 0;
		if (!vdso && store_rw &&
		    find_mapping(o->text_lo, key.range, sizeof(key.range))) {
			/* the very file mapped, for STORE_ADD and the helper */
			char mf[sizeof(key.range) + 40];
			int mfd;

			snprintf(mf, sizeof(mf), "/proc/self/map_files/%s",
				 key.range);
			mfd = open(mf, O_RDONLY | O_CLOEXEC | O_NONBLOCK |
				   O_NOCTTY);
			if (mfd >= 0 && !fstat(mfd, &st) &&
			    S_ISREG(st.st_mode)) {
				snprintf(exe, sizeof(exe),
					 "/proc/%d/map_files/%s",
					 (int)getpid(), key.range);
				file = exe;
			} else {
				key.range[0] = 0;
			}
			if (mfd >= 0)
				close(mfd);
		}
		if (!key.range[0] && stat(file, &st))
			return false;
		cache_src_of(&key.src, &st);
		snprintf(key.name, sizeof(key.name), "%s-%016llx", key.id,
			 (unsigned long long)cache_src_hash(&key.src));
		key.sname[0] = 0;
		key.need_src = false;
		if (!vdso && store_dir[0] &&
		    store_entry_name(-1, &st, key.id, key.sname,
				     sizeof(key.sname), &key.need_src))
			key.sname[0] = 0;
		/* a store root cannot open (not root's): the cache, as before */
		key.store_only = store_rw && key.sname[0] && store_fd >= 0;
		rc = cache_map(o, &key, file, false, fd);
		if (rc == 1 && strlen(file) < sizeof(pd->file)) {
			o->gen = pd->gen = ++last_gen;
			pd->key = key;
			strcpy(pd->file, file);
			return true;
		}
		if (rc || o->stored)
			return false;
		len = ((const struct cache_hdr *)o->map)->sframe_len;
	}
	if (o->sframe)
		obj_register(o, fd, len);
	return false;
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
	fd = shim_dev_open();
	if (fd >= 0 || force) {
		store_begin();
		for (size_t i = 0; i < n; i++) {
			for (size_t j = 0; j < nobjs; j++) {
				struct obj *o = &objs[j];

				if (o->gen != pd[i].gen)
					continue;
				o->gen = 0;
				if (!cache_map(o, &pd[i].key, pd[i].file, true,
					       fd) && !o->stored)
					obj_register(o, fd, ((const struct cache_hdr *)
							     o->map)->sframe_len);
				break;
			}
		}
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

static void scan(bool always)
{
	struct seen s = { 0 };
	uintptr_t vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	struct pending *pd = NULL;
	size_t npd = 0;
	int fd = -1, saved = errno;

	if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != 1)
		return;
	pthread_mutex_lock(&lock);
	dl_iterate_phdr(count_cb, &s);
	if (!always && !s.changed)
		goto out;
	dl_iterate_phdr(collect_cb, &s);
	fd = shim_dev_open();
	if (fd < 0 && !force)
		goto out;
	store_begin();
	for (size_t i = 0; i < nobjs; i++)
		objs[i].seen = false;
	for (size_t i = 0; i < s.n; i++) {
		const struct dl_phdr_info *info = &s.v[i];
		size_t j;

		bool is_vdso = (vdso && info->dlpi_addr == vdso) ||
			       !strcmp(info->dlpi_name, "linux-vdso.so.1");
		for (j = 0; j < nobjs; j++)
			if (objs[j].base == info->dlpi_addr &&
			    !strcmp(objs[j].name, info->dlpi_name))
				break;
		if (j < nobjs) {
			objs[j].seen = true;
			continue;
		}
		if (nobjs == capobjs) {
			size_t nc = capobjs ? capobjs * 2 : 32;
			struct obj *no = realloc(objs, nc * sizeof(*no));

			if (!no)
				break;
			objs = no;
			capobjs = nc;
		}
		memset(&objs[nobjs], 0, sizeof(objs[nobjs]));
		objs[nobjs].base = info->dlpi_addr;
		objs[nobjs].name = strdup(info->dlpi_name);
		if (!objs[nobjs].name)
			break;
		objs[nobjs].seen = true;
		{
			struct pending p;

			if (obj_setup(&objs[nobjs], info, fd, is_vdso ? vdso : 0,
				      &p)) {
				struct pending *np = realloc(pd, (npd + 1) *
							     sizeof(*np));

				if (np) {
					pd = np;
					pd[npd++] = p;
				} else {
					objs[nobjs].gen = 0;
				}
			}
		}
		nobjs++;
	}
	for (size_t i = 0; i < nobjs;) {
		if (objs[i].seen) {
			i++;
			continue;
		}
		logf_("ustack-shim: %s: gone, unregister\n", objs[i].name);
		obj_release(&objs[i], fd);
		objs[i] = objs[--nobjs];
	}
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
	if (npd)
		generate_pending(pd, npd);
	free(pd);
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

	init_privilege();
	if (env_on("USTACK_SHIM_OFF")) {
		state = -1;
		return;
	}
	debug = env_on("USTACK_SHIM_DEBUG");
	force = env_on("USTACK_SHIM_FORCE");
	nogen = env_on("USTACK_SHIM_NOGEN");
	fd = shim_dev_open();
	if (fd < 0 && !force) {
		logf_("ustack-shim: /dev/sframe: %s: doing nothing\n",
		      strerror(-fd));
		state = -1;
		return;
	}
	if (fd >= 0)
		close(fd);
	setup_helper();
	if (is_helper()) {
		state = -1;
		return;
	}
	setup_cache_dir();
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

/*
 * dlopen(file, mode): prep(file); full() if it returned 1, else a tail jump
 * to the real dlopen with the caller's return address on the stack.
 */
asm(".text\n"
    ".globl dlopen\n"
    ".type dlopen, @function\n"
    "dlopen:\n"
    "	.cfi_startproc\n"
    "	pushq %rdi\n"
    "	.cfi_def_cfa_offset 16\n"
    "	pushq %rsi\n"
    "	.cfi_def_cfa_offset 24\n"
    "	subq $8, %rsp\n"
    "	.cfi_def_cfa_offset 32\n"
    "	call shim_dlopen_prep\n"
    "	movq %rax, (%rsp)\n"
    "	call shim_dlopen_real\n"
    "	movq %rax, %r11\n"
    "	movq (%rsp), %rax\n"
    "	addq $8, %rsp\n"
    "	.cfi_def_cfa_offset 24\n"
    "	popq %rsi\n"
    "	.cfi_def_cfa_offset 16\n"
    "	popq %rdi\n"
    "	.cfi_def_cfa_offset 8\n"
    "	testq %rax, %rax\n"
    "	jnz shim_dlopen_full\n"
    "	testq %r11, %r11\n"
    "	jz shim_dlopen_full\n"
    "	jmp *%r11\n"
    "	.cfi_endproc\n"
    ".size dlopen, .-dlopen\n");

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
