/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SFrame step's hot path, inline into the walk loop (sframe_walk.c)
 * and the step's entry points (sframe_step.c): the default rule shape and
 * the frame-pointer rule.  Private to the core.
 */
#ifndef USTACK_SFRAME_STEP_H
#define USTACK_SFRAME_STEP_H

#include "sframe_stack.h"

/* Any other shape (v3 flex rules): sframe_step.c. */
int ustack_sframe_step_flex(const struct sframe_rule *r,
			    struct sframe_state *st);

static __always_inline void sf_set(struct sframe_state *st, u64 ip, u64 sp,
				   u64 fp, bool exact)
{
	st->ip = ip;
	st->sp = sp;
	st->fp = fp;
	st->gpr = NULL;
	st->topmost = false;
	st->exact_ip = exact;
}

/* CFA: not below SP (equal only in the interrupted frame), word-aligned. */
static __always_inline int sf_cfa_check(const struct sframe_state *st, u64 cfa)
{
	if (cfa < st->sp || (cfa == st->sp && !st->topmost))
		return SFRAME_E_CFA;
	return cfa & 7 ? SFRAME_E_ALIGN : 0;
}

/* The default shape: CFA = SP/FP + off, RA at CFA-8, FP at CFA+off. */
static __always_inline bool sf_default_shape(const struct sframe_rule *r)
{
	return r->cfa.kind == SFRAME_LOC_REG_VAL &&
	       (r->cfa.reg == SFRAME_REG_SP || r->cfa.reg == SFRAME_REG_FP) &&
	       r->ra.kind == SFRAME_LOC_CFA_DEREF &&
	       (r->fp.kind == SFRAME_LOC_SAME ||
		r->fp.kind == SFRAME_LOC_CFA_DEREF);
}

static __always_inline int sf_step_default(const struct sframe_rule *r,
					   struct sframe_state *st)
{
	u64 cfa, ra, fp;
	int err;

	cfa = (r->cfa.reg == SFRAME_REG_SP ? st->sp : st->fp) +
	      (s64)r->cfa.off;
	err = sf_cfa_check(st, cfa);
	if (err)
		return err;
	err = sf_load(st, cfa + (s64)r->ra.off, &ra);
	if (err)
		return err;
	ra = ustack_arch_strip_ra(ra);
	if (!ra)
		return SFRAME_E_RA;
	fp = st->fp;
	if (r->fp.kind == SFRAME_LOC_CFA_DEREF) {
		err = sf_load(st, cfa + (s64)r->fp.off, &fp);
		if (err)
			return err;
	}
	sf_set(st, ra, cfa, fp, r->flags & SFRAME_R_SIGNAL);
	return 0;
}

/* The step of ustack_sframe_step(). */
static __always_inline int sf_step(const struct sframe_rule *r,
				   struct sframe_state *st)
{
	if (r->flags & SFRAME_R_OUTERMOST)
		return SFRAME_E_RA;
	if (likely(sf_default_shape(r)))
		return sf_step_default(r, st);
	return ustack_sframe_step_flex(r, st);
}

/*
 * The entry rule: nothing pushed but what the call left, as at a
 * function's first instruction (the RA where the call put it: arch.h).
 * Where the RA is still in a register (AArch64's x30), the rule is not of
 * the default shape and only the topmost frame can take it.
 */
static __always_inline int sf_entry_step(struct sframe_state *st)
{
	static const struct sframe_rule entry = {
		.cfa = { .kind = SFRAME_LOC_REG_VAL, .reg = SFRAME_REG_SP,
			 .off = USTACK_ARCH_ENTRY_CFA },
		.ra = USTACK_ARCH_ENTRY_RA,
		.fp = { .kind = SFRAME_LOC_SAME },
	};

	return sf_step(&entry, st);
}

/* The frame-pointer rule (ustack_sframe_fp_step()). */
static __always_inline int sf_fp_step(struct sframe_state *st)
{
	u64 fp = st->fp, cfa = fp + USTACK_ARCH_FP_CFA_OFF, ra, nfp;
	int err;

	if (cfa < fp || cfa <= st->sp)
		return SFRAME_E_CFA;
	if (fp & 7)
		return SFRAME_E_ALIGN;
	err = sf_load(st, fp + USTACK_ARCH_FP_RA_OFF, &ra);
	if (!err)
		err = sf_load(st, fp, &nfp);
	if (err)
		return err;
	ra = ustack_arch_strip_ra(ra);
	if (!ra)
		return SFRAME_E_RA;
	sf_set(st, ra, cfa, nfp, false);
	return 0;
}

#endif /* USTACK_SFRAME_STEP_H */
