// SPDX-License-Identifier: GPL-2.0
/*
 * coop.c - cooperative unwinding in libsframe-register.so: the registry
 * of interpreter unwinders (ustack.h), the real-time signal the kernel
 * raises after a walk, and the one ioctl that answers it.
 *
 * The handler runs on the walked thread, at its return to user space; it
 * uses no lock and no allocation: the answer is built on its own stack
 * (about 12 KiB), /dev/sframe is opened for the one ioctl (a descriptor
 * kept open could be closed or reused under us by the program), and errno
 * is kept.  Unwinders are only appended, published by a release store of
 * their count, so the handler reads them without a lock.
 *
 * The signal: the highest real-time signal that nobody handles yet at
 * the first registration.  The kernel does not carry the opt-in over
 * fork() (a new address space), so the child opts in again (atfork).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "uapi/ustack.h"
#include "interp_int.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_UNWINDERS 8

struct unwinder {
	char lang[16];
	ustack_unwinder_fn fn;
	void *ctx;
};

struct ustack_interp {
	struct ustack_coop_frame f[USTACK_COOP_MAX_FRAMES];
	char strtab[USTACK_COOP_MAX_STRTAB];
	uint32_t nr, len;
};

static struct unwinder unwinders[MAX_UNWINDERS];
static int debug_fd = -1;	/* USTACK_COOP_DEBUG=1: answers to stderr */
static int nr_unwinders;
static int coop_sig;
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * A kernel without CONFIG_CROSS_MEMORY_ATTACH (process_vm_readv() gives
 * ENOSYS) is read through /proc/self/mem: pread() of an unmapped address
 * fails instead of faulting.  An answer's reads share one descriptor,
 * opened at its first read and closed when the answer is sent: an
 * unwinder makes hundreds of reads, and on a debug kernel the open() is
 * most of a read's cost.  No descriptor outlives the handler; one closed
 * or reused by another thread meanwhile gives a failed or wrong read, a
 * short stack.  A read outside an answer opens its own.  Initial-exec
 * TLS: the handler must not make glibc allocate a thread's block.
 */
static int no_vm_readv;
static __thread int mem_fd __attribute__((tls_model("initial-exec"))) = -1;
static __thread int answering __attribute__((tls_model("initial-exec")));

