// SPDX-License-Identifier: GPL-2.0
/*
 * gen_sframe.c - turn .eh_frame row tables (cfi_rules.c) into SFrame.
 *
 * One .eh_frame FDE gives one SFrame FDE whose FREs are its rows, except:
 *   - rows whose CFA is in another general register (cfi_row.h
 *     CFI_ROW_REG: a stack-clash probe loop's r11, ld.so's
 *     _dl_runtime_resolve realigning the stack on rbx) are a v3 flex FDE
 *     of their own between the function's default FDEs, exact where the
 *     walker has that register (the interrupted frame); v1/v2 leave a gap;
 *   - a function with rows SFrame cannot express (CFI_ROW_BAD) gets one
 *     FDE for each run of rows it can, and is counted: the walker falls
 *     back only in the gaps (longjmp and vfork after their register
 *     switch), not in the whole function; a signal frame, or a function
 *     libdw could not read, is left out whole;
 *   - RA-undefined rows become outermost FREs (no data words) in v2/v3; v1
 *     has no way to say it, so such functions are left out of v1;
 *   - ld's .plt FDE (PLT0 rows, then the "rsp + 8 + ((rip & 15) >= k) * 8"
 *     expression for the entries) becomes a PCINC FDE for PLT0 and a PCMASK
 *     FDE with rep_size 16 for the entries, exactly what ld emits;
 *   - code that no .eh_frame FDE covers but whose shape is known (PLTs
 *     without CFI, .init/.fini, libgcc's crtbegin functions) gets FDEs
 *     made from its bytes (gen_synth.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include "gen_sframe.h"
#include "fde_list.h"
#include "gen_synth.h"

static struct sfe_fre row_fre(const struct cfi_row *r, uint64_t base)
{
	struct sfe_fre f = {
		.start = (u32)(r->start - base),
		.cfa_base = r->cfa_reg == 7 ? SFE_BASE_SP : SFE_BASE_FP,
		.cfa_off = r->cfa_off,
		.fp_saved = r->fp_saved,
		.fp_off = r->fp_off,
		.outermost = r->kind == CFI_ROW_OUTERMOST,
	};

	if (r->kind == CFI_ROW_REG)	/* a v3 flex FRE */
		cfi_row_locs(r, r->start, &f.cfa, &f.ra, &f.fp);
	return f;
}

/* PCINC FDE over rows [a, b) of a function (flex: all CFI_ROW_REG). */
static int emit_rows(struct fde_list *l, const struct cfi_row *rows,
		     size_t a, size_t b)
{
	uint64_t start = rows[a].start;
	int rc = fde_list_add(l, start, rows[b - 1].end - start, false);

	if (rc)
		return rc;
	l->fdes[l->n - 1].flex = rows[a].kind == CFI_ROW_REG;
	for (size_t i = a; i < b; i++) {
		struct sfe_fre f = row_fre(&rows[i], start);

		if (fde_list_add_fre(l, &f))
			return -1;
	}
	return 0;
}

/* Can @version say @r (in a default FDE, or for CFI_ROW_REG a flex one)? */
static bool row_ok(const struct cfi_row *r, int version)
{
	return r->kind == CFI_ROW_OK ||
	       (r->kind == CFI_ROW_OUTERMOST && version != SFRAME_VERSION_1) ||
	       (r->kind == CFI_ROW_REG && version == SFRAME_VERSION_3);
}

/*
 * A function with rows other than CFI_ROW_OK: an FDE for each run of the
 * rows SFrame can say (outermost ones from v2 on; CFI_ROW_REG ones in a
 * flex FDE of their own, in v3), none over the others.  Returns 0 (all
 * said), 1 (counted as left out, in part), -1 out of memory.
 */
static int emit_runs(struct fde_list *l, const struct cfi_row *rows,
		     size_t n, int version)
{
	size_t a = 0, b;
	int gap = 0;

	for (b = 0; b < n; b++)
		if (rows[b].kind == CFI_ROW_BAD && (rows[b].bad == CFI_BAD_SIGNAL ||
						    rows[b].bad == CFI_BAD_LIBDW))
			return 1;
	for (b = 0; b <= n; b++) {
		bool ok = b < n && row_ok(&rows[b], version);

		/* a run goes on while it stays default, or stays flex */
		if (ok && (b == a || (rows[b].kind == CFI_ROW_REG) ==
				     (rows[a].kind == CFI_ROW_REG)))
			continue;
		if (b > a && emit_rows(l, rows, a, b) < 0)
			return -1;
		if (b < n && !ok)
			gap = 1;
		a = ok ? b : b + 1;
	}
	return gap;
}

/* Returns 0 emitted, 1 left out (counted), -1 out of memory. */
static int emit_func(struct fde_list *l, const struct cfi_table *t,
		     const struct cfi_func *fn, int version,
		     struct gen_stats *st)
{
	const struct cfi_row *rows = t->rows + fn->first_row;
	struct sfe_fre fp;
	size_t p;
	int rc;

