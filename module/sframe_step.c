// SPDX-License-Identifier: GPL-2.0
/*
 * The SFrame core's step: a rule (or the frame-pointer rule) applied to
 * one frame's registers gives its caller's.
 *
 * Every value read from the stack is checked before it becomes the next
 * frame: the CFA must lie above the SP and be aligned, the return address
 * must not be 0; a rule that needs a register the frame does not have is
 * refused.  Stack reads go through sf_load() (sframe_stack.h): bounded by
 * the state's stack range where one is set.  The default shape and the
 * frame-pointer rule are sframe_step.h's, inline into the walk loop; the
 * general shape of v3 flex rules is here.
 */
#include "ustack_sframe.h"
#include "sframe_step.h"

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

/* Any other shape (v3 flex rules): each location on its own. */
int ustack_sframe_step_flex(const struct sframe_rule *r, struct sframe_state *st)
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
	ra = ustack_arch_strip_ra(ra);
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
	return sf_step(r, st);
}

int ustack_sframe_fp_step(struct sframe_state *st)
{
	return sf_fp_step(st);
}
