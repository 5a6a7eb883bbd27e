/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ustack.h - the libustack C API (in libsframe-register.so).
 *
 * Link with -lsframe-register, or preload the library.  Needs the ustack
 * kernel module (/dev/sframe); without it every call fails cleanly.
 */
#ifndef USTACK_H
#define USTACK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Same contract as backtrace(3): store up to @size return addresses of the
 * calling thread's stack in @buffer, innermost first, the first being the
 * return address into the caller of ustack_backtrace(), and return how many
 * were stored.  The stack is walked by the kernel (SFrame, then frame
 * pointers).  Returns -1 with errno set (ENOSYS: no kernel support) on error.
 *
 * Async-signal-safe: usable in a signal handler, also on an alternate
 * signal stack of SIGSTKSZ (it needs well under 1 KiB of stack), and in
 * any thread at any time.  It makes system calls only (no malloc, no
 * locks, no helper process) and uses only the SFrame data registered
 * already: objects dlopen'ed by a bare name (no '/') since the last
 * dlopen or dlclose are registered at the next one, and until then their
 * frames are found by frame pointers, if they have them.
 */
int ustack_backtrace(void **buffer, int size);

/*
 * Register the SFrame section [sframe, sframe + sframe_len) of this process
 * as the unwind data for the text range [text_start, text_end).  The section
 * must stay mapped and unchanged until ustack_unregister(sframe).  Both
 * return 0 or a negative errno value.
 */
int ustack_register(const void *sframe, size_t sframe_len,
		    const void *text_start, const void *text_end);
int ustack_unregister(const void *sframe);

/*
 * Cooperative unwinding: a language runtime (an interpreter, a JIT) names
 * its own frames for the kernel's samples.  While at least one unwinder
 * is registered the process is opted in: after the kernel walks a thread's
 * native stack, that thread is interrupted by a real-time signal (never in
 * the middle of a system call's result) and the shim calls the unwinders
 * in registration order, in the signal handler, on that thread; the first
 * that adds frames answers, with its @lang ("python3.11").
 *
 * The unwinder's contract: async-signal-safe (no locks, no malloc, no
 * stdio), bounded, and fault-safe: it must not dereference memory it is
 * not sure of (ustack_read_mem() reads it without faulting: with system
 * calls, or, in a process whose unwinder of the shim's own installed its
 * SIGSEGV/SIGBUS guard (CPython's), with plain loads while the kernel
 * says that guard is still in place).  It adds its
 * frames innermost first with ustack_interp_add(), which copies the
 * strings; USTACK_INTERP_FLAG_ENTRY marks a frame that began a new
 * native evaluation (a new C-level call of the interpreter loop).
 *
 * ustack_register_unwinder() returns 0 or a negative errno value
 * (ENOSPC: 8 unwinders already, ENOSYS: no kernel support).
 */
struct ustack_interp;

#define USTACK_INTERP_FLAG_ENTRY	0x1

typedef int (*ustack_unwinder_fn)(void *ctx, struct ustack_interp *ans);

int ustack_register_unwinder(const char *lang, ustack_unwinder_fn fn,
			     void *ctx);
/*
 * The interrupted thread's registers: the request signal handler's
 * ucontext_t (its third argument), for an unwinder that starts from them
 * (a JIT's AsyncGetCallTrace); NULL outside a request.
 */
void *ustack_interp_ucontext(const struct ustack_interp *ans);
/* Returns 0, or -1 when the answer is full (frames or string bytes). */
int ustack_interp_add(struct ustack_interp *ans, const char *function,
		      const char *file, unsigned int line, unsigned int flags);
/*
 * Copy @len bytes at @addr of this process into @dst (which must hold
 * them); 0, or -1 if unreadable.  Async-signal-safe; never faults.
 */
int ustack_read_mem(void *dst, const void *addr, size_t len);

#ifdef __cplusplus
}
#endif

#endif
