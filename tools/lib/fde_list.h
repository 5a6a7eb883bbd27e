/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fde_list.h - the generator's growing list of SFrame FDEs and their FREs,
 * what gen_sframe.c (from .eh_frame rows) and gen_synth.c (from the bytes
 * of code without CFI) append to and sframe_encode() takes.
 */
#ifndef SFRAME_REGISTER_FDE_LIST_H
#define SFRAME_REGISTER_FDE_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sframe_encode.h"

struct fde_list {
	struct sfe_fde *fdes;
	size_t n, cap;
	struct sfe_fre *fres;	/* one pool; fdes[i].fres set by fde_list_seal */
	size_t nfres, frecap;
	size_t *first;		/* first FRE index of each FDE */
};

/* Start an FDE over [start, start + size).  0, 1 (bad size), -1 (OOM). */
int fde_list_add(struct fde_list *l, uint64_t start, uint64_t size,
		 bool pcmask);
/* Append @fre to the last FDE.  0 or -1 (OOM). */
int fde_list_add_fre(struct fde_list *l, const struct sfe_fre *fre);
/* Take back the last FDE and its FREs. */
void fde_list_drop_last(struct fde_list *l);
/*
 * ld's PLT entries over [start, end), 16 bytes each: a PCMASK FDE, CFA
 * rsp+8 until offset k of each entry (its push), rsp+16 from there (k 0:
 * rsp+16 throughout); rbp as @fp_from says, if given.  0, 1, -1 as above.
 */
int fde_list_plt_entries(struct fde_list *l, uint64_t start, uint64_t end,
			 unsigned int k, const struct sfe_fre *fp_from);
/* Point each FDE at its FREs, once the list is complete. */
void fde_list_seal(struct fde_list *l);
void fde_list_free(struct fde_list *l);

#endif
