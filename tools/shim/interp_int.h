/* SPDX-License-Identifier: GPL-2.0 */
/* interp_int.h - internals shared by the interpreter-frame files. */
#ifndef SHIM_INTERP_INT_H
#define SHIM_INTERP_INT_H

#include <signal.h>
#include <stdint.h>

#include "ustack.h"

#define COOP_HIDDEN __attribute__((visibility("hidden")))

/*
 * Add a frame with the function and file of the answer's frame @like (an
 * index), at @line: recursion without copying the strings again.
 * Returns 0, or -1 when the answer is full or @like is not a frame.
 */
COOP_HIDDEN
int ustack_interp_same(struct ustack_interp *a, int like, unsigned int line,
		       unsigned int flags);

/* The answer's frames so far; mark the last one as an entry frame. */
COOP_HIDDEN int ustack_interp_count(const struct ustack_interp *a);
COOP_HIDDEN void ustack_interp_mark_entry(struct ustack_interp *a);

/*
 * interp.c: ustack_register_unwinder() for our own unwinders; @guard: it
 * reads through ustack_read_mem() and wants plain loads.
 */
COOP_HIDDEN int coop_register(const char *lang, ustack_unwinder_fn fn,
			      void *ctx, int guard);

/* interp.c: write one line to standard error (async-signal-safe). */
COOP_HIDDEN void coop_log(const char *what, const char *why);

/*
 * interp_mem.c: the fault-safe reads behind ustack_read_mem().  The guard:
 * the request signal's handler installed for SIGSEGV and SIGBUS too by
 * coop_guard_enable() (under the registration lock), which passes their
 * signals to coop_guard_fault().  Each answer is bracketed by
 * coop_mem_answer_begin(), with the kernel's word that the guard is still
 * installed and the handler's context, and coop_mem_answer_end().
 */
COOP_HIDDEN int coop_guard_enable(void (*handler)(int, siginfo_t *, void *));
COOP_HIDDEN int coop_guard_on(void);
COOP_HIDDEN void coop_guard_fault(int sig, siginfo_t *si, void *uc);
COOP_HIDDEN void coop_mem_answer_begin(int guarded, const void *uc);
COOP_HIDDEN void coop_mem_answer_end(void);
COOP_HIDDEN int coop_mem_fast(void);

#endif
