// SPDX-License-Identifier: GPL-2.0
/*
 * interp_mem.c - the unwinders' reads of their own process: ustack_read_mem().
 *
 * An answer reads dozens of frames, code objects, strings and line
 * tables.  As a system call each (process_vm_readv()), the reads were
 * most of an answer's cost; here they are plain loads, made fault-safe:
 *
 * - coop_probe_copy() copies with two load instructions whose addresses
 *   are known; a fault there (SIGSEGV, SIGBUS) is turned by the guard
 *   into a failed read: it moves the interrupted IP to the routine's
 *   failure exit, as the kernel's exception tables do.  Any
 *   other SIGSEGV or SIGBUS makes the guard step aside for good: the
 *   handler it stood in front of (the program's, or the default action)
 *   is installed again and gets the signal from the kernel, as if the
 *   guard had never been there.  The guard is the request signal's own
 *   handler (interp.c's), installed for both signals, which hands their
 *   faults to coop_guard_fault().
 * - The guard must still be installed and the signals unblocked when an
 *   answer reads: the program may install its own handlers after ours.
 *   The kernel says so with each request (USTACK_COOP_SIG_GUARDED in
 *   si_errno: both signals' handler is the request's), the interrupted
 *   mask is in the handler's context; then coop_mem_answer_begin()
 *   allows plain loads for that answer.  When the program replaced the
 *   guard, the answer reads with system calls and the guard is installed
 *   again in front of the program's handler, which it steps aside for.
 * - Outside an answer, or without the kernel's word, reads are system
 *   calls: process_vm_readv(), or pread() of /proc/self/mem on a kernel
 *   without CONFIG_CROSS_MEMORY_ATTACH.
 *
 * Everything here is async-signal-safe; the fast path makes no system
 * call.  Initial-exec TLS: a handler must not make glibc allocate a
 * thread's block.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#include "uapi/ustack.h"
#include "interp_int.h"
#include "interp_times.h"

#define EXPORT __attribute__((visibility("default")))
#define TLS __thread __attribute__((tls_model("initial-exec")))

/* ---- the probe: one faulting instruction, one failure exit ------------- */

/*
 * int coop_probe_copy(void *dst, const void *src, size_t len): 0 or -1.
 * Eight bytes at a time, then the rest byte by byte, never past the end
 * of the source; the two loads are the only instructions that may fault.
 * (Not rep movsb: an emulator, QEMU's TCG, runs that one byte per step.)
 */
__asm__(".text\n"
	".p2align 4\n"
	".type coop_probe_copy, @function\n"
	"coop_probe_copy:\n"
	".cfi_startproc\n"
	"	mov %rdx, %rcx\n"
	"	shr $3, %rcx\n"
	"	jz 2f\n"
	"1:\n"
	"coop_probe_load8:\n"
	"	mov (%rsi), %rax\n"
	"	mov %rax, (%rdi)\n"
	"	add $8, %rsi\n"
	"	add $8, %rdi\n"
	"	dec %rcx\n"
	"	jnz 1b\n"
	"2:\n"
	"	and $7, %edx\n"
	"	jz 4f\n"
	"3:\n"
	"coop_probe_load1:\n"
	"	movzbl (%rsi), %eax\n"
	"	mov %al, (%rdi)\n"
	"	inc %rsi\n"
	"	inc %rdi\n"
	"	dec %edx\n"
	"	jnz 3b\n"
	"4:\n"
	"	xor %eax, %eax\n"
	"	ret\n"
	"coop_probe_fail:\n"
	"	mov $-1, %eax\n"
	"	ret\n"
	".cfi_endproc\n"
	".size coop_probe_copy, .-coop_probe_copy\n");

int coop_probe_copy(void *dst, const void *src, size_t len)
	__attribute__((visibility("hidden")));
extern const char coop_probe_load8[] __attribute__((visibility("hidden")));
extern const char coop_probe_load1[] __attribute__((visibility("hidden")));
extern const char coop_probe_fail[] __attribute__((visibility("hidden")));

/* ---- the guard ---------------------------------------------------------- */

static const int guard_sigs[2] = { SIGSEGV, SIGBUS };

/*
 * What handled each signal before the guard: orig before it was first
 * installed, chain when it was last put in front of a handler the
 * program installed since.  Written under the registration lock, or by
 * the one answer that puts the guard back (a fault on another thread
 * meanwhile may see the old one).
 */
static struct sigaction orig[2], chain[2];
static void (*guard)(int, siginfo_t *, void *);	/* once enabled */
static int passing[2];	/* a signal of the program's went through */
static int passed;	/* ... and the guard stays out of the way */
static int guard_set[2];	/* orig[] is known */

static int sig_index(int sig)
{
	return sig == SIGBUS;
}

/*
 * A signal that is not the probe's fault: the guard gets out of the way
 * for good and the program's handler gets it as if the guard had never
 * been there, its mask and flags applied by the kernel: that handler is
 * installed again, and then a fault re-executes its instruction and
 * faults again, a sent signal is sent again (to this thread, with its
 * siginfo).  A handler that, handling it, installs what it found before
 * itself (the guard: Python's faulthandler does) and raises the signal
 * again gets the guard's own predecessor the second time, so there is
 * no loop.  Later answers read with system calls.  Rare: system calls
 * are fine here.
 */
