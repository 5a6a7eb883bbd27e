/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfi_classify.h - a libdw CFI row to a struct cfi_row (cfi_classify.c),
 * for cfi_rules.c, which walks .eh_frame's rows.
 */
#ifndef SFRAME_REGISTER_CFI_CLASSIFY_H
#define SFRAME_REGISTER_CFI_CLASSIFY_H

#include <stdbool.h>
#include <elfutils/libdw.h>
#include "cfi_row.h"

/*
 * @r's kind, bad, CFA, rbp and PLT fields from libdw's frame @fr (its RA
 * column @ra_reg, a signal frame if @signal); @r's range is the caller's.
 */
void cfi_classify(Dwarf_Frame *fr, int ra_reg, bool signal, struct cfi_row *r);

#endif
