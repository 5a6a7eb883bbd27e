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

#ifdef __cplusplus
}
#endif

#endif
