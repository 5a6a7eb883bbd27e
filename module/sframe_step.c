// SPDX-License-Identifier: GPL-2.0
/*
 * The SFrame core's step: a rule (or the frame-pointer rule) applied to
 * one frame's registers gives its caller's.
 *
 * Every value read from the stack is checked before it becomes the next
 * frame: the CFA must lie above the SP and be aligned, the return address
 * must not be 0; a rule that needs a register the frame does not have is
 * refused.  Stack reads go through sf_load() (sframe_walk.h): bounded by
 * the state's stack range where one is set.
 */
#include "ustack_sframe.h"
#include "sframe_walk.h"

static __always_inline int sf_reg(const struct sframe_state *st, u8 reg,
				  u64 *v)
{
	if (reg == SFRAME_REG_SP)
		*v = st->sp;
	else if (reg == SFRAME_REG_FP)
		*v = st->fp;
	else if (st->topmost && st->gpr && reg < SFRAME_NR_REGS)
		*v = st->gpr[reg];
	else
		return SFRAME_E_REG;
	return 0;
}

static int sf_loc_value(const struct sframe_state *st, u64 cfa,
			const struct sframe_loc *l, u64 *v)
{
	u64 base;
	int err;

	switch (l->kind) {
	case SFRAME_LOC_CFA_DEREF:
		return sf_load(st, cfa + (s64)l->off, v);
	case SFRAME_LOC_CFA_VAL:
		*v = cfa + (s64)l->off;
		return 0;
	case SFRAME_LOC_REG_DEREF:
	case SFRAME_LOC_REG_VAL:
		err = sf_reg(st, l->reg, &base);
		if (err)
			return err;
		base += (s64)l->off;
		if (l->kind == SFRAME_LOC_REG_VAL) {
			*v = base;
			return 0;
		}
		return sf_load(st, base, v);
	default:
		return SFRAME_E_RA;
	}
}

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

/* Any other shape (v3 flex rules): each location on its own. */
static int sf_step_flex(const struct sframe_rule *r, struct sframe_state *st)
{
	u64 cfa, ra, fp;
	int err;

	if (r->cfa.kind != SFRAME_LOC_REG_VAL &&
	    r->cfa.kind != SFRAME_LOC_REG_DEREF)
		return SFRAME_E_FLEX;
	err = sf_loc_value(st, 0, &r->cfa, &cfa);
	if (err)
		return err;
	err = sf_cfa_check(st, cfa);
	if (err)
		return err;
	err = sf_loc_value(st, cfa, &r->ra, &ra);
	if (err)
		return err;
	if (!ra)
		return SFRAME_E_RA;
	if (r->fp.kind == SFRAME_LOC_SAME) {
		fp = st->fp;
	} else {
		err = sf_loc_value(st, cfa, &r->fp, &fp);
		if (err)
			return err;
	}
	sf_set(st, ra, cfa, fp, r->flags & SFRAME_R_SIGNAL);
	return 0;
}

int ustack_sframe_step(const struct sframe_rule *r, struct sframe_state *st)
{
	if (r->flags & SFRAME_R_OUTERMOST)
		return SFRAME_E_RA;
	if (likely(sf_default_shape(r)))
		return sf_step_default(r, st);
	return sf_step_flex(r, st);
}

int ustack_sframe_fp_step(struct sframe_state *st)
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
	if (!ra)
		return SFRAME_E_RA;
	sf_set(st, ra, cfa, nfp, false);
	return 0;
}
