/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SFrame core's reads of the stack it walks, shared by the step, the
 * signal frames and the scan: bounded by the walk state's stack range
 * where one is set (the tools' walks of a copied stack), else by what
 * sf_read_word() and sf_copy() can read (sframe_env.h).  Private to the
 * core.
 */
#ifndef USTACK_SFRAME_STACK_H
#define USTACK_SFRAME_STACK_H

#include "ustack_sframe.h"

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

#endif /* USTACK_SFRAME_STACK_H */