static int read_proc_mem(void *dst, const void *addr, size_t len)
{
	int fd = mem_fd;
	ssize_t n;

	if (fd < 0) {
		fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		if (answering)
			mem_fd = fd;
	}
	n = pread(fd, dst, len, (off_t)(uintptr_t)addr);
	if (!answering)
		close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

EXPORT int ustack_read_mem(void *dst, const void *addr, size_t len)
{
	struct iovec l = { dst, len }, r = { (void *)addr, len };
	ssize_t n;

	if (!addr)
		return -1;
	if (!__atomic_load_n(&no_vm_readv, __ATOMIC_RELAXED)) {
		n = process_vm_readv(getpid(), &l, 1, &r, 1, 0);
		if (n >= 0 || errno != ENOSYS)
			return n == (ssize_t)len ? 0 : -1;
		__atomic_store_n(&no_vm_readv, 1, __ATOMIC_RELAXED);
	}
	return read_proc_mem(dst, addr, len);
}

static int put_str(struct ustack_interp *a, const char *s, uint32_t *off)
{
	size_t n = strnlen(s, USTACK_COOP_MAX_STRING - 1);

	if (a->len + n + 1 > sizeof(a->strtab))
		return -1;
	memcpy(a->strtab + a->len, s, n);
	a->strtab[a->len + n] = '\0';
	*off = a->len;
	a->len += n + 1;
	return 0;
}

EXPORT int ustack_interp_add(struct ustack_interp *a, const char *function,
			     const char *file, unsigned int line,
			     unsigned int flags)
{
	struct ustack_coop_frame *f;
	uint32_t len = a->len;

	if (a->nr >= USTACK_COOP_MAX_FRAMES)
		return -1;
	f = &a->f[a->nr];
	memset(f, 0, sizeof(*f));
	if (put_str(a, function && *function ? function : "?", &f->function) ||
	    put_str(a, file && *file ? file : "?", &f->file)) {
		a->len = len;
		return -1;
	}
	f->line = line;
	f->flags = flags & USTACK_INTERP_ENTRY;
	f->native = USTACK_INTERP_NATIVE_NONE;
	a->nr++;
	return 0;
}

static void debug_str(const char *s)
{
	if (write(debug_fd, s, strlen(s)) < 0)
		return;
}

/* The answer, in the text form of the interp record, with write(2). */
static void debug_answer(const struct ustack_interp *a, uint64_t cookie)
{
	char num[24];
	uint32_t i;
	int k;

	debug_str("coop cookie=0x");
	for (k = 15; k >= 0; k--)
		num[15 - k] = "0123456789abcdef"[(cookie >> (4 * k)) & 15];
	num[16] = '\0';
	debug_str(num);
	debug_str("\n");
	for (i = 0; i < a->nr; i++) {
		unsigned int line = a->f[i].line;

		debug_str("    interp ");
		debug_str(a->strtab + a->f[i].function);
		debug_str(" ");
		debug_str(a->strtab + a->f[i].file);
		debug_str(":");
		k = sizeof(num) - 1;
		num[k] = '\0';
		do {
			num[--k] = '0' + line % 10;
			line /= 10;
		} while (line && k > 0);
		debug_str(num + k);
		debug_str(a->f[i].flags & USTACK_INTERP_ENTRY ? " entry\n" : "\n");
	}
}

/* Another frame with the strings of frame @like (the shim's own use). */
int ustack_interp_same(struct ustack_interp *a, int like, unsigned int line,
		       unsigned int flags)
{
	if (a->nr >= USTACK_COOP_MAX_FRAMES || like < 0 || (uint32_t)like >= a->nr)
		return -1;
	a->f[a->nr] = a->f[like];
	a->f[a->nr].line = line;
	a->f[a->nr].flags = flags & USTACK_INTERP_ENTRY;
	a->nr++;
	return 0;
}

static void answer(uint64_t cookie)
{
	struct ustack_interp a;
	struct ustack_coop_answer ans;
	int i, n = __atomic_load_n(&nr_unwinders, __ATOMIC_ACQUIRE), fd;

	a.nr = 0;
	a.len = 0;

	answering = 1;
	for (i = 0; i < n; i++) {
		a.nr = 0;
		a.len = 0;
		unwinders[i].fn(unwinders[i].ctx, &a);
		if (a.nr)
			break;
	}
	answering = 0;
	if (mem_fd >= 0) {
		close(mem_fd);
		mem_fd = -1;
	}
	if (!n)
		return;
	if (i == n) {		/* no frames now: say so, ending the request */
		i = 0;
		a.nr = 0;
		a.len = 0;
	}
	memset(&ans, 0, sizeof(ans));
	ans.size = sizeof(ans);
	ans.cookie = cookie;
	ans.frames = (uintptr_t)a.f;
	ans.strtab = (uintptr_t)a.strtab;
	ans.nr_frames = a.nr;
	ans.strtab_len = a.len;
	memcpy(ans.lang, unwinders[i].lang, sizeof(ans.lang));
	if (debug_fd >= 0 && a.nr)
		debug_answer(&a, cookie);
	fd = open("/dev/sframe", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	ioctl(fd, SFRAME_IOC_COOP_ANSWER, &ans);
	close(fd);
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	(void)sig;
	(void)uc;
	/* Only the kernel's requests: kill() and sigqueue() say so. */
	if (si->si_code == SI_KERNEL)
		answer((uint64_t)(uintptr_t)si->si_value.sival_ptr);
	errno = saved;
}

static int opt_in(void)
{
	struct ustack_coop c = { .size = sizeof(c), .signo = coop_sig };
	int fd = open("/dev/sframe", O_RDWR | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = ioctl(fd, SFRAME_IOC_COOP_ON, &c) ? -errno : 0;
	close(fd);
	return ret;
}

static void atfork_child(void)
{
	if (coop_sig)
		opt_in();
}

static int pick_signal(void)
{
	struct sigaction sa, old;
	int sig;

	for (sig = SIGRTMAX; sig >= SIGRTMIN + 4; sig--) {
		if (sigaction(sig, NULL, &old) ||
		    (old.sa_flags & SA_SIGINFO) ||
		    old.sa_handler != SIG_DFL)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_signal;
		/* Interrupted system calls resume: the request must not show. */
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (!sigaction(sig, &sa, NULL))
			return sig;
	}
	return 0;
}

EXPORT int ustack_register_unwinder(const char *lang, ustack_unwinder_fn fn,
				    void *ctx)
{
	struct unwinder *u;
	int ret = 0;

	if (!lang || !*lang || strlen(lang) >= sizeof(u->lang) || !fn)
		return -EINVAL;
	pthread_mutex_lock(&reg_lock);
	if (nr_unwinders == MAX_UNWINDERS) {
		ret = -ENOSPC;
		goto out;
	}
	if (!coop_sig) {
		const char *d = getenv("USTACK_COOP_DEBUG");

		if (d && *d == '1')
			debug_fd = STDERR_FILENO;
		coop_sig = pick_signal();
		if (!coop_sig) {
			ret = -EBUSY;
			goto out;
		}
		pthread_atfork(NULL, NULL, atfork_child);
	}
	u = &unwinders[nr_unwinders];
	strcpy(u->lang, lang);
	u->fn = fn;
	u->ctx = ctx;
	__atomic_store_n(&nr_unwinders, nr_unwinders + 1, __ATOMIC_RELEASE);
	if (nr_unwinders == 1)
		ret = opt_in();
out:
	pthread_mutex_unlock(&reg_lock);
	return ret == -ENOENT || ret == -ENODEV ? -ENOSYS : ret;
}
