// SPDX-License-Identifier: GPL-2.0
/*
 * fakedev.so - a user-space stand-in for /dev/sframe's registration ioctls,
 * for host tests of the shim.  Preload it before libsframe-register.so:
 * open("/dev/sframe") gives a /dev/null descriptor, and SFRAME_IOC_REGISTER /
 * UNREGISTER on it are checked like the kernel would (ustack_sframe_sec_init +
 * ustack_sframe_validate of the section in place, at its own address) and kept in
 * a table.  fakedev_walk() then walks the caller's stack over that table
 * with the SFrame core's ustack_sframe_walk(), the kernel's loop
 * (SFrame only, no frame pointers):
 * what SFRAME_IOC_SELF_STACK will do in the kernel.
 * STORE_ADD is ENOTTY (a module without the store) unless FAKEDEV_STORE
 * says what the store does with SFRAME_STORE_KEEP: "old" refuses the flag
 * (EINVAL, a module older than it), "keep" has an entry for every object
 * (EEXIST); without the flag every add is taken.  The counts are printed
 * at exit: "fakedev: store_add keep K plain P".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include "ustack_sframe.h"
#include "uapi/ustack.h"

#define MAXREG 256
static struct sframe_sec regs[MAXREG];
static int nregs;
static unsigned char fake[1024];

static int (*real_open)(const char *, int, ...);
static int (*real_ioctl)(int, unsigned long, ...);
static int (*real_close)(int);
static int store_keep_n, store_plain_n;

static void store_report(void)
{
	fprintf(stderr, "fakedev: store_add keep %d plain %d\n",
		store_keep_n, store_plain_n);
}

/* STORE_ADD as FAKEDEV_STORE says; -1 (ENOTTY) without it. */
static int store_add(const struct sframe_store_reg *r)
{
	const char *mode = getenv("FAKEDEV_STORE");

	if (!mode) {
		errno = ENOTTY;
		return -1;
	}
	if (!store_keep_n && !store_plain_n)
		atexit(store_report);
	if (!r->flags) {
		store_plain_n++;
		return 0;
	}
	store_keep_n++;
	errno = r->flags == SFRAME_STORE_KEEP && !strcmp(mode, "keep") ?
		EEXIST : EINVAL;
	return -1;
}

static void resolve(void)
{
	if (!real_open) {
		real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
		real_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
		real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
	}
}

static int do_open(const char *path, int flags, mode_t mode)
{
	resolve();
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

int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = va_arg(ap, mode_t);
	va_end(ap);
	return do_open(path, flags, mode);
}

int close(int fd)
{
	resolve();
	if (fd >= 0 && fd < (int)sizeof(fake))
		fake[fd] = 0;
	return real_close(fd);
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;
	struct sframe_reg *r;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	resolve();
	if (fd < 0 || fd >= (int)sizeof(fake) || !fake[fd])
		return real_ioctl(fd, req, arg);
	r = arg;
	if (req == SFRAME_IOC_REGISTER) {
		struct sframe_sec s;

		if (r->size < sizeof(*r) || r->flags || nregs == MAXREG ||
		    r->text_start >= r->text_end ||
		    ustack_sframe_sec_init(&s, r->sframe_start, r->sframe_len,
				    r->sframe_start, r->text_start,
				    r->text_end) ||
		    ustack_sframe_validate(&s)) {
			errno = EINVAL;
			return -1;
		}
		regs[nregs++] = s;
		return 0;
	}
	if (req == SFRAME_IOC_UNREGISTER) {
		for (int i = 0; i < nregs; i++)
			if (regs[i].base == r->sframe_start) {
				regs[i] = regs[--nregs];
				return 0;
			}
		errno = ENOENT;
		return -1;
	}
	if (req == SFRAME_IOC_STORE_ADD)
		return store_add(arg);
	errno = ENOTTY;
	return -1;
}

static const struct sframe_sec *find_sec(struct sframe_walk *w, u64 pc,
					  bool *cacheable)
{
	*cacheable = true;
	for (int i = 0; i < nregs; i++)
		if (pc >= regs[i].text_lo && pc < regs[i].text_hi)
			return &regs[i];
	return NULL;
}

static const struct sframe_walk_ops walk_ops = {
	.find_sec = find_sec,
	.read_code = ustack_sframe_read_local_code,
};

int fakedev_count(void)
{
	return nregs;
}

/* Walk the caller's stack: ips[0] is an IP in here, then return addresses. */
__attribute__((noinline)) int fakedev_walk(uint64_t *ips, int max, int *end)
{
	struct sframe_walk w;
	pthread_attr_t a;
	void *lo;
	size_t sz;
	u64 ip, sp, fp;

	memset(&w, 0, sizeof(w));
	asm volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
		     : "=r"(ip), "=r"(sp), "=r"(fp));
	w.st.ip = ip;
	w.st.sp = sp;
	w.st.fp = fp;
	if (!pthread_getattr_np(pthread_self(), &a) &&
	    !pthread_attr_getstack(&a, &lo, &sz)) {
		w.st.stack_lo = (uintptr_t)lo;
		w.st.stack_hi = (uintptr_t)lo + sz;
		pthread_attr_destroy(&a);
	}
	w.ops = &walk_ops;
	w.ips = (u64 *)ips;
	w.max_frames = max;
	w.flags = SFRAME_WALK_NO_FP;
	ustack_sframe_walk(&w);
	*end = w.end;
	return (int)w.nr;
}
