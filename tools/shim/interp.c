// SPDX-License-Identifier: GPL-2.0
/*
 * interp.c - cooperative unwinding in libsframe-register.so: the registry
 * of interpreter unwinders (ustack.h), the real-time signal the kernel
 * raises after a walk, and the one ioctl that answers it.
 *
 * The handler runs on the walked thread, at its return to user space; it
 * uses no lock and no allocation: the answer is built on its own stack
 * (about 12 KiB), the unwinders read memory through interp_mem.c (plain
 * loads made fault-safe, when the kernel says the guard is in place),
 * and the answer is its one system call, on a descriptor of /dev/sframe
 * kept open (dev_fd below), and errno is kept.  Unwinders are only
 * appended, published by a release store of their count, so the handler
 * reads them without a lock.
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
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "uapi/ustack.h"
#include "interp_int.h"
#include "interp_times.h"

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
	void *uc;		/* the handler's context */
};

/* Text of an answer for the debug output, written at once. */
struct dbuf {
	char b[USTACK_COOP_MAX_STRTAB + USTACK_COOP_MAX_FRAMES * 32 + 128];
	size_t n;
};

/*
 * The answer and its debug text, ~11 and ~14 KB: too much for the
 * interrupted thread's own stack (a coroutine's may have a few KB left).
 * One per thread, mapped at its first answer (mmap() is
 * async-signal-safe, and neither handler nests in itself) and unmapped
 * as the thread exits.
 */
struct thread_buf {
	struct ustack_interp a;
	struct dbuf d;
};

static __thread struct thread_buf *thread_buf_tls
	__attribute__((tls_model("initial-exec")));
static pthread_key_t thread_buf_key;
static int thread_buf_key_ok;

static void thread_buf_free(void *p)
{
	thread_buf_tls = NULL;	/* a request from here on maps another */
	munmap(p, sizeof(struct thread_buf));
}

static struct thread_buf *thread_buf(void)
{
	struct thread_buf *b = thread_buf_tls;

	if (b)
		return b;
	b = mmap(NULL, sizeof(*b), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b == MAP_FAILED)
		return NULL;
	if (thread_buf_key_ok)
		pthread_setspecific(thread_buf_key, b);
	thread_buf_tls = b;
	return b;
}

static struct unwinder unwinders[MAX_UNWINDERS];
static int debug_fd = -1;	/* USTACK_COOP_DEBUG=1: answers to stderr */
static int nr_unwinders;
static int coop_sig;
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;

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

static void debug_str(struct dbuf *d, const char *s)
{
	size_t n = strlen(s);

	if (n > sizeof(d->b) - d->n)
		n = sizeof(d->b) - d->n;
	memcpy(d->b + d->n, s, n);
	d->n += n;
}

/*
 * The answer, in the text form of the interp record, with one write(2)
 * (after @head, if any): answers of several threads do not mix.
 */
static __attribute__((noinline)) void
debug_answer(const struct ustack_interp *a, uint64_t cookie,
			 const char *head)
{
	struct dbuf *d = &thread_buf()->d;	/* the caller's buffer's */
	char num[24];
	uint32_t i;
	int k;

	d->n = 0;
	if (head)
		debug_str(d, head);
	debug_str(d, "coop cookie=0x");
	for (k = 15; k >= 0; k--)
		num[15 - k] = "0123456789abcdef"[(cookie >> (4 * k)) & 15];
	num[16] = '\0';
	debug_str(d, num);
	debug_str(d, "\n");
	for (i = 0; i < a->nr; i++) {
		unsigned int line = a->f[i].line;

		debug_str(d, "    interp ");
		debug_str(d, a->strtab + a->f[i].function);
		debug_str(d, " ");
		debug_str(d, a->strtab + a->f[i].file);
		debug_str(d, ":");
		k = sizeof(num) - 1;
		num[k] = '\0';
		do {
			num[--k] = '0' + line % 10;
			line /= 10;
		} while (line && k > 0);
		debug_str(d, num + k);
		debug_str(d, a->f[i].flags & USTACK_INTERP_ENTRY ? " entry\n" : "\n");
	}
	if (write(debug_fd, d->b, d->n) < 0)
		return;
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

/*
 * The descriptor the answers go through: opened at the first registration
 * (and again when lost), placed above the numbers programs use, never
 * closed by us.  The program may close it, or close it and open something
 * else at its number: an answer that fails for a reason of its own (not
 * one of the refusals) checks that the descriptor still is /dev/sframe,
 * by its device number, and else opens it again, once.  The ioctl's
 * number is ours (USTACK_IOC_MAGIC, with the argument's size and
 * direction): another file refuses it.
 */
#define DEV_FD_MIN 100
static int dev_fd = -1;
static dev_t dev_rdev;

static int dev_open(void)
{
	struct stat st;
	int fd = open("/dev/sframe", O_RDWR | O_CLOEXEC | O_NOCTTY), hi;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode)) {
		close(fd);
		return -ENODEV;
	}
	dev_rdev = st.st_rdev;
	hi = fcntl(fd, F_DUPFD_CLOEXEC, DEV_FD_MIN);
	if (hi >= 0) {
		close(fd);
		fd = hi;
	}
	return fd;
}

