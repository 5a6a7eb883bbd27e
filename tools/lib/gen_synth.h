/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gen_synth.h - FDEs for code that has no CFI but a known shape, made from
 * its bytes: PLT sections, .init and .fini, libgcc's crtbegin code.
 */
#ifndef SFRAME_REGISTER_GEN_SYNTH_H
#define SFRAME_REGISTER_GEN_SYNTH_H

#include <gelf.h>
#include "cfi_rules.h"
#include "fde_list.h"

struct gen_stats;

/*
 * Append to @l the FDEs of @elf's code that @t (its .eh_frame) does not
 * cover and whose bytes have a known shape; count them in @st.  Returns 0,
 * or -1 out of memory.
 */
int gen_synth(Elf *elf, const struct cfi_table *t, struct fde_list *l,
	      struct gen_stats *st);

#endif
