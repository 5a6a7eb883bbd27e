// SPDX-License-Identifier: GPL-2.0
/*
 * cfi_classify.c - one CFI row, as libdw computes it, classified by what
 * SFrame on x86-64 can say: the CFA rule (a general register + N, the value
 * at one, ld's PLT expression), the return address's (at CFA - 8, or
 * undefined: outermost) and rbp's (unchanged, at CFA + N, at rbp + N).
 * The kinds and what each means: cfi_row.h.  cfi_row_locs() is the one
 * reading of a classified row as SFrame locations, for the generator and
 * for check.
 */
#include <dwarf.h>
#include "cfi_classify.h"
#include "ustack_sframe.h"

/* ld's PLT CFA: rsp + 8 + ((rip & 15) >= k) << 3. */
static bool is_plt_expr(const Dwarf_Op *ops, size_t n, uint8_t *k)
{
	if (n != 9 || ops[0].atom != DW_OP_breg7 || ops[0].number != 8 ||
	    ops[1].atom != DW_OP_breg16 || ops[1].number != 0 ||
	    ops[2].atom != DW_OP_lit15 || ops[3].atom != DW_OP_and ||
	    ops[4].atom < DW_OP_lit0 || ops[4].atom > DW_OP_lit15 ||
	    ops[5].atom != DW_OP_ge || ops[6].atom != DW_OP_lit3 ||
	    ops[7].atom != DW_OP_shl || ops[8].atom != DW_OP_plus)
		return false;
	*k = ops[4].atom - DW_OP_lit0;
	return true;
}

/*
 * Register rule "saved at CFA + off" from libdw's location expression:
 * [DW_OP_call_frame_cfa] or [DW_OP_call_frame_cfa, DW_OP_plus_uconst off]
 * (libdw stores negative offsets in plus_uconst's operand as well).
 */
static bool is_cfa_slot(const Dwarf_Op *ops, size_t n, int32_t *off)
{
	int64_t v;

	if (n < 1 || n > 2 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (n == 1) {
		*off = 0;
		return true;
	}
	if (ops[1].atom != DW_OP_plus_uconst)
		return false;
	v = (int64_t)ops[1].number;
	if (v < INT32_MIN || v > INT32_MAX)
		return false;
	*off = (int32_t)v;
	return true;
}

/* The general registers a CFA may be based on (DWARF 0-15: rax..r15). */
#define REG_GPR_MAX	15

/* @op is "general register + N" (DW_OP_bregN, DW_OP_bregx): @reg, @off. */
static bool is_breg(const Dwarf_Op *op, uint8_t *reg, int32_t *off)
{
	uint64_t r;
	int64_t v;

	if (op->atom == DW_OP_bregx) {
		r = op->number;
		v = (int64_t)op->number2;
	} else if (op->atom >= DW_OP_breg0 &&
		   op->atom <= DW_OP_breg0 + REG_GPR_MAX) {
		r = op->atom - DW_OP_breg0;
		v = (int64_t)op->number;
	} else {
		return false;
	}
	if (r > REG_GPR_MAX || v < INT32_MIN || v > INT32_MAX)
		return false;
	*reg = (uint8_t)r;
	*off = (int32_t)v;
	return true;
}

/*
 * The CFA rule of @fr into @r: a general register + N (rsp/rbp, or
 * another for CFI_ROW_REG), the value saved there (DRAP's
 * [DW_OP_breg6 -8, DW_OP_deref]: CFI_ROW_REG), or ld's PLT expression
 * (CFI_ROW_PLT).  False when SFrame cannot express it.
 */
static bool classify_cfa(Dwarf_Frame *fr, struct cfi_row *r)
{
	Dwarf_Op *ops;
	size_t n;

	if (dwarf_frame_cfa(fr, &ops, &n) || n == 0)
		return false;
	if (n == 1 && is_breg(&ops[0], &r->cfa_reg, &r->cfa_off)) {
		r->cfa_deref = 0;
	} else if (n == 2 && ops[1].atom == DW_OP_deref &&
		   is_breg(&ops[0], &r->cfa_reg, &r->cfa_off)) {
		r->cfa_deref = 1;
	} else if (is_plt_expr(ops, n, &r->plt_k)) {
		r->cfa_reg = SFRAME_REG_SP;
		r->kind = CFI_ROW_PLT;
	} else {
		return false;
	}
	return true;
}

/*
 * The rbp rule of @fr into @r: unchanged, saved at CFA + N, or saved at
 * rbp + N (DRAP's DW_CFA_expression [DW_OP_breg6 N], which libdw gives
 * after the CFA that DWARF pushes first).  Else (undefined, in a register,
 * val_offset, another expression) the reason it is bad: CFI_BAD_FP, or
 * CFI_BAD_LIBDW.
 */
static int classify_fp(Dwarf_Frame *fr, struct cfi_row *r)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	int32_t off;
	uint8_t reg;

	if (dwarf_frame_register(fr, SFRAME_REG_FP, mem, &ops, &n))
		return CFI_BAD_LIBDW;
	if (n == 0 && ops == NULL) {
		r->fp_saved = CFI_FP_SAME;
	} else if (is_cfa_slot(ops, n, &off)) {
		r->fp_saved = CFI_FP_AT_CFA;
		r->fp_off = off;
	} else if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
		   is_breg(&ops[1], &reg, &off) && reg == SFRAME_REG_FP) {
		r->fp_saved = CFI_FP_AT_FP;
		r->fp_off = off;
	} else {
		return CFI_BAD_FP;
	}
	return CFI_BAD_NONE;
}

