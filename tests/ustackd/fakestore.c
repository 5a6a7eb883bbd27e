// SPDX-License-Identifier: GPL-2.0
/*
 * fakestore.so - a user-space stand-in for /dev/sframe's store ioctls, for
 * host tests of ustackd.  open("/dev/sframe") gives a /dev/null descriptor;
 * on it SFRAME_IOC_STORE_ADD reads the section from the store file and
 * checks it with the kernel's own decoder (module/core.mk), EBADMSG
 * if it is not valid, and appends "add DEV INO LEN user KEY" to $FAKESTORE_LOG
 * (SFRAME_STORE_USER: the user charged) or "add DEV INO LEN owner UID"
 * ("add vdso LEN" with SFRAME_STORE_VDSO);
 * SFRAME_IOC_STORE_MISSES hands out the lines "PID START END DEV INO" (hex
 * addresses) of $FAKESTORE_MISSES once (the file is then removed); a line
 * "dropped N" adds N to the count of misses the queue lost;
 * SFRAME_IOC_STORE_FLUSH appends "flush".
 * With $FAKESTORE_SLOW_OPEN, some opens never answer in time (slow_open()).
 * With $FAKESTORE_SCAN_DELAY_MS, each fopen() of /proc/PID/maps (a scan's
 * step for one process) appends "maps PID" and then takes that long: a
 * scan of every process as slow as on a large, busy machine.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <time.h>
#include "ustack_sframe.h"
#include "uapi/ustack.h"

static unsigned char fake[1024];
static unsigned long long dropped;
static int (*real_open)(const char *, int, ...);
static int (*real_ioctl)(int, unsigned long, ...);
static FILE *(*real_fopen)(const char *, const char *);

static void resolve(void)
{
	if (!real_open) {
		real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
		real_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
		real_fopen = (FILE *(*)(const char *, const char *))dlsym(RTLD_NEXT, "fopen");
	}
}

/*
 * With $FAKESTORE_SLOW_OPEN=STRING, an open of a /proc/PID/map_files/
 * link to a path containing STRING takes 30 s first: a FUSE file that
 * never answers, as the examining child (its 10 s alarm) meets it.
 */
static void slow_open(const char *path)
{
	const char *slow = getenv("FAKESTORE_SLOW_OPEN");
	char target[512];
	ssize_t n;

	if (!slow || !*slow || strncmp(path, "/proc/", 6) || !strstr(path, "/map_files/"))
		return;
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	if (strstr(target, slow))
		sleep(30);
}

static int do_open(const char *path, int flags, mode_t mode)
{
	resolve();
	if (path)
		slow_open(path);
	if (path && !strcmp(path, "/dev/sframe")) {
		int fd = real_open("/dev/null", flags & ~O_CREAT);

		if (fd >= 0 && fd < (int)sizeof(fake))
			fake[fd] = 1;
		return fd;
	}
	return real_open(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = va_arg(ap, mode_t);
	va_end(ap);
	return do_open(path, flags, mode);
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));

static void logline(const char *fmt, ...)
{
	const char *p = getenv("FAKESTORE_LOG");
	va_list ap;
	FILE *f;

	if (!p || !(f = fopen(p, "ae")))
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

FILE *fopen(const char *path, const char *mode)
{
	const char *d = getenv("FAKESTORE_SCAN_DELAY_MS");
	int pid, n = 0;

	resolve();
	if (d && path && sscanf(path, "/proc/%d/maps%n", &pid, &n) == 1 &&
	    n && !path[n]) {
		long ms = atol(d);
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

		logline("maps %d\n", pid);
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	return real_fopen(path, mode);
}

FILE *fopen64(const char *path, const char *mode) __attribute__((alias("fopen")));

static int store_add(const struct sframe_store_reg *r)
{
	struct sframe_sec s;
	struct stat st;
	void *buf;
	int bad;

	bool vdso = r->flags == SFRAME_STORE_VDSO;
	bool user = r->flags == SFRAME_STORE_USER;

	if (r->size != sizeof(*r) || (r->flags && !vdso && !user) ||
	    (!user && r->user) || !r->sframe_len ||
	    r->sframe_len > (64u << 20) || (!vdso && fstat(r->object_fd, &st)))
		return -EINVAL;
	buf = malloc(r->sframe_len);
	if (!buf)
		return -ENOMEM;
	bad = pread(r->sframe_fd, buf, r->sframe_len, r->sframe_off) !=
	      (ssize_t)r->sframe_len ||
	      ustack_sframe_sec_init(&s, (unsigned long)buf, r->sframe_len,
				     r->sframe_vaddr, 0, ~0ul >> 1) ||
	      ustack_sframe_validate(&s);
	free(buf);
	if (bad)
		return -EBADMSG;
	if (vdso) {
		logline("add vdso %llu\n", (unsigned long long)r->sframe_len);
		return 0;
	}
	logline("add %llu %llu %llu %s%llu\n", (unsigned long long)st.st_dev,
		(unsigned long long)st.st_ino, (unsigned long long)r->sframe_len,
		user ? "user " : "owner ",
		user ? (unsigned long long)r->user : (unsigned long long)st.st_uid);
	return 0;
}

static int store_misses(struct sframe_store_misses *q)
{
	struct sframe_store_miss *m = (void *)(uintptr_t)q->misses;
	const char *p = getenv("FAKESTORE_MISSES");
	unsigned long long start, end, dev, ino, n;
	char line[256];
	FILE *f;
	int pid;

	q->nr_misses = 0;
	q->dropped = dropped;
	if (!p || !(f = fopen(p, "re")))
		return 0;
	while (q->nr_misses < q->max_misses && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "dropped %llu", &n) == 1) {
			dropped += n;
			q->dropped = dropped;
			continue;
		}
		if (sscanf(line, "%d %llx %llx %llu %llu", &pid, &start, &end,
			   &dev, &ino) != 5)
			break;
		memset(&m[q->nr_misses], 0, sizeof(*m));
		m[q->nr_misses].pid = pid;
		m[q->nr_misses].start = start;
		m[q->nr_misses].end = end;
		m[q->nr_misses].dev = dev;
		m[q->nr_misses].ino = ino;
		q->nr_misses++;
	}
	fclose(f);
	unlink(p);
	return 0;
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	resolve();
	if (fd < 0 || fd >= (int)sizeof(fake) || !fake[fd])
		return real_ioctl(fd, req, arg);
	if (req == SFRAME_IOC_STORE_ADD)
		ret = store_add(arg);
	else if (req == SFRAME_IOC_STORE_MISSES)
		ret = store_misses(arg);
	else if (req == SFRAME_IOC_STORE_FLUSH)
		ret = (logline("flush\n"), 0);
	else
		ret = -ENOTTY;
	if (ret) {
		errno = -ret;
		return -1;
	}
	return 0;
}