static int dev_is_ours(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISCHR(st.st_mode) && st.st_rdev == dev_rdev;
}

static void send_answer(struct ustack_coop_answer *ans)
{
	int fd = __atomic_load_n(&dev_fd, __ATOMIC_ACQUIRE), nfd, exp;

	if (fd >= 0) {
		if (!ioctl(fd, SFRAME_IOC_COOP_ANSWER, ans) ||
		    errno == ESTALE || errno == EPERM || errno == E2BIG ||
		    dev_is_ours(fd))
			return;
	}
	nfd = dev_open();
	if (nfd < 0)
		return;
	ioctl(nfd, SFRAME_IOC_COOP_ANSWER, ans);
	exp = fd;
	if (!__atomic_compare_exchange_n(&dev_fd, &exp, nfd, 0,
					 __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		close(nfd);	/* another thread's is kept */
}

/*
 * Ask the unwinders, in order, on this thread; the first that adds
 * frames answers.  @lang: its name, or NULL when none did.
 */
static void unwind_all(struct ustack_interp *a, const char **lang)
{
	int i, n = __atomic_load_n(&nr_unwinders, __ATOMIC_ACQUIRE);

	*lang = NULL;
	for (i = 0; i < n; i++) {
		a->nr = 0;
		a->len = 0;
		unwinders[i].fn(unwinders[i].ctx, a);
		if (a->nr) {
			*lang = unwinders[i].lang;
			return;
		}
	}
	a->nr = 0;
	a->len = 0;
	if (n)
		*lang = unwinders[0].lang;
}

int ustack_interp_count(const struct ustack_interp *a)
{
	return a->nr;
}

EXPORT void *ustack_interp_ucontext(const struct ustack_interp *a)
{
	return a ? a->uc : NULL;
}

void ustack_interp_mark_entry(struct ustack_interp *a)
{
	if (a->nr)
		a->f[a->nr - 1].flags |= USTACK_INTERP_ENTRY;
}

static void answer(uint64_t cookie, int guarded, void *uc)
{
	struct thread_buf *b = thread_buf();
	struct ustack_interp *a = b ? &b->a : NULL;
	struct ustack_coop_answer ans;
	const char *lang;
	uint64_t t0;

	if (!a)
		return;	/* the request expires unanswered */
	a->uc = uc;
	coop_mem_answer_begin(guarded, uc);
	t0 = coop_stamp();
	unwind_all(a, &lang);
	coop_times_add(COOP_T_UNWIND, t0);
	coop_mem_answer_end();
	if (!lang)
		return;
	/* No frames now: say so all the same, ending the request. */
	memset(&ans, 0, sizeof(ans));
	ans.size = sizeof(ans);
	ans.cookie = cookie;
	ans.frames = (uintptr_t)a->f;
	ans.strtab = (uintptr_t)a->strtab;
	ans.nr_frames = a->nr;
	ans.strtab_len = a->len;
	memcpy(ans.lang, lang, sizeof(ans.lang));
	if (debug_fd >= 0 && a->nr)
		debug_answer(a, cookie, NULL);
	t0 = coop_stamp();
	send_answer(&ans);
	coop_times_add(COOP_T_SEND, t0);
}

/* The request signal's handler, and the guard's (SIGSEGV, SIGBUS). */
static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	if (sig == SIGSEGV || sig == SIGBUS) {
		coop_guard_fault(sig, si, uc);
		errno = saved;
		return;
	}
	/* Only the kernel's requests: kill() and sigqueue() say so. */
	if (si->si_code == SI_KERNEL) {
		uint64_t t0 = coop_stamp();

		answer((uint64_t)(uintptr_t)si->si_value.sival_ptr,
		       si->si_errno == USTACK_COOP_SIG_GUARDED, uc);
		coop_times_add(COOP_T_HANDLER, t0);
	}
	errno = saved;
}

/*
 * USTACK_COOP_TEST_HZ=N (the host tests, without the module): SIGPROF
 * N times a second of CPU time asks the unwinders as a request would,
 * and writes each answer to standard error instead of sending it, after
 * a line "coop-test fast=<0|1> frames=<n>".  The guard's place is asked
 * of the kernel with sigaction(), as the module would have.
 */
static void test_signal(int sig, siginfo_t *si, void *uc)
{
	struct thread_buf *b = thread_buf();
	struct ustack_interp *a = b ? &b->a : NULL;
	struct sigaction cur[2];
	const char *lang;
	char line[64];
	int saved = errno, guarded, n;
	uint64_t t0 = coop_stamp(), t1;

	(void)sig;
	(void)si;
	if (!a)
		return;
	a->uc = uc;
	guarded = !sigaction(SIGSEGV, NULL, &cur[0]) &&
		  !sigaction(SIGBUS, NULL, &cur[1]) &&
		  cur[0].sa_sigaction == on_signal &&
		  cur[1].sa_sigaction == on_signal;
	coop_mem_answer_begin(guarded, uc);
	t1 = coop_stamp();
	unwind_all(a, &lang);
	coop_times_add(COOP_T_UNWIND, t1);
	n = coop_mem_fast();
	coop_mem_answer_end();
	memcpy(line, "coop-test fast=0 frames=", 24);
	line[15] = '0' + n;
	n = 24;
	if (a->nr >= 100)
		line[n++] = '0' + a->nr / 100;
	if (a->nr >= 10)
		line[n++] = '0' + a->nr / 10 % 10;
	line[n++] = '0' + a->nr % 10;
	line[n++] = '\n';
	line[n] = '\0';
	debug_fd = STDERR_FILENO;
	if (lang && a->nr)
		debug_answer(a, 0, line);
	else if (write(STDERR_FILENO, line, n) < 0)
		goto out;
out:
	coop_times_add(COOP_T_HANDLER, t0);
	errno = saved;
}

static void test_start(const char *hz)
{
	struct sigaction sa;
	struct itimerval it;
	long n = strtol(hz, NULL, 10);

	if (n <= 0 || n > 10000)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = test_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, NULL))
		return;
	memset(&it, 0, sizeof(it));
	it.it_interval.tv_usec = 1000000 / n;
	it.it_value = it.it_interval;
	setitimer(ITIMER_PROF, &it, NULL);
}

