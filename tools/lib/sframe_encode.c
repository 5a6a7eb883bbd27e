// SPDX-License-Identifier: GPL-2.0
/* sframe_encode.c - SFrame v1/v2/v3 encoder (user space, tools and tests). */
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include "sframe_encode.h"

struct buf {
	u8 *p;
	size_t len, cap;
	int err;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->err || !n)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		u8 *np;

		while (cap < b->len + n)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np) {
			b->err = -ENOMEM;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void put_le(struct buf *b, u64 v, unsigned int n)
{
	u8 t[8];

	for (unsigned int i = 0; i < n; i++)
		t[i] = (u8)(v >> (8 * i));
	put(b, t, n);
}

static void set_le(u8 *p, u64 v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		p[i] = (u8)(v >> (8 * i));
}

static int cmp_fde(const void *a, const void *b)
{
	const struct sfe_fde *x = *(const struct sfe_fde * const *)a;
	const struct sfe_fde *y = *(const struct sfe_fde * const *)b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Data words of one FRE: signed values plus "unsigned" markers for ctrl. */
struct words {
	s64 v[SFRAME_MAX_WORDS];
	bool ctrl[SFRAME_MAX_WORDS];
	unsigned int n;
};

static void w_add(struct words *w, s64 v, bool ctrl)
{
	w->v[w->n] = v;
	w->ctrl[w->n] = ctrl;
	w->n++;
}

static int flex_ctrl(const struct sframe_loc *l, u32 *ctrl)
{
	switch (l->kind) {
	case SFRAME_LOC_CFA_DEREF:
		*ctrl = SFRAME_FLEX_DEREF_P;
		return 0;
	case SFRAME_LOC_CFA_VAL:
		/* ctrl 0 is the pad word: CFA+off itself is not expressible */
		return -EOPNOTSUPP;
	case SFRAME_LOC_REG_DEREF:
	case SFRAME_LOC_REG_VAL:
		if (l->reg >= SFRAME_REG_RA)
			return -EINVAL;
		*ctrl = (u32)l->reg << 3 | SFRAME_FLEX_REG_P |
			(l->kind == SFRAME_LOC_REG_DEREF ? SFRAME_FLEX_DEREF_P : 0);
		return 0;
	default:
		return -EINVAL;
	}
}

static int fre_words(int version, const struct sfe_fde *f,
		     const struct sfe_fre *r, struct words *w)
{
	u32 ctrl;
	int err;
	bool ra_def, fp_def;

	w->n = 0;
	if (r->outermost)
		return version == SFRAME_VERSION_1 ? -EOPNOTSUPP : 0;
	if (!f->flex) {
		if (r->cfa_base != SFE_BASE_SP && r->cfa_base != SFE_BASE_FP)
			return -EINVAL;
		w_add(w, r->cfa_off, false);
		if (r->fp_saved)
			w_add(w, r->fp_off, false);
		return 0;
	}
	if (r->cfa.kind != SFRAME_LOC_REG_VAL &&
	    r->cfa.kind != SFRAME_LOC_REG_DEREF)
		return -EINVAL;
	err = flex_ctrl(&r->cfa, &ctrl);
	if (err)
		return err;
	w_add(w, ctrl, true);
	w_add(w, r->cfa.off, false);
	ra_def = r->ra.kind == SFRAME_LOC_CFA_DEREF && r->ra.off == -8;
	fp_def = r->fp.kind == SFRAME_LOC_SAME;
	if (!ra_def) {
		err = flex_ctrl(&r->ra, &ctrl);
		if (err)
			return err;
		w_add(w, ctrl, true);
		w_add(w, r->ra.off, false);
	} else if (!fp_def) {
		w_add(w, 0, true);	/* RA: padding, default rule */
	}
	if (!fp_def) {
		err = flex_ctrl(&r->fp, &ctrl);
		if (err)
			return err;
		w_add(w, ctrl, true);
		w_add(w, r->fp.off, false);
	}
	return 0;
}

/* Smallest word size code (0: 1 byte, 1: 2, 2: 4) holding all words. */
static int word_size(const struct words *w)
{
	int s = 0;

	for (unsigned int i = 0; i < w->n; i++) {
		s64 v = w->v[i];
		int need;

		if (w->ctrl[i])
			need = v <= 0xff ? 0 : v <= 0xffff ? 1 : 2;
		else
			need = (v >= -128 && v <= 127) ? 0 :
			       (v >= -32768 && v <= 32767) ? 1 : 2;
		if (!w->ctrl[i] && (v < INT32_MIN || v > INT32_MAX))
			return -ERANGE;
		if (need > s)
			s = need;
	}
	return s;
}

static bool base_sp(const struct sfe_fde *f, const struct sfe_fre *r)
{
	/* The control word names the CFA's register; gas 2.47 leaves the bit 0. */
	if (f->flex)
		return false;
	return r->cfa_base == SFE_BASE_SP;
}

static int put_fres(struct buf *b, int version, const struct sfe_fde *f,
		    unsigned int type)
{
	u32 limit = f->pcmask ? f->rep_size : f->size;
	unsigned int asz = 1U << type;

	for (u32 j = 0; j < f->nfres; j++) {
		const struct sfe_fre *r = &f->fres[j];
		struct words w;
		int s, err;

		if (j && r->start <= f->fres[j - 1].start)
			return -EINVAL;
		if (r->start >= limit)
			return -EINVAL;
		err = fre_words(version, f, r, &w);
		if (err)
			return err;
		s = word_size(&w);
		if (s < 0)
			return s;
		put_le(b, r->start, asz);
		put_le(b, (base_sp(f, r) ? SFRAME_FRE_BASE_SP : 0) |
			  w.n << 1 | (unsigned int)s << 5, 1);
		for (unsigned int i = 0; i < w.n; i++)
			put_le(b, (u64)w.v[i], 1U << s);
	}
	return 0;
}

/* The encoding's state: the FDE and FRE sub-sections as they grow. */
struct enc {
	int version;
	unsigned int flags, fde_size;
	u64 section_vaddr;
	struct buf fb, rb;
	u64 total_fres;
};

/* The FDE's info byte (FRE type, PCMASK, signal), or -errno. */
static int fde_info(const struct enc *e, const struct sfe_fde *f,
		    unsigned int type, u64 rel)
{
	int info = (int)type;

	if ((f->flex || f->signal) && e->version != SFRAME_VERSION_3)
		return -EOPNOTSUPP;
	if (f->pcmask) {
		if (e->version == SFRAME_VERSION_1 ?
		    (f->rep_size && f->rep_size != SFRAME_V1_PCMASK_SIZE) :
		    !f->rep_size)
			return e->version == SFRAME_VERSION_1 ? -EOPNOTSUPP : -EINVAL;
		info |= SFRAME_INFO_PCMASK;
	}
	if (f->signal)
		info |= SFRAME_INFO_SIGNAL_V3;
	if (e->version != SFRAME_VERSION_3 && (s64)rel != (s32)rel)
		return -ERANGE;
	if (f->nfres && !f->fres)
		return -EINVAL;
	if (e->version == SFRAME_VERSION_3 && f->nfres > 0xffff)
		return -ERANGE;
	if (!f->nfres && e->version != SFRAME_VERSION_3)
		return -EOPNOTSUPP;
	return info;
}

/* The @i-th FDE (in address order) and its FREs. */
static int encode_fde(struct enc *e, size_t i, const struct sfe_fde *f)
{
	u64 fde_field = e->section_vaddr + SFRAME_HDR_SIZE + i * e->fde_size;
	u64 rel = (e->flags & SFRAME_F_FDE_FUNC_START_PCREL) ?
		  f->start - fde_field : f->start - e->section_vaddr;
	/* FRE starts are below the function size (PCMASK: block) */
	u32 span = f->pcmask ? SFRAME_V1_PCMASK_SIZE : f->size;
	size_t fre_at = e->rb.len;
	unsigned int type;
	int info, err;

	if (f->pcmask && f->rep_size)
		span = f->rep_size;
	type = span < 0x100 ? SFRAME_FRE_TYPE_ADDR1 :
	       span < 0x10000 ? SFRAME_FRE_TYPE_ADDR2 : SFRAME_FRE_TYPE_ADDR4;
	info = fde_info(e, f, type, rel);
	if (info < 0)
		return info;
	e->total_fres += f->nfres;
	if (e->version == SFRAME_VERSION_3) {
		put_le(&e->rb, f->nfres, 2);
		put_le(&e->rb, info, 1);
		put_le(&e->rb, f->flex ? SFRAME_FDE_TYPE_FLEX :
					 SFRAME_FDE_TYPE_DEFAULT, 1);
		put_le(&e->rb, f->pcmask ? f->rep_size : 0, 1);
	}
	err = put_fres(&e->rb, e->version, f, type);
	if (err)
		return err;
	if (fre_at > UINT32_MAX)
		return -ERANGE;
	put_le(&e->fb, rel, e->version == SFRAME_VERSION_3 ? 8 : 4);
	put_le(&e->fb, f->size, 4);
	put_le(&e->fb, fre_at, 4);
	if (e->version == SFRAME_VERSION_3)
		return 0;
	put_le(&e->fb, f->nfres, 4);
	put_le(&e->fb, info, 1);
	if (e->version == SFRAME_VERSION_2) {
		put_le(&e->fb, f->pcmask ? f->rep_size : 0, 1);
		put_le(&e->fb, 0, 2);
	}
	return 0;
}

/* The section: header, FDEs, FREs, into @out. */
static void put_section(struct buf *out, const struct enc *e, size_t n)
{
	u8 hdr[SFRAME_HDR_SIZE];

	memset(hdr, 0, sizeof(hdr));
	set_le(hdr, SFRAME_MAGIC, 2);
	hdr[2] = (u8)e->version;
	hdr[3] = (u8)(e->flags | SFRAME_F_FDE_SORTED);
	hdr[4] = SFRAME_ABI_AMD64_ENDIAN_LITTLE;
	hdr[5] = 0;
	hdr[6] = (u8)(s8)-8;
	hdr[7] = 0;
	set_le(hdr + 8, n, 4);
	set_le(hdr + 12, e->total_fres, 4);
	set_le(hdr + 16, e->rb.len, 4);
	set_le(hdr + 20, 0, 4);
	set_le(hdr + 24, e->fb.len, 4);
	put(out, hdr, sizeof(hdr));
	put(out, e->fb.p, e->fb.len);
	put(out, e->rb.p, e->rb.len);
}

int sframe_encode(int version, unsigned int flags, u64 section_vaddr,
		  const struct sfe_fde *fdes, size_t n, void **out,
		  size_t *out_len)
{
	static const unsigned int known[SFRAME_VERSION_3 + 1] = {
		[SFRAME_VERSION_1] = SFRAME_F_FRAME_POINTER,
		[SFRAME_VERSION_2] = SFRAME_F_FRAME_POINTER |
				     SFRAME_F_FDE_FUNC_START_PCREL,
		[SFRAME_VERSION_3] = SFRAME_F_FDE_FUNC_START_PCREL,
	};
	struct enc e = { .version = version, .section_vaddr = section_vaddr };
	const struct sfe_fde **sorted = NULL;
	struct buf out_b = { 0 };
	int err = 0;

	*out = NULL;
	*out_len = 0;
	if (version < SFRAME_VERSION_1 || version > SFRAME_VERSION_3)
		return -EINVAL;
	e.flags = flags & ~SFRAME_F_FDE_SORTED;
	if (e.flags & ~known[version])
		return -EOPNOTSUPP;
	if (n > UINT32_MAX)
		return -ERANGE;
	e.fde_size = version == SFRAME_VERSION_1 ? SFRAME_FDE_SIZE_V1 :
		     version == SFRAME_VERSION_2 ? SFRAME_FDE_SIZE_V2 :
		     SFRAME_FDE_SIZE_V3;
	sorted = calloc(n ? n : 1, sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		sorted[i] = &fdes[i];
	qsort(sorted, n, sizeof(*sorted), cmp_fde);

	for (size_t i = 0; i < n && !err; i++)
		err = encode_fde(&e, i, sorted[i]);
	if (!err)
		err = e.fb.err ? e.fb.err : e.rb.err;
	if (!err && (e.rb.len > UINT32_MAX || e.total_fres > UINT32_MAX))
		err = -ERANGE;
	if (!err) {
		put_section(&out_b, &e, n);
		err = out_b.err;
	}
	free(sorted);
	free(e.fb.p);
	free(e.rb.p);
	if (err) {
		free(out_b.p);
		return err;
	}
	*out = out_b.p;
	*out_len = out_b.len;
	return 0;
}
