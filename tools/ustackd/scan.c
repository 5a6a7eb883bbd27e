// SPDX-License-Identifier: GPL-2.0
/*
 * scan.c - every executable file mapping of every process (/proc/PID/maps):
 * each distinct object (device + inode) is opened through
 * /proc/PID/map_files/ (the exact file mapped, whatever the process's
 * mount namespace) and covered once; and --prepare's paths.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/sysmacros.h>
#include "ustackd.h"

/*
 * A miss names an object the kernel has no entry for.  For one registered
 * earlier: written to since (the kernel's key holds its size and ctime),
 * it is registered again at once; else the kernel lost the entry (a
 * flush, an entry dropped), and it is registered again at most once per
 * RECOVER_MS, so that a kernel that keeps refusing costs little.
 */
static bool lost_entry(const struct obj *o, const struct stat *st)
{
	struct cache_src now;

	if (o->state != OBJ_COVERED)
		return false;
	cache_src_of(&now, st);
	return memcmp(&now, &o->src, sizeof(now)) ||
	       now_ms() - o->when_ms >= RECOVER_MS;
}

/* One executable mapping [start, end) of @pid, of the object @dev/@ino. */
void cover_mapping(int pid, uint64_t start, uint64_t end, uint64_t dev,
		   uint64_t ino, const char *path, bool miss)
{
	char mf[96], link[512];
	struct obj *o, *a;
	struct stat st;
	bool again;
	int fd;

	o = tab_find(dev, ino);
	if (o && o->alias && (miss || !o->path || strcmp(path, o->path)))
		o = NULL;	/* which file it is, its file says */
	if (o && !(miss && o->state == OBJ_COVERED))
		return;
	snprintf(mf, sizeof(mf), "/proc/%d/map_files/%llx-%llx", pid,
		 (unsigned long long)start, (unsigned long long)end);
	fd = open(mf, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		/* gone (exited, unmapped): another process or miss brings it back */
		if (errno != ENOENT && errno != ESRCH && opt.verbose)
			logmsg("%s: %s", mf, strerror(errno));
		return;
	}
	if (!path) {
		ssize_t n = readlink(mf, link, sizeof(link) - 1);

		link[n > 0 ? n : 0] = '\0';
		path = n > 0 ? link : mf;
	}
	if (fstat(fd, &st)) {
		close(fd);
		return;
	}
	o = tab_find(st.st_dev, st.st_ino);
	again = o && miss && lost_entry(o, &st);
	if (again) {
		logmsg("%s: missed again: registering it again", path);
		cache_src_of(&o->src, &st);
		cover_fd(fd, &st, path, o, false);
	} else if (!o) {
		o = tab_add(st.st_dev, st.st_ino);
		if (!o) {
			static bool said;

			if (!said)
				logmsg("more than %d objects: the others are left out",
				       MAX_OBJECTS);
			said = true;
			close(fd);
			return;
		}
		cache_src_of(&o->src, &st);
		cover_fd(fd, &st, path, o, false);
	}
	/*
	 * The map's device may name the file otherwise than stat (btrfs):
	 * an alias spares the next scans opening it, for this path.
	 */
	if (st.st_dev != dev || st.st_ino != ino) {
		a = tab_find(dev, ino);
		if (!a && (a = tab_add(dev, ino)))
			a->alias = true;
		else if (a && (!a->alias || !a->path || strcmp(a->path, path)))
			a = NULL;
		if (a)
			set_state(a, o->state, path, o->what);
	}
	close(fd);
}

static void scan_pid(int pid)
{
	char p[64], *line = NULL;
	size_t cap = 0;
	int lines = 0;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/maps", pid);
	f = fopen(p, "re");
	if (!f)
		return;
	while (!stopping && lines++ < MAX_MAPS_LINES && getline(&line, &cap, f) > 0) {
		unsigned long long start, end, off, ino;
		unsigned int maj, min;
		char perms[8];
		int n = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end,
			   perms, &off, &maj, &min, &ino, &n) < 7)
			continue;
		if (perms[2] != 'x' || !ino)
			continue;
		line[strcspn(line, "\n")] = '\0';
		cover_mapping(pid, start, end, makedev(maj, min), ino,
			      n ? line + n : NULL, false);
	}
	free(line);
	fclose(f);
}

void scan_all(void)
{
	struct dirent *de;
	DIR *d = opendir("/proc");

	if (!d) {
		logmsg("/proc: %s", strerror(errno));
		return;
	}
	while (!stopping && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid == getpid())
			continue;
		scan_pid((int)pid);
		/*
		 * A scan of every process takes seconds on a busy machine: the
		 * misses of new objects are served meanwhile, each within an
		 * interval as between scans.
		 */
		if (registering && now_ms() - last_poll >= (uint64_t)opt.interval_ms)
			poll_misses();
	}
	closedir(d);
}

/* A directory's symbolic links are skipped (their targets are its files, or
 * not what was asked for); a PATH named on the command line is followed. */
static void prepare_one(int dirfd, const char *name, const char *path, int flags)
{
	struct stat st;
	struct obj *o;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | flags);
	if (fd < 0)
		return;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && !tab_find(st.st_dev, st.st_ino)) {
		o = tab_add(st.st_dev, st.st_ino);
		if (o)
			cover_fd(fd, &st, path, o, true);
	}
	close(fd);
}

void prepare_path(const char *path)
{
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (stat(path, &st)) {
		logmsg("%s: %s", path, strerror(errno));
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		prepare_one(AT_FDCWD, path, path, 0);
		return;
	}
	d = opendir(path);
	if (!d) {
		logmsg("%s: %s", path, strerror(errno));
		return;
	}
	while (!stopping && (de = readdir(d))) {
		char full[4096];

		if (de->d_name[0] == '.')
			continue;
		snprintf(full, sizeof(full), "%s/%s", path, de->d_name);
		prepare_one(dirfd(d), de->d_name, full, O_NOFOLLOW);
	}
	closedir(d);
}
