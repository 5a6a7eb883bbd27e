/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfi_row.h - one row of a function's .eh_frame rules, classified by what
 * SFrame can express (cfi_classify.c makes and reads rows; cfi_rules.c
 * keeps them in per-function tables).  A row is one of:
 *   CFI_ROW_OK        CFA = rsp|rbp + off, RA at CFA-8, rbp unchanged or
 *                     saved at CFA+fp_off: what a default SFrame FRE says;
 *   CFI_ROW_OUTERMOST RA undefined (the first frame of a program or thread);
 *   CFI_ROW_PLT       ld's PLT expression CFA = rsp + 8 + ((pc & 15) >= k) * 8,
 *                     which a PCMASK FDE with rep_size 16 expresses;
 *   CFI_ROW_REG       as CFI_ROW_OK, but CFA = another general register + off
 *                     (a stack-clash probe loop's r11, ld.so's trampoline
 *                     realigning on rbx), or the value saved at a register
 *                     + off, or rbp saved at rbp + off (gcc's dynamic
 *                     realignment, DRAP: CFA = *(rbp - 8), rbp at *rbp):
 *                     a v3 flex FRE says it, v1/v2 cannot;
 *   CFI_ROW_BAD       anything else (expression CFA, RA not at CFA-8, rbp in
 *                     a register, signal frame...): SFrame cannot express
 *                     it, and the generator leaves a gap there, where the
 *                     walker falls back.
 */
#ifndef SFRAME_REGISTER_CFI_ROW_H
#define SFRAME_REGISTER_CFI_ROW_H

#include <stdint.h>

enum cfi_row_kind {
	CFI_ROW_OK = 0,
	CFI_ROW_OUTERMOST,
	CFI_ROW_PLT,
	CFI_ROW_REG,
	CFI_ROW_BAD,
};

/* Why a row is CFI_ROW_BAD (counted by the generator and check). */
enum cfi_bad {
	CFI_BAD_NONE = 0,
	CFI_BAD_CFA,		/* CFA not a register + N (v1/v2: rsp/rbp + N) */
	CFI_BAD_RA,		/* RA not saved at CFA-8 (or other RA column) */
	CFI_BAD_FP,		/* rbp not unchanged / at CFA+N */
	CFI_BAD_SIGNAL,		/* signal frame (the sigreturn trampoline) */
	CFI_BAD_LIBDW,		/* libdw could not compute the row */
	CFI_BAD_MAX
};

/* Where a row says rbp is. */
enum cfi_fp {
	CFI_FP_SAME = 0,	/* unchanged */
	CFI_FP_AT_CFA,		/* saved at CFA + fp_off */
	CFI_FP_AT_FP,		/* saved at rbp + fp_off (CFI_ROW_REG: DRAP) */
};

struct cfi_row {
	uint64_t start, end;	/* [start, end), file vaddr */
	uint8_t kind;		/* enum cfi_row_kind */
	uint8_t bad;		/* enum cfi_bad, for CFI_ROW_BAD */
	uint8_t cfa_reg;	/* 6 rbp or 7 rsp (CFI_ROW_REG: 0-15, DWARF) */
	uint8_t cfa_deref;	/* CFI_ROW_REG: CFA = *(cfa_reg + cfa_off) */
	uint8_t fp_saved;	/* enum cfi_fp */
	uint8_t plt_k;		/* CFI_ROW_PLT: the threshold k */
	int32_t cfa_off;
	int32_t fp_off;
};

/* CFA offset of a CFI_ROW_PLT row at @pc. */
static inline int32_t cfi_plt_cfa_off(const struct cfi_row *r, uint64_t pc)
{
	return (pc & 15) >= r->plt_k ? 16 : 8;
}
/* The name of an enum cfi_bad, as the generator and check print it. */
const char *cfi_bad_name(int bad);

struct sframe_loc;
/*
 * The rule of a row that is not CFI_ROW_BAD or CFI_ROW_OUTERMOST as SFrame
 * locations, at @pc (a CFI_ROW_PLT row's CFA depends on it): what a v3 flex
 * FRE says, and what the default shape says where it can.
 */
void cfi_row_locs(const struct cfi_row *r, uint64_t pc, struct sframe_loc *cfa,
		  struct sframe_loc *ra, struct sframe_loc *fp);

#endif