static int opt_in(void)
{
	struct ustack_coop c = { .size = sizeof(c), .signo = coop_sig };
	int fd = __atomic_load_n(&dev_fd, __ATOMIC_ACQUIRE);

	if (fd < 0 || !dev_is_ours(fd)) {
		fd = dev_open();
		if (fd < 0)
			return fd;
		__atomic_store_n(&dev_fd, fd, __ATOMIC_RELEASE);
	}
	return ioctl(fd, SFRAME_IOC_COOP_ON, &c) ? -errno : 0;
}

static void atfork_child(void)
{
	if (coop_sig && __atomic_load_n(&nr_unwinders, __ATOMIC_ACQUIRE))
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
		/*
		 * Interrupted system calls resume: the request must not
		 * show.  A thread with an alternate stack answers there.
		 */
		sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
		sigemptyset(&sa.sa_mask);
		if (!sigaction(sig, &sa, NULL))
			return sig;
	}
	return 0;
}

/*
 * Register an unwinder; @guard: it reads through ustack_read_mem() and
 * wants plain loads (interp_mem.c's guard installed first).
 */
int coop_register(const char *lang, ustack_unwinder_fn fn, void *ctx,
		  int guard)
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
		const char *t = getenv("USTACK_COOP_TEST_HZ");

		if (d && *d == '1')
			debug_fd = STDERR_FILENO;
		coop_times_init();
		thread_buf_key_ok = !pthread_key_create(&thread_buf_key,
							thread_buf_free);
		coop_sig = pick_signal();
		if (!coop_sig) {
			ret = -EBUSY;
			goto out;
		}
		pthread_atfork(NULL, NULL, atfork_child);
		if (t)
			test_start(t);
	}
	if (guard)
		coop_guard_enable(on_signal);
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

EXPORT int ustack_register_unwinder(const char *lang, ustack_unwinder_fn fn,
				    void *ctx)
{
	return coop_register(lang, fn, ctx, 0);
}

void coop_log(const char *what, const char *why)
{
	static const char pre[] = "libsframe-register: ";

	if (write(STDERR_FILENO, pre, sizeof(pre) - 1) < 0 ||
	    write(STDERR_FILENO, what, strlen(what)) < 0 ||
	    write(STDERR_FILENO, ": ", 2) < 0 ||
	    write(STDERR_FILENO, why, strlen(why)) < 0 ||
	    write(STDERR_FILENO, "\n", 1) < 0)
		return;
}
