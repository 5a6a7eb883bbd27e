// SPDX-License-Identifier: GPL-2.0
/*
 * fde_list.c - the generator's FDE/FRE lists (fde_list.h).  FREs live in
 * one pool that grows as FDEs are added: an FDE's FRE pointer would move
 * with each realloc, so FDEs hold an index until fde_list_seal().
 */
#include <stdlib.h>
#include "fde_list.h"

int fde_list_add(struct fde_list *l, uint64_t start, uint64_t size,
		 bool pcmask)
{
	if (size == 0 || size > UINT32_MAX)
		return 1;
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 1024;
		struct sfe_fde *f = realloc(l->fdes, nc * sizeof(*f));
		size_t *fi;

		if (!f)
			return -1;
		l->fdes = f;
		fi = realloc(l->first, nc * sizeof(*fi));
		if (!fi)
			return -1;
		l->first = fi;
		l->cap = nc;
	}
	l->fdes[l->n] = (struct sfe_fde){
		.start = start, .size = (u32)size, .pcmask = pcmask,
		.rep_size = pcmask ? 16 : 0,
	};
	l->first[l->n] = l->nfres;
	l->n++;
	return 0;
}

int fde_list_add_fre(struct fde_list *l, const struct sfe_fre *fre)
{
	if (l->nfres == l->frecap) {
		size_t nc = l->frecap ? l->frecap * 2 : 4096;
		struct sfe_fre *f = realloc(l->fres, nc * sizeof(*f));

		if (!f)
			return -1;
		l->fres = f;
		l->frecap = nc;
	}
	l->fres[l->nfres++] = *fre;
	l->fdes[l->n - 1].nfres++;
	return 0;
}

void fde_list_drop_last(struct fde_list *l)
{
	l->nfres = l->first[--l->n];
}

int fde_list_plt_entries(struct fde_list *l, uint64_t start, uint64_t end,
			 unsigned int k, const struct sfe_fre *fp_from)
{
	struct sfe_fre f = { .cfa_base = SFE_BASE_SP, .cfa_off = 8 };
	int rc;

	if (fp_from) {
		f.fp_saved = fp_from->fp_saved;
		f.fp_off = fp_from->fp_off;
	}
	rc = fde_list_add(l, start, end - start, true);
	if (rc)
		return rc;
	if (k == 0)
		f.cfa_off = 16;
	if (fde_list_add_fre(l, &f))
		return -1;
	if (k > 0 && k < 16) {
		f.start = k;
		f.cfa_off = 16;
		if (fde_list_add_fre(l, &f))
			return -1;
	}
	return 0;
}

void fde_list_seal(struct fde_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		l->fdes[i].fres = l->fres + l->first[i];
}

void fde_list_free(struct fde_list *l)
{
	free(l->fdes);
	free(l->fres);
	free(l->first);
}
