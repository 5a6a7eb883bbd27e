/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gen_sframe.h - the .eh_frame -> SFrame generator: cfi_rules.h row tables
 * turned into sframe_encode.h FDE/FRE lists, PLT blocks included, and
 * FDEs for code without CFI (gen_synth.h).
 */
#ifndef SFRAME_REGISTER_GEN_SFRAME_H
#define SFRAME_REGISTER_GEN_SFRAME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <gelf.h>
#include "cfi_rules.h"
#include "sframe_entry.h"

struct gen_stats {
	size_t funcs;			/* .eh_frame FDEs */
	size_t fdes, fres, pcmask;	/* emitted */
	size_t flex;			/* functions with CFI_ROW_REG rows, v3 */
	size_t left_out;		/* functions left out, by reason: */
	size_t bad[CFI_BAD_MAX];	/* CFI SFrame cannot express */
	size_t outermost_v1;		/* RA undefined: v1 cannot say it */
	size_t plt_odd;			/* PLT rule in an unexpected shape */
	size_t synth_plt;		/* PLT sections without CFI, synthesized */
	size_t synth_crt;		/* .init and .fini, synthesized */
	size_t synth_crtbegin;		/* libgcc's crtbegin code, synthesized */
	size_t dup_fdes;		/* overlapping .eh_frame FDEs dropped */
	size_t bad_range;		/* FDEs outside executable code dropped */
};

/*
 * Build an SFrame section of @version (1, 2, 3) for @elf, to be placed at
 * @section_vaddr.  v3 (and nothing else) gets SFRAME_F_FDE_FUNC_START_PCREL.
 * Returns 0 with *out (free() it) / *len, or -1 with a message in @err.
 */
int gen_sframe_build(Elf *elf, int version, uint64_t section_vaddr,
		     void **out, size_t *len, struct gen_stats *st,
		     char *err, size_t errlen);

/* Print @st as one line "gen: ..." to @f. */
void gen_stats_print(FILE *f, const char *what, const struct gen_stats *st);

/*
 * An entry (sframe_entry.h) for the object @elf read from the file @src
 * (its identity; zero for the vDSO, which has no file):
 * SFrame v3 at vaddr 0 into *@out (free() it), *@len bytes, and its header
 * @h.  Returns 0; or -1 with a message in @err and an empty entry (no
 * SFrame, *@out NULL): what is kept for an object without usable
 * .eh_frame, so that it is not generated again.
 */
int gen_sframe_entry(Elf *elf, const struct cache_src *src, void **out,
		     size_t *len, struct cache_hdr *h, char *err, size_t errlen);

#endif
