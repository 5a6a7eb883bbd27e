// SPDX-License-Identifier: GPL-2.0
/*
 * scan.c - every executable file mapping of every process (/proc/PID/maps),
 * each covered by cover_mapping(); and --prepare's paths.  A scan of a
 * busy machine takes seconds: the miss queue is served meanwhile.
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

void scan_pid(int pid)
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
	scan_gen++;	/* what it meets is marked so (gc.c) */
	while (!stopping && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		/* (our own pid too: own.c covered it first, a rescan finds
		 * what it mapped since) */
		if (*end || pid <= 0)
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
	char shown[SHOWN_MAX];
	struct stat st;
	struct obj *o;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | flags);
	if (fd < 0)
		return;
	fd = store_system_view(fd, path);
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && !tab_find(st.st_dev, st.st_ino)) {
		o = tab_add(st.st_dev, st.st_ino, !store_trusted_object(&st));
		if (o)
			cache_src_of(&o->src, &st);
		if (o)
			cover_fd(fd, &st, path_shown(path, shown, sizeof(shown)),
				 o, true);
	}
	close(fd);
}

void prepare_path(const char *path)
{
	char shown[SHOWN_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (stat(path, &st)) {
		logmsg("%s: %s", path_shown(path, shown, sizeof(shown)),
		       strerror(errno));
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		prepare_one(AT_FDCWD, path, path, 0);
		return;
	}
	d = opendir(path);
	if (!d) {
		logmsg("%s: %s", path_shown(path, shown, sizeof(shown)),
		       strerror(errno));
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
