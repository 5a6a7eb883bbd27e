/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The walk loop's use of the rule cache (sframe_cache.c): lookups, fills
 * and cached runs between the walk's cache hooks.  Private to the core.
 */
#ifndef USTACK_SFRAME_CACHE_H
#define USTACK_SFRAME_CACHE_H

#include "ustack_sframe.h"

/* A cached run stops before what may be a signal trampoline. */
#define SF_STOP		(USTACK_ARCH_SIGRETURN_ALIGN - 1)

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

#endif /* USTACK_SFRAME_CACHE_H */