void cfi_classify(Dwarf_Frame *fr, int ra_reg, bool signal,
		  struct cfi_row *r)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	int32_t off;
	bool ra_ok, other;

	r->kind = CFI_ROW_BAD;
	if (signal) {
		r->bad = CFI_BAD_SIGNAL;
		return;
	}
	if (ra_reg != SFRAME_REG_RA) {
		r->bad = CFI_BAD_RA;
		return;
	}
	/* RA undefined makes the row outermost whatever the CFA; else the
	 * CFA is the first thing a walker needs, so it is checked (and
	 * counted) before the RA rule. */
	if (dwarf_frame_register(fr, SFRAME_REG_RA, mem, &ops, &n)) {
		r->bad = CFI_BAD_LIBDW;
		return;
	}
	if (n == 0 && ops == mem) {
		r->kind = CFI_ROW_OUTERMOST;
		return;
	}
	ra_ok = is_cfa_slot(ops, n, &off) && off == -8;
	if (!classify_cfa(fr, r)) {
		r->kind = CFI_ROW_BAD;
		r->bad = CFI_BAD_CFA;
		return;
	}
	/* (a CFA in another register is what v1/v2 count such rows by) */
	other = (r->cfa_reg != SFRAME_REG_SP && r->cfa_reg != SFRAME_REG_FP) ||
		r->cfa_deref;
	if (!ra_ok) {
		r->kind = CFI_ROW_BAD;
		r->bad = other ? CFI_BAD_CFA : CFI_BAD_RA;
		return;
	}
	r->bad = classify_fp(fr, r);
	if (r->bad) {
		r->kind = CFI_ROW_BAD;
		r->bad = other ? CFI_BAD_CFA : r->bad;
		return;
	}
	if (r->kind == CFI_ROW_PLT) {
		if (r->fp_saved == CFI_FP_AT_FP) {
			r->kind = CFI_ROW_BAD;
			r->bad = CFI_BAD_FP;
		}
		return;
	}
	r->kind = other || r->fp_saved == CFI_FP_AT_FP ? CFI_ROW_REG :
		  CFI_ROW_OK;
}

const char *cfi_bad_name(int bad)
{
	static const char *const names[CFI_BAD_MAX] = {
		"none", "cfa", "ra", "fp", "signal", "libdw",
	};

	return bad >= 0 && bad < CFI_BAD_MAX ? names[bad] : "?";
}

void cfi_row_locs(const struct cfi_row *r, uint64_t pc, struct sframe_loc *cfa,
		  struct sframe_loc *ra, struct sframe_loc *fp)
{
	int32_t off = r->kind == CFI_ROW_PLT ? cfi_plt_cfa_off(r, pc) :
		      r->cfa_off;

	*cfa = (struct sframe_loc){ r->cfa_deref ? SFRAME_LOC_REG_DEREF :
				    SFRAME_LOC_REG_VAL, r->cfa_reg, off };
	*ra = (struct sframe_loc){ SFRAME_LOC_CFA_DEREF, 0, -8 };
	if (r->fp_saved == CFI_FP_AT_FP)
		*fp = (struct sframe_loc){ SFRAME_LOC_REG_DEREF, SFRAME_REG_FP,
					   r->fp_off };
	else if (r->fp_saved == CFI_FP_AT_CFA)
		*fp = (struct sframe_loc){ SFRAME_LOC_CFA_DEREF, 0, r->fp_off };
	else
		*fp = (struct sframe_loc){ SFRAME_LOC_SAME, 0, 0 };
}
