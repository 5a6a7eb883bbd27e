// SPDX-License-Identifier: GPL-2.0
/*
 * shim_helper.c - the helper that fills a missing entry: `sframe-register
 * gen --cache` (or `--store`, root), a separate process (posix_spawn,
 * waited for), so the shim stays small (no libelf/libdw in every process)
 * and a generator crash cannot take the program down.  Processes starting
 * together take turns on the entry's lock file, so one helper runs per
 * object; a helper stuck on a bad file is killed after HELPER_TIMEOUT_MS.
 * Not started under seccomp, nor with USTACK_SHIM_NOGEN=1.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "shim_int.h"

extern char **environ;

static int64_t clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The program's environment without the shim: LD_PRELOAD and USTACK_SHIM_*
 * dropped, USTACK_SHIM_OFF=1 added.  Free the array, not the strings. */
static char **helper_env(void)
{
	size_t n = 0, k = 0;
	char **env;

	for (char **e = environ; e && *e; e++)
		n++;
	env = calloc(n + 2, sizeof(*env));
	if (!env)
		return NULL;
	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, "LD_PRELOAD=", 11) &&
		    strncmp(*e, "USTACK_SHIM_", 12))
			env[k++] = *e;
	env[k++] = "USTACK_SHIM_OFF=1";
	env[k] = NULL;
	return env;
}

/* Start the helper with @argv: its pid, or -1. */
static pid_t spawn_helper(char **argv)
{
	posix_spawn_file_actions_t fa;
	char **env = helper_env();
	pid_t pid;
	int rc;

	if (!env)
		return -1;
	/* the helper's own output must never reach the program's */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (!shim.debug)
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null",
						 O_WRONLY, 0);
	/*
	 * Nor may it hold the program's descriptors: a pipe's write end
	 * keeps its reader from seeing end of file, a flock or a listening
	 * socket outlives the program while it runs.
	 */
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	rc = posix_spawn(&pid, shim.helper, &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	return rc ? -1 : pid;
}

/*
 * Wait for the helper @pid.  One stuck on a bad file must not hang the
 * program: it is killed HELPER_TIMEOUT_MS from now, however many signals
 * interrupt the wait (a profiling timer would otherwise restart it for
 * ever), and no helper runs again in this process.
 */
static void wait_helper(pid_t pid, const char *file)
{
	int st, pidfd = (int)syscall(SYS_pidfd_open, pid, 0);

	if (pidfd >= 0) {
		struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
		int64_t deadline = clock_ms() + HELPER_TIMEOUT_MS, left;
		int rc;

		do {
			left = deadline - clock_ms();
			rc = left > 0 ? poll(&pfd, 1, (int)left) : 0;
		} while (rc < 0 && errno == EINTR);
		if (rc == 0) {
			shim_log("ustack-shim: %s: helper timed out\n", file);
			kill(pid, SIGKILL);
			__atomic_store_n(&shim.nogen, true, __ATOMIC_RELAXED);
		}
		close(pidfd);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
}

/*
 * Run the helper to fill the entry @path (@how "--cache": a cache entry
 * path; "--store": the store's directory); waits for it.
 */
static void run_helper(const char *how, const char *path, const char *id,
		       const char *file)
{
	char *argv[] = { shim.helper, "gen", (char *)how, (char *)path,
			 "--build-id", (char *)id, (char *)file, NULL };
	pid_t pid = spawn_helper(argv);

	if (pid > 0)
		wait_helper(pid, file);
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

	dfd = store_open(shim.store_dir, err, sizeof(err));
	if (dfd < 0) {
		shim_log("ustack-shim: store: %s\n",
			 err[0] ? err : strerror(-dfd));
		return;
	}
	snprintf(lock_name, sizeof(lock_name), ".%s.lock", key->sname);
	lfd = lock_entry(dfd, lock_name);
	fd = store_get(dfd, key->sname, key->need_src ? &key->src : NULL, &h);
	if (fd < 0) {
		shim_log("ustack-shim: %s: store miss, generating\n", file);
		run_helper("--store", shim.store_dir, key->id, file);
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
void generate(const struct entry_key *key, const char *file)
{
	char lock_path[700], path[700];
	struct cache_hdr h;
	int lfd, fd = -1;

	if (key->store_only) {
		generate_store(key, file);
		return;
	}
	if (snprintf(lock_path, sizeof(lock_path), "%s/%s.lock", shim.cache_dir,
		     key->name) >= (int)sizeof(lock_path) ||
	    snprintf(path, sizeof(path), "%s/%s%s", shim.cache_dir, key->name,
		     CACHE_SUFFIX) >= (int)sizeof(path))
		return;
	lfd = lock_entry(AT_FDCWD, lock_path);
	fd = entry_open(shim.cache_dir, key->name, geteuid(), &key->src, &h);
	if (fd < 0) {
		shim_log("ustack-shim: %s: cache miss, generating\n", file);
		run_helper("--cache", path, key->id, file);
	} else {
		shim_log("ustack-shim: %s: cache hit (after waiting)\n", file);
		close(fd);
	}
	if (lfd >= 0)
		close(lfd);	/* drops the lock; the file stays */
}
