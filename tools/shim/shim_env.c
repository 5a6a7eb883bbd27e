// SPDX-License-Identifier: GPL-2.0
/*
 * shim_env.c - whose environment this is, and what follows from it: which
 * USTACK_* variables apply, which cache directories, which helper.
 *
 * Privileged processes ignore the environment (see shim.c): with `sudo
 * -E`, or any other way a user passes variables to a root process,
 * USTACK_SFRAME_REGISTER would run the user's program as root and
 * USTACK_CACHE_DIR would feed it the user's cache entries.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include "shim_int.h"

#ifndef USTACK_PREFIX
#define USTACK_PREFIX "/usr"
#endif

struct shim_config shim = { .sys_dir = SYSTEM_CACHE };

void shim_log(const char *fmt, ...)
{
	va_list ap;
	char buf[768];
	int n;

	if (!shim.debug)
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

/*
 * Whose environment is this?  A process whose ids differ (set-id) or that
 * runs as root may have been given its variables by another user.
 */
static void init_privilege(void)
{
	uid_t uid = getuid(), euid = geteuid();

	shim.secure = getauxval(AT_SECURE) || euid != uid ||
		      getegid() != getgid();
	shim.trust_env = !shim.secure && euid != 0;
}

static const char *env_get(const char *name)
{
	return shim.trust_env ? getenv(name) : NULL;
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
 * The per-user directory (see sframe_entry.h).  Root's is SYSTEM_CACHE, mode
 * 0755, which other users read as a second, read-only cache: daemons whose
 * user has no writable home still find the entries root's processes made.
 */
static void setup_cache_dir(void)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	const char *o = env_get("USTACK_CACHE_DIR");
	char parent[480];
	struct stat st;

	shim.cache_dir[0] = 0;
	shim.sys_cache = false;
	if (shim.secure)
		return;
	if (o && o[0] == '/') {	/* tests: this directory only */
		snprintf(shim.cache_dir, sizeof(shim.cache_dir), "%s", o);
		if (mkdir_owned(shim.cache_dir, 0700))
			shim.cache_dir[0] = 0;
		return;
	}
	if (geteuid() == 0) {
		/* trust_env is false here: fixed places only */
		if (!mkdir_owned(SYSTEM_CACHE, 0755))
			snprintf(shim.cache_dir, sizeof(shim.cache_dir), "%s",
				 SYSTEM_CACHE);
		snprintf(shim.store_dir, sizeof(shim.store_dir), "%s",
			 STORE_DEFAULT);
		shim.store_rw = true;
		return;
	}
	o = env_get("USTACK_SYSTEM_CACHE");
	if (o && o[0] == '/')
		snprintf(shim.sys_dir, sizeof(shim.sys_dir), "%s", o);
	/* the store is "sframe" in the system cache (STORE_DEFAULT) */
	snprintf(shim.store_dir, sizeof(shim.store_dir), "%s/sframe",
		 shim.sys_dir);
	shim.sys_cache = !lstat(shim.sys_dir, &st) && S_ISDIR(st.st_mode) &&
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
	snprintf(shim.cache_dir, sizeof(shim.cache_dir), "%s/ustack", parent);
	if (mkdir_owned(shim.cache_dir, 0700)) {
		shim_log("ustack-shim: cache dir %s unusable\n",
			 shim.cache_dir);
		shim.cache_dir[0] = 0;
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

	if (snprintf(shim.helper, sizeof(shim.helper), "%s%s", dir, rel) >=
	    (int)sizeof(shim.helper))
		return false;
	if (access(shim.helper, X_OK))
		return false;
	if (shim.trust_env)
		return true;
	return !stat(shim.helper, &st) && S_ISREG(st.st_mode) &&
	       (st.st_uid == 0 || st.st_uid == geteuid()) &&
	       !(st.st_mode & 022);
}

static void setup_helper(void)
{
	const char *e = env_get("USTACK_SFRAME_REGISTER");
	Dl_info di;
	char dir[400];

	shim.helper[0] = 0;
	if (shim.secure)
		return;
	if (e && *e) {
		snprintf(shim.helper, sizeof(shim.helper), "%s", e);
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
	shim.helper[0] = 0;
}

/* Are we the helper?  Then generating would recurse. */
static bool is_helper(void)
{
	struct stat a, b;

	return shim.helper[0] && !stat("/proc/self/exe", &a) &&
	       !stat(shim.helper, &b) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/*
 * May we start the helper?  Not when told not to, and not under seccomp: a
 * sandbox (set up after start, e.g. before a later dlopen) may kill the
 * process for a fork or exec.
 */
bool may_spawn(void)
{
	char buf[4096];
	const char *p;
	ssize_t n;
	int fd;

	if (__atomic_load_n(&shim.nogen, __ATOMIC_RELAXED))
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

bool shim_env_init(void)
{
	init_privilege();
	if (env_on("USTACK_SHIM_OFF"))
		return false;
	shim.debug = env_on("USTACK_SHIM_DEBUG");
	shim.force = env_on("USTACK_SHIM_FORCE");
	shim.nogen = env_on("USTACK_SHIM_NOGEN");
	return true;
}

bool shim_helper_init(void)
{
	setup_helper();
	return !is_helper();
}

void shim_dirs_init(void)
{
	setup_cache_dir();
}