	if (!fn->nrows)
		return 1;
	switch (fn->worst) {
	case CFI_ROW_OK:
		return emit_rows(l, rows, 0, fn->nrows);
	case CFI_ROW_OUTERMOST:
		if (version == SFRAME_VERSION_1) {
			st->outermost_v1++;
			return 1;
		}
		return emit_rows(l, rows, 0, fn->nrows);
	case CFI_ROW_PLT:
		for (p = 0; p < fn->nrows && rows[p].kind != CFI_ROW_PLT; p++)
			;
		for (size_t i = p; i < fn->nrows; i++)
			if (rows[i].kind != CFI_ROW_PLT ||
			    rows[i].plt_k != rows[p].plt_k ||
			    rows[i].fp_saved != rows[p].fp_saved)
				goto odd;
		for (size_t i = 0; i < p; i++)
			if (rows[i].kind != CFI_ROW_OK)
				goto odd;
		/* (pc & 15) == (pc - start) % 16 only for aligned blocks */
		if (rows[p].start & 15)
			goto odd;
		if (p) {
			rc = emit_rows(l, rows, 0, p);
			if (rc)
				return rc;
		}
		fp = row_fre(&rows[p], 0);
		rc = fde_list_plt_entries(l, rows[p].start, fn->end,
					  rows[p].plt_k, &fp);
		if (rc && p)
			fde_list_drop_last(l);
		return rc;
	case CFI_ROW_REG:
		if (version == SFRAME_VERSION_3)
			st->flex++;
		else
			st->bad[CFI_BAD_CFA]++;
		return emit_runs(l, rows, fn->nrows, version);
	default:
		st->bad[fn->bad]++;
		return emit_runs(l, rows, fn->nrows, version);
	}
odd:
	st->plt_odd++;
	return 1;
}

int gen_sframe_build(Elf *elf, int version, uint64_t section_vaddr,
		     void **out, size_t *len, struct gen_stats *st,
		     char *err, size_t errlen)
{
	struct cfi_table t;
	struct fde_list l = { 0 };
	int ret = -1, rc;

	memset(st, 0, sizeof(*st));
	if (version < SFRAME_VERSION_1 || version > SFRAME_VERSION_3) {
		snprintf(err, errlen, "bad version %d", version);
		return -1;
	}
	if (cfi_rules_load(elf, &t, err, errlen))
		return -1;
	st->funcs = t.nfuncs;
	st->dup_fdes = t.dup_fdes;
	st->bad_range = t.bad_range;
	for (size_t i = 0; i < t.nfuncs; i++) {
		rc = emit_func(&l, &t, &t.funcs[i], version, st);
		if (rc < 0)
			goto oom;
		if (rc > 0)
			st->left_out++;
	}
	if (gen_synth(elf, &t, &l, st))
		goto oom;
	fde_list_seal(&l);
	for (size_t i = 0; i < l.n; i++)
		st->pcmask += l.fdes[i].pcmask;
	st->fdes = l.n;
	st->fres = l.nfres;
	rc = sframe_encode(version,
			   version == SFRAME_VERSION_3 ?
			   SFRAME_F_FDE_FUNC_START_PCREL : 0,
			   section_vaddr, l.fdes, l.n, out, len);
	if (rc) {
		snprintf(err, errlen, "sframe_encode: %s", strerror(-rc));
		goto out;
	}
	ret = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	fde_list_free(&l);
	cfi_rules_free(&t);
	return ret;
}

void gen_stats_print(FILE *f, const char *what, const struct gen_stats *st)
{
	fprintf(f, "%s: %zu functions, %zu FDEs (%zu PCMASK), %zu FREs, "
		"%zu with a CFA in another register (v3 flex); "
		"left out %zu (cfa %zu, ra %zu, fp %zu, signal %zu, libdw %zu, "
		"outermost-v1 %zu, plt %zu); synthesized PLTs %zu, "
		".init/.fini %zu, crtbegin %zu%s\n",
		what, st->funcs, st->fdes, st->pcmask, st->fres, st->flex,
		st->left_out,
		st->bad[CFI_BAD_CFA], st->bad[CFI_BAD_RA], st->bad[CFI_BAD_FP],
		st->bad[CFI_BAD_SIGNAL], st->bad[CFI_BAD_LIBDW],
		st->outermost_v1, st->plt_odd, st->synth_plt, st->synth_crt,
		st->synth_crtbegin,
		st->dup_fdes || st->bad_range ? "; bad .eh_frame FDEs dropped" :
		"");
}

int gen_sframe_entry(Elf *elf, const struct cache_src *src, void **out,
		     size_t *len, struct cache_hdr *h, char *err, size_t errlen)
{
	struct gen_stats st;
	int ret;

	*out = NULL;
	*len = 0;
	ret = gen_sframe_build(elf, CACHE_SFRAME_VERSION, 0, out, len, &st,
			       err, errlen);
	if (ret) {
		*out = NULL;
		*len = 0;
	}
	entry_hdr_init(h, *len, (uint32_t)st.funcs, (uint32_t)st.left_out, src);
	return ret;
}
