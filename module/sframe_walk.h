/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The walk's pieces across the SFrame core's files: what the walk loop
 * (sframe_walk.c) calls in the rule cache (sframe_cache.c) and the stack
 * scan (sframe_scan.c), and the stack reads they share.  Private to the
 * core; its users see ustack_sframe.h.
 */
#ifndef USTACK_SFRAME_WALK_H
#define USTACK_SFRAME_WALK_H

#include "ustack_sframe.h"
#include "arch.h"

/* A cached run stops before what may be a signal trampoline. */
#define SF_STOP		(USTACK_ARCH_SIGRETURN_ALIGN - 1)

/*
 * Stack reads of a walk: a word at @addr, or @len bytes, within
 * [stack_lo, stack_hi) if that is set; 0 or SFRAME_E_FAULT.
 */
static __always_inline int sf_load(const struct sframe_state *st, u64 addr,
				   u64 *v)
{
	if (st->stack_hi &&
	    (addr < st->stack_lo || addr > st->stack_hi - 8 ||
	     st->stack_hi < 8))
		return SFRAME_E_FAULT;
	return sf_read_word(v, (unsigned long)addr) ? SFRAME_E_FAULT : 0;
}

static __always_inline int sf_load_block(const struct sframe_state *st,
					 u64 addr, void *dst, u32 len)
{
	if (st->stack_hi &&
	    (addr < st->stack_lo || addr > st->stack_hi ||
	     st->stack_hi - addr < len))
		return SFRAME_E_FAULT;
	return sf_copy(dst, (unsigned long)addr, len) ? SFRAME_E_FAULT : 0;
}

/* Has the walk a rule cache (its own, or the hooks')? */
static __always_inline bool sf_walk_has_cache(const struct sframe_walk *w,
					      const struct sframe_walk_ops *ops)
{
	return ops->cache_begin || w->cache;
}

/*
 * The cached rule for @pc, if any.  @no_tramp: the code at pc + 1 was
 * just looked at and is no signal trampoline (see sframe_cache.c).
 */
bool ustack_sframe_walk_cache_get(struct sframe_walk *w,
				  const struct sframe_walk_ops *ops, u64 pc,
				  struct sframe_rule *r, bool no_tramp);
/* Remember @r for @pc, and @no_tramp. */
void ustack_sframe_walk_cache_put(struct sframe_walk *w,
				  const struct sframe_walk_ops *ops, u64 pc,
				  const struct sframe_rule *r, bool no_tramp);
/*
 * As many frames as the rule cache knows, from @st, stored from @nr on:
 * the new nr.  @stop: SF_STOP where signal trampolines are looked for.
 */
u32 ustack_sframe_walk_cached(struct sframe_walk *w,
			      const struct sframe_walk_ops *ops,
			      struct sframe_state *st, u32 nr, u64 stop);

/*
 * The rest of the walk by scanning the stack from the frame @last whose
 * caller no rule gave, frames stored from *@nr on: the end reason.
 */
u8 ustack_sframe_walk_scan(struct sframe_walk *w,
			   const struct sframe_walk_ops *ops,
			   const struct sframe_state *last, u32 *nr);

/* ---- the architecture's part of the walk: arch_<arch>_unwind.c ---------- */

/*
 * @st is at the signal trampoline, SP where the kernel left the signal
 * frame: the interrupted frame's registers, into w->gpr and @st (a
 * topmost frame again).  0 or an SFrame code.
 */
int ustack_arch_signal_step(struct sframe_walk *w, struct sframe_state *st);

/*
 * Is the code @c (USTACK_ARCH_PLT_PEEK_LEN bytes at a direct call's
 * target) a PLT stub, a jump elsewhere through the GOT?
 */
bool ustack_arch_plt_stub(const u8 *c);

#endif /* USTACK_SFRAME_WALK_H */
