// SPDX-License-Identifier: GPL-2.0
/*
 * Covered before the first sample: the programs and libraries on disk.
 *
 * Once ustackd is ready (every running process covered), a preparer, a
 * child process at the lowest CPU and I/O priority, walks the system's
 * program and library directories and writes the store's entry of every
 * ELF object there that has none (SFrame from .eh_frame, by the same
 * generator, in its own bounded child), as `ustackd --prepare` does, and
 * registers it (STORE_ADD on the daemon's /dev/sframe, which it inherits):
 * a program started later finds its objects covered at its first sample.
 * It tells the daemon what it covered (identity, entry, path), which the
 * daemon enters in its table between its reads of the miss queue, with no
 * file opened and no child forked: the daemon never waits on the pass's
 * work.  A pass that finds the store complete (a restart, a reboot)
 * generates nothing and registers every entry again.
 *
 * SIGHUP (`systemctl reload ustackd`, which the package's dpkg trigger
 * runs when a package installs or upgrades files in those directories)
 * starts another pass once the current one ends: it covers the objects new
 * on disk, those replaced since (a new inode, or a changed size or time),
 * and skips the others.
 *
 * Bounds: the walk descends at most MAX_DEPTH directories, reads at most
 * MAX_ENTRIES directory entries a pass, and looks only at regular files
 * that are executable or named like a shared object (*.so, *.so.N); the
 * objects' table is ustackd's (MAX_OBJECTS).  The preparer is a fork of
 * the daemon: its table starts as the daemon's, so what is covered already
 * is not opened again.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "ustackd.h"

#define MAX_DEPTH	8
#define MAX_ENTRIES	1000000
#define MAX_PATH	4096
#define MAX_RECORD	(MAX_PATH + 256)	/* a path and what precedes it */
_Static_assert(STORE_NAME_MAX == 160 && MAX_RECORD == 4352,
	       "note_covered()'s field widths");

/* Where a system keeps its programs and libraries (a directory reached
 * twice, as /lib is /usr/lib on a merged /usr, is walked once). */
static const char *const roots[] = {
	"/usr/bin", "/usr/sbin", "/usr/libexec", "/usr/lib", "/usr/lib64",
	"/usr/local/bin", "/usr/local/sbin", "/usr/local/lib", "/usr/games",
	"/opt", "/bin", "/sbin", "/lib", "/lib64",
};
/* Directories under those that hold no user-space objects. */
static const char *const skipped[] = {
	"/usr/lib/modules", "/usr/lib/firmware", "/usr/lib/debug",
	"/lib/modules", "/lib/firmware", "/usr/lib/locale",
};

bool sysprep_off;			/* --no-system */
static volatile sig_atomic_t hup;	/* another pass asked for */
static pid_t child;			/* the preparer, or 0 */
static int pipe_fd = -1;		/* its paths, NUL-terminated */
static char buf[MAX_RECORD * 2];
static size_t buf_len;
static uint64_t pass_t0;
static struct {
	unsigned long registered, failed;
} pass;

void sysprep_on_hup(int sig)
{
	hup = 1;
}

/* ---- the preparer (the child) --------------------------------------------- */

/* The lowest priority there is, for CPU and I/O (ioprio_set(2): idle class). */
static void lowest_priority(void)
{
	setpriority(PRIO_PROCESS, 0, 19);
#ifdef SYS_ioprio_set
	syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, 0, 3 << 13 /* IDLE */);
#endif
}

static bool maybe_object(const char *name, const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_size >= 64 &&
	       (uint64_t)st->st_size <= MAX_OBJ_SIZE &&
	       ((st->st_mode & 0111) || strstr(name, ".so"));
}

/* One record to the daemon, NUL-terminated; none longer than MAX_RECORD. */
static void send_record(int out, const char *rec)
{
	size_t len = strlen(rec) + 1;

	if (len <= MAX_RECORD && write(out, rec, len) != (ssize_t)len)
		stopping = 1;	/* the daemon is gone */
}

/*
 * @o, covered: "+USER WHOSE SIZE MTIME MTIME_NS CTIME CTIME_NS DEV INO ENTRY
 * PATH", the path as shown (escaped: no blank in it).  The pass covers
 * files, not processes: WHOSE is the file's owner.
 */
static void send_covered(int out, const struct obj *o)
{
	char rec[MAX_RECORD];
	int n;

	n = snprintf(rec, sizeof(rec), "+%d %llu %llu %lld %lld %lld %lld %llu %llu %s %s",
		     o->user, (unsigned long long)o->whose, (unsigned long long)o->src.size,
		     (long long)o->src.mtime_sec, (long long)o->src.mtime_nsec,
		     (long long)o->src.ctime_sec, (long long)o->src.ctime_nsec,
		     (unsigned long long)o->dev, (unsigned long long)o->ino,
		     o->what, o->path);
	if (n > 0 && n < (int)sizeof(rec))
		send_record(out, rec);
}

