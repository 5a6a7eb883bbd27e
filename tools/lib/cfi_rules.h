/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfi_rules.h - per-function row tables from an ELF file's .eh_frame, read
 * with libdw's CFI API (dwarf_getcfi_elf, dwarf_cfi_addrframe,
 * dwarf_frame_info/cfa/register), classified by what SFrame can express.
 *
 * Every .eh_frame FDE becomes one struct cfi_func: its PC range and its rows,
 * each row a PC range with one rule (cfi_row.h).
 */
#ifndef SFRAME_REGISTER_CFI_RULES_H
#define SFRAME_REGISTER_CFI_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>
#include "cfi_row.h"

struct cfi_func {
	uint64_t start, end;	/* the FDE's range, file vaddr */
	uint32_t first_row, nrows;	/* into cfi_table.rows */
	uint8_t worst;		/* highest cfi_row_kind of its rows */
	uint8_t bad;		/* first enum cfi_bad seen */
};

struct cfi_table {
	struct cfi_func *funcs;	/* sorted by start */
	size_t nfuncs;
	struct cfi_row *rows;
	size_t nrows;
	size_t dup_fdes;	/* FDEs dropped because they overlap another */
	size_t bad_range;	/* FDEs dropped: not inside executable code */
};

/* Read @elf's .eh_frame.  Returns 0, or -1 with a message in @err. */
int cfi_rules_load(Elf *elf, struct cfi_table *t, char *err, size_t errlen);
void cfi_rules_free(struct cfi_table *t);
/* The function covering @pc (binary search), or NULL. */
const struct cfi_func *cfi_find_func(const struct cfi_table *t, uint64_t pc);
/* The row of @f covering @pc, or NULL. */
const struct cfi_row *cfi_find_row(const struct cfi_table *t,
				   const struct cfi_func *f, uint64_t pc);

#endif
