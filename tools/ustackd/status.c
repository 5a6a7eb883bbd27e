// SPDX-License-Identifier: GPL-2.0
/* status.c - ustackd's log, its status file in the store, and --status. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>
#include "ustackd.h"

#define STATUS_NAME	"status"

void logmsg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("ustackd: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/*
 * Every path is a name a user chose (a file it mapped): escaped, no name
 * can end a line or split a field of the log or the status file, and so
 * none can forge a line of its own ("x\ncovered 8:1:131 /usr/lib/...").
 */
const char *path_shown(const char *path, char *out, size_t outlen)
{
	size_t n = 0;

	for (; *path && n + 5 <= outlen; path++) {
		unsigned char c = *path;

		if (c < 0x21 || c == 0x7f || c == '\\')
			n += snprintf(out + n, outlen - n, "\\%03o", c);
		else
			out[n++] = c;
	}
	out[n] = '\0';
	return out;
}

/* The peak resident memory of the daemon and of its largest generator, KiB. */
void log_rss(void)
{
	struct rusage self, gen;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &gen);
	logmsg("max RSS %ld KiB, generator %ld KiB", self.ru_maxrss, gen.ru_maxrss);
}

void write_status(const char *phase)
{
	char tmp[64];
	FILE *f;
	int fd;

	snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", STATUS_NAME, (int)getpid());
	unlinkat(store_fd, tmp, 0);
	fd = openat(store_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0644);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	fchmod(fd, 0644);
	fprintf(f, "ustackd %d %s\n", (int)getpid(), phase);
	fprintf(f, "objects %zu covered %lu own %lu refused %lu generated %lu reused %lu\n",
		tab_used, cnt.covered, cnt.own, cnt.refused, cnt.generated,
		cnt.reused);
	fprintf(f, "misses_dropped %llu\n", (unsigned long long)misses_dropped);
	fprintf(f, "superseded %lu users_objects %zu forgotten %lu\n",
		cnt.superseded, tab_users, cnt.forgotten);
	fprintf(f, "store_bytes %llu budget %llu user_budget %llu over_budget %lu collected %lu\n",
		(unsigned long long)store_bytes, (unsigned long long)budget_store,
		(unsigned long long)budget_user, cnt.over_budget, cnt.collected);
	fprintf(f, "over_time %lu\n", cnt.over_time);
	if (vdso_obj.path)
		fprintf(f, "%s 0:0:0 %s %s\n", state_names[vdso_obj.state],
			vdso_obj.path, vdso_obj.what);
	for (size_t i = 0; i < tab_cap; i++) {
		const struct obj *o = &tab[i];

		if ((!o->dev && !o->ino) || !o->path)
			continue;
		fprintf(f, "%s %u:%u:%llu %s %s\n", state_names[o->state],
			major(o->dev), minor(o->dev), (unsigned long long)o->ino,
			o->path, o->what);
	}
	if (fclose(f) || renameat(store_fd, tmp, store_fd, STATUS_NAME))
		unlinkat(store_fd, tmp, 0);
	status_dirty = false;
}

int show_status(void)
{
	char err[256] = "", buf[4096];
	int fd, pid = 0;
	struct stat st;
	FILE *f;
	size_t n;

	store_fd = store_open(opt.store, err, sizeof(err));
	if (store_fd < 0) {
		logmsg("%s", err);
		return 1;
	}
	fd = openat(store_fd, STATUS_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || st.st_uid != 0 || (st.st_mode & 022) ||
	    !(f = fdopen(fd, "r"))) {
		logmsg("%s/%s: no status (has ustackd run?)", opt.store, STATUS_NAME);
		return 1;
	}
	if (fscanf(f, "ustackd %d", &pid) == 1)
		printf("ustackd pid %d: %s\n", pid,
		       pid > 0 && !kill(pid, 0) ? "running" : "not running");
	rewind(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
	fclose(f);
	/* the module's own count of what it holds */
	f = fopen("/sys/kernel/debug/ustack/stats", "re");
	if (f) {
		while (fgets(buf, sizeof(buf), f)) {
			if (!strncmp(buf, "store", 5))
				printf("module %s", buf);
		}
		fclose(f);
	}
	return 0;
}
