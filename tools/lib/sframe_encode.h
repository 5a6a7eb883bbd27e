/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sframe_encode.h - build an SFrame section (v1, v2, v3) from FDE/FRE lists.
 * User space only (allocates).  The decoder is module/ustack_sframe.h.
 */
#ifndef SFRAME_ENCODE_H
#define SFRAME_ENCODE_H

#include <stddef.h>
#include "ustack_sframe.h"

#define SFE_BASE_FP	0
#define SFE_BASE_SP	1

struct sfe_fre {
	u32 start;		/* from function start (PCMASK: block start) */
	/* default FDEs */
	u8 cfa_base;		/* SFE_BASE_SP or SFE_BASE_FP */
	s32 cfa_off;		/* CFA = base + cfa_off */
	bool fp_saved;		/* rbp saved at CFA + fp_off, else unchanged */
	s32 fp_off;
	bool outermost;		/* RA undefined: no data words (v2, v3) */
	/*
	 * v3 flex FDEs (sfe_fde.flex) use these instead: cfa must be
	 * SFRAME_LOC_REG_VAL or REG_DEREF; ra {CFA_DEREF, -8} and fp SAME are
	 * the defaults and take no words.  Register numbers are DWARF.
	 */
	struct sframe_loc cfa, ra, fp;
};

struct sfe_fde {
	u64 start;		/* function address */
	u32 size;
	bool pcmask;		/* FRE starts repeat every rep_size bytes */
	u8 rep_size;		/* v2, v3 (v1: must be 0 or 16) */
	bool signal;		/* v3 only */
	bool flex;		/* v3 only */
	const struct sfe_fre *fres;
	u32 nfres;		/* v3: 0 = outermost function */
};

/*
 * Encode @n FDEs (any order; they are sorted) as an SFrame section of
 * @version (1, 2 or 3) to be placed at @section_vaddr.  @flags may hold
 * SFRAME_F_FDE_FUNC_START_PCREL (v2, v3) and SFRAME_F_FRAME_POINTER (v1, v2);
 * SFRAME_F_FDE_SORTED is always set.  The FRE type follows the function size
 * and each FRE's data words take the smallest size that holds them.
 * On success *out (free() it) and *out_len are set and 0 is returned; else
 * -EINVAL (bad input), -EOPNOTSUPP (not expressible in @version: flex or
 * signal before v3, outermost or rep_size other than 16 in v1) or -ERANGE
 * (an offset or count too large for @version).
 */
int sframe_encode(int version, unsigned int flags, u64 section_vaddr,
		  const struct sfe_fde *fdes, size_t n, void **out,
		  size_t *out_len);

#endif