static void guard_pass(int sig, siginfo_t *si)
{
	int i = sig_index(sig);
	struct sigaction act;

	__atomic_store_n(&passed, 1, __ATOMIC_RELAXED);
	act = __atomic_exchange_n(&passing[i], 1, __ATOMIC_ACQ_REL) ?
	      orig[i] : chain[i];
	sigaction(sig, &act, NULL);
	if (si->si_code <= 0)
		syscall(SYS_rt_tgsigqueueinfo, getpid(), gettid(), sig, si);
}

void coop_guard_fault(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *ip = &uc->uc_mcontext.gregs[REG_RIP];

	/*
	 * A fault of one of the probe's loads (si_code > 0: the kernel's,
	 * not another process's kill()).
	 */
	if (si->si_code > 0 && (*ip == (greg_t)(uintptr_t)coop_probe_load8 ||
				*ip == (greg_t)(uintptr_t)coop_probe_load1)) {
		*ip = (greg_t)(uintptr_t)coop_probe_fail;
		return;
	}
	guard_pass(sig, si);
}

/* Is the guard enabled? */
int coop_guard_on(void)
{
	return guard != NULL;
}

/* Install the guard in front of whatever handles @sig now. */
static int guard_install(int i)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = guard;
	/*
	 * NODEFER: the signal passed on is not held back by our own frame;
	 * ONSTACK: a stack overflow's fault, on the program's alternate
	 * stack if it has one.
	 */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(guard_sigs[i], &sa, &old))
		return -errno;
	if (!guard_set[i])
		orig[i] = old;
	guard_set[i] = 1;
	if (old.sa_sigaction != guard || !(old.sa_flags & SA_SIGINFO))
		chain[i] = old;
	return 0;
}

/*
 * Install @handler, the request signal's, as the guard of both signals
 * (once; under the registration lock): plain loads for the answers from
 * then on.  0, or a negative errno value.
 */
int coop_guard_enable(void (*handler)(int, siginfo_t *, void *))
{
	int i, ret;

	if (guard)
		return 0;
	guard = handler;
	for (i = 0; i < 2; i++) {
		ret = guard_install(i);
		if (ret) {
			guard = NULL;
			return ret;
		}
	}
	return 0;
}

/* ---- the answer's reads ------------------------------------------------- */

static TLS int fast;		/* this answer may load plainly */
static TLS int mem_fd = -1;	/* /proc/self/mem, while answering */
static TLS int answering;
static int no_vm_readv;

/*
 * An answer begins: may it read with plain loads?  @guarded: the kernel
 * found the guard installed for both signals; @uc: the handler's context
 * (the interrupted mask, which the handler's own adds nothing to).  A
 * guard replaced by the program is installed again in front of it, for
 * the next answer.
 */
void coop_mem_answer_begin(int guarded, const void *ucv)
{
	const ucontext_t *uc = ucv;

	answering = 1;
	fast = 0;
	if (!guard)
		return;
	if (!guarded) {
		/*
		 * The program installed a handler since: ours again, in
		 * front of it, unless one of its signals went through.
		 */
		if (!__atomic_load_n(&passed, __ATOMIC_RELAXED)) {
			guard_install(0);
			guard_install(1);
		}
		return;
	}
	if (uc && (sigismember(&uc->uc_sigmask, SIGSEGV) ||
		   sigismember(&uc->uc_sigmask, SIGBUS)))
		return;		/* a blocked fault would kill the thread */
	fast = 1;
}

void coop_mem_answer_end(void)
{
	fast = 0;
	answering = 0;
	if (mem_fd >= 0) {
		close(mem_fd);
		mem_fd = -1;
	}
}

/*
 * A kernel without CONFIG_CROSS_MEMORY_ATTACH (process_vm_readv() gives
 * ENOSYS) is read through /proc/self/mem: pread() of an unmapped address
 * fails instead of faulting.  An answer's reads share one descriptor,
 * opened at its first read and closed when the answer is sent; one closed
 * or reused by another thread meanwhile gives a failed or wrong read, a
 * short stack.  A read outside an answer opens its own.
 */
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

static int read_syscall(void *dst, const void *addr, size_t len)
{
	struct iovec l = { dst, len }, r = { (void *)addr, len };
	ssize_t n;

	if (!__atomic_load_n(&no_vm_readv, __ATOMIC_RELAXED)) {
		n = process_vm_readv(getpid(), &l, 1, &r, 1, 0);
		if (n >= 0 || errno != ENOSYS)
			return n == (ssize_t)len ? 0 : -1;
		__atomic_store_n(&no_vm_readv, 1, __ATOMIC_RELAXED);
	}
	return read_proc_mem(dst, addr, len);
}

EXPORT int ustack_read_mem(void *dst, const void *addr, size_t len)
{
	uintptr_t a = (uintptr_t)addr;
	uint64_t t0;
	int ret;

	if (!addr || a + len < a)
		return -1;
	if (!len)
		return 0;
	/*
	 * Kernel and non-canonical addresses fault too (the latter as a
	 * general protection fault: SIGSEGV with si_code SI_KERNEL).
	 */
	t0 = coop_stamp();
	ret = fast ? coop_probe_copy(dst, addr, len) :
	      read_syscall(dst, addr, len);
	coop_times_add(COOP_T_READ, t0);
	return ret;
}

/* Does this answer load plainly?  For the tests and the debug output. */
int coop_mem_fast(void)
{
	return fast;
}