/* Refused because its entry could not be written (a full or read-only
 * store): another pass tries again. */
static bool unwritten(const struct obj *o)
{
	return o->state == OBJ_REFUSED && o->what &&
	       strstr(o->what, "cannot write the store entry");
}

/* One file: prepared (entry written or found) and sent to the daemon. */
/*
 * Cover the object open on @fd (@o: its table entry, if it has one):
 * entered in the table, its source noted, its entry made or registered.
 * Return: its entry, or NULL (the table refused it).
 */
static struct obj *cover_file(int fd, const struct stat *st, const char *path,
			      struct obj *o)
{
	char shown[SHOWN_MAX];

	if (!o)
		o = tab_add(st->st_dev, st->st_ino, !store_trusted_object(st));
	if (o) {
		cache_src_of(&o->src, st);
		cover_fd(fd, st, path_shown(path, shown, sizeof(shown)), o, true);
	}
	return o;
}

static void prepare_file(int dirfd, const char *name, const char *path, int out)
{
	unsigned char magic[4];
	struct stat st;
	struct obj *o;
	int fd;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) || !maybe_object(name, &st))
		return;
	o = tab_find(st.st_dev, st.st_ino);
	if (o && o->alias)
		return;
	if (o && !unwritten(o)) {
		struct cache_src now;

		cache_src_of(&now, &st);
		if (!memcmp(&now, &o->src, sizeof(now)))
			return;		/* known, unchanged */
	}
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	fd = store_system_view(fd, path);
	if (pread(fd, magic, 4, 0) != 4 || memcmp(magic, "\177ELF", 4) ||
	    fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);	/* a script, data: not an object */
		return;
	}
	o = cover_file(fd, &st, path, o);
	if (o && o->state == OBJ_COVERED)
		send_covered(out, o);
	close(fd);
}

static bool skip_dir(const char *path)
{
	for (size_t i = 0; i < sizeof(skipped) / sizeof(skipped[0]); i++)
		if (!strcmp(path, skipped[i]))
			return true;
	return false;
}

/* The tree under @path, depth first, at most MAX_DEPTH levels. */
static void walk(const char *path, int depth, unsigned long *entries, int out)
{
	struct dirent *de;
	DIR *d;

	if (depth > MAX_DEPTH || skip_dir(path))
		return;
	d = opendir(path);
	if (!d)
		return;
	while (!stopping && (de = readdir(d)) && ++*entries <= MAX_ENTRIES) {
		char full[MAX_PATH];
		struct stat st;

		if (de->d_name[0] == '.' && (!de->d_name[1] ||
		    (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (snprintf(full, sizeof(full), "%s/%s", path, de->d_name) >= (int)sizeof(full))
			continue;
		if (de->d_type == DT_DIR ||
		    (de->d_type == DT_UNKNOWN && !fstatat(dirfd(d), de->d_name, &st,
							  AT_SYMLINK_NOFOLLOW) &&
		     S_ISDIR(st.st_mode)))
			walk(full, depth + 1, entries, out);
		else if (de->d_type == DT_REG || de->d_type == DT_UNKNOWN)
			prepare_file(dirfd(d), de->d_name, full, out);
	}
	closedir(d);
}

static int preparer(int out)
{
	struct { dev_t dev; ino_t ino; } seen[sizeof(roots) / sizeof(roots[0])];
	unsigned long entries = 0;
	size_t nseen = 0;
	char line[160];

	lowest_priority();
	/* one line for the pass (the daemon's), not one an object: -v for those */
	if (!opt.verbose) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null >= 0 && dup2(null, STDERR_FILENO) >= 0)
			close(null);
	}
	memset(&cnt, 0, sizeof(cnt));
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]) && !stopping; i++) {
		struct stat st;
		size_t j;

		if (stat(roots[i], &st) || !S_ISDIR(st.st_mode))
			continue;
		for (j = 0; j < nseen; j++)
			if (seen[j].dev == st.st_dev && seen[j].ino == st.st_ino)
				break;
		if (j < nseen)
			continue;
		seen[nseen].dev = st.st_dev;
		seen[nseen++].ino = st.st_ino;
		walk(roots[i], 0, &entries, out);
	}
	/* its counts, as the last record */
	snprintf(line, sizeof(line), "=%lu %lu %lu %lu %lu", cnt.covered,
		 cnt.generated, cnt.reused, cnt.own, cnt.refused);
	send_record(out, line);
	return stopping ? 1 : 0;
}

/* ---- the daemon's side ------------------------------------------------------ */

static void start_pass(void)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC)) {
		logmsg("system objects: pipe: %s", strerror(errno));
		return;
	}
	fflush(stderr);
	child = fork();
	if (child < 0) {
		logmsg("system objects: fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		child = 0;
		return;
	}
	if (!child) {
		close(p[0]);
		signal(SIGHUP, SIG_IGN);
		_exit(preparer(p[1]));
	}
	close(p[1]);
	pipe_fd = p[0];
	fcntl(pipe_fd, F_SETFL, O_NONBLOCK);
	buf_len = 0;
	memset(&pass, 0, sizeof(pass));
	pass_t0 = now_ms();
}

/* The store's entries and their size on disk. */
static void store_size(unsigned long *n, unsigned long long *bytes)
{
	struct dirent *de;
	int fd = openat(store_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);

	*n = 0;
	*bytes = 0;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.' ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode))
			continue;
		++*n;
		*bytes += (unsigned long long)st.st_blocks * 512;
	}
	closedir(d);
}

static void end_pass(const char *counts)
{
	unsigned long prepared = 0, gen = 0, reused = 0, own = 0, refused = 0, n;
	unsigned long long bytes;
	int status;

	close(pipe_fd);
	pipe_fd = -1;
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	child = 0;
	if (!counts || sscanf(counts, "=%lu %lu %lu %lu %lu", &prepared, &gen,
			      &reused, &own, &refused) != 5) {
		logmsg("system objects: the preparer stopped early (status %d)", status);
		return;
	}
	store_size(&n, &bytes);
	logmsg("system objects: %lu registered (%lu generated, %lu reused), %lu own .sframe, "
	       "%lu refused, in %llu ms; store: %lu files, %.1f MiB",
	       pass.registered, gen, reused, own, refused,
	       (unsigned long long)(now_ms() - pass_t0), n, bytes / 1048576.0);
	notify("STATUS=ready: %lu objects covered; store %.1f MiB", cnt.covered,
	       bytes / 1048576.0);
	status_dirty = true;
}

/*
 * One object the preparer covered (send_covered()): entered in the table
 * as covered, unless the daemon covered it meanwhile.
 */
static void note_covered(const char *rec)
{
	struct cache_src src = { 0 };
	char what[STORE_NAME_MAX], path[MAX_RECORD];
	struct obj *o;
	uint64_t whose;
	int user;

	if (sscanf(rec, "+%d %" SCNu64 " %" SCNu64 " %" SCNd64 " %" SCNd64 " %" SCNd64
		   " %" SCNd64 " %" SCNu64 " %" SCNu64 " %159s %4351s", &user, &whose,
		   &src.size, &src.mtime_sec, &src.mtime_nsec, &src.ctime_sec,
		   &src.ctime_nsec, &src.dev, &src.ino, what, path) != 11)
		return;
	o = tab_find(src.dev, src.ino);
	if (o && (o->alias ||
		  (o->state == OBJ_COVERED && !memcmp(&src, &o->src, sizeof(src)))))
		return;		/* a btrfs alias, or a miss covered it meanwhile */
	if (!o)
		o = tab_add(src.dev, src.ino, user);
	if (!o) {
		pass.failed++;
		return;
	}
	o->src = src;
	o->whose = whose;
	o->mapper = false;
	set_state(o, OBJ_COVERED, path, what);
	o->bytes = budget_entry(what);	/* (its owner's budget's) */
	cnt.covered++;
	pass.registered++;
}

void sysprep_start(void)
{
	hup = 1;
}

/*
 * Take the whole records read so far, until @end (each is a table entry,
 * microseconds; the budget bounds a pipe's worth all the same).  False
 * once the pass has ended.
 */
static bool take_paths(uint64_t end)
{
	bool going = true;
	char *p, *z;

	for (p = buf; (z = memchr(p, '\0', buf + buf_len - p)); p = z + 1) {
		if (*p == '=') {
			end_pass(p);
			going = false;
			break;
		}
		note_covered(p);
		if (now_ms() >= end) {
			p = z + 1;
			break;
		}
	}
	buf_len -= p - buf;
	memmove(buf, p, buf_len);
	if (buf_len == sizeof(buf) && !memchr(buf, '\0', buf_len))
		buf_len = 0;	/* no record is that long: drop it */
	return going;
}

bool sysprep_step(uint64_t budget_ms)
{
	uint64_t end = now_ms() + budget_ms;

	if (!child && hup && !stopping) {
		hup = 0;
		if (!sysprep_off)
			start_pass();
	}
	while (child && !stopping) {
		struct pollfd pfd = { .fd = pipe_fd, .events = POLLIN };
		uint64_t now;
		ssize_t n;

		if (!take_paths(end))
			return true;
		now = now_ms();
		if (now >= end)
			break;
		/* no whole record is left: the buffer has room */
		n = read(pipe_fd, buf + buf_len, sizeof(buf) - buf_len);
		if (n == 0) {
			end_pass(NULL);
			break;
		}
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR) {
				end_pass(NULL);
				break;
			}
			/* nothing yet: wait for it, within the budget */
			poll(&pfd, 1, (int)(end - now));
			continue;
		}
		buf_len += n;
	}
	return child != 0;
}

void sysprep_stop(void)
{
	if (!child)
		return;
	/* at once: a generation it waits for ends by itself (its own child) */
	kill(child, SIGKILL);
	close(pipe_fd);
	pipe_fd = -1;
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
	child = 0;
}
