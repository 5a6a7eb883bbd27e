/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SFrame decoder's inline parts, shared by the whole-section reading
 * of sframe_decode.c and the lookup of sframe_find.c: fields in the
 * section's byte order, copies through the section's reader, FDEs, the
 * FRE window and FRE heads, and the rule an FRE's words give.  Private to
 * the core.
 *
 * Every offset is checked against the section before it is read: the
 * FDE array and the FRE sub-section against the header, an FRE against
 * the sub-section.
 */
#ifndef USTACK_SFRAME_DECODE_H
#define USTACK_SFRAME_DECODE_H

#include "ustack_sframe.h"

static __always_inline u16 sf_le16(const u8 *p)
{
	return (u16)(p[0] | p[1] << 8);
}

static __always_inline u32 sf_le32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

static __always_inline u64 sf_le64(const u8 *p)
{
	return (u64)sf_le32(p) | (u64)sf_le32(p + 4) << 32;
}

/*
 * @len bytes at section offset @off: user (or local) memory at sec->base,
 * or through the section's reader (a store file's page cache).
 */
static __always_inline int sf_sec_copy(const struct sframe_sec *sec, void *dst,
				       u32 off, size_t len)
{
	if (unlikely(sec->rd))
		return sec->rd->copy(sec->rd, dst, off, len);
	return sf_copy(dst, sec->base + off, len);
}

/*
 * FDE @idx: ustack_sframe_read_fde(), inline into the lookup, which reads
 * one FDE each time.
 */
static __always_inline int sf_read_fde(const struct sframe_sec *sec, u32 idx,
				       struct sframe_fde *fde)
{
	u8 b[SFRAME_FDE_SIZE_V2];
	u32 off, freoff;
	u64 rel;
	int err;

	if (idx >= sec->num_fdes)
		return SFRAME_E_FDE_OFF;
	off = sec->fde_off + idx * sec->fde_size;
	/* constant sizes: inline copies, not a memcpy call */
	if (sec->version == SFRAME_VERSION_1)
		err = sf_sec_copy(sec, b, off, SFRAME_FDE_SIZE_V1);
	else if (sec->version == SFRAME_VERSION_2)
		err = sf_sec_copy(sec, b, off, SFRAME_FDE_SIZE_V2);
	else
		err = sf_sec_copy(sec, b, off, SFRAME_FDE_SIZE_V3);
	if (err)
		return SFRAME_E_FAULT;
	fde->info2 = 0;
	if (sec->version == SFRAME_VERSION_3) {
		u8 a[SFRAME_FDE_ATTR_SIZE_V3];

		rel = sf_le64(b);
		fde->func_size = sf_le32(b + 8);
		freoff = sf_le32(b + 12);
		if ((u64)freoff + SFRAME_FDE_ATTR_SIZE_V3 > sec->fre_len)
			return SFRAME_E_FDE_FRES;
		if (sf_sec_copy(sec, a, sec->fre_off + freoff, sizeof(a)))
			return SFRAME_E_FAULT;
		fde->num_fres = sf_le16(a);
		fde->info = a[2];
		fde->info2 = a[3];
		fde->rep_size = a[4];
		freoff += SFRAME_FDE_ATTR_SIZE_V3;
		if (SFRAME_INFO2_FDE_TYPE(fde->info2) > SFRAME_FDE_TYPE_FLEX ||
		    (fde->info2 & ~0x1f))
			return SFRAME_E_FDE_TYPE;
	} else {
		rel = (u64)(s64)(s32)sf_le32(b);
		fde->func_size = sf_le32(b + 4);
		freoff = sf_le32(b + 8);
		fde->num_fres = sf_le32(b + 12);
		fde->info = b[16];
		fde->rep_size = sec->version == SFRAME_VERSION_1 ?
				SFRAME_V1_PCMASK_SIZE : b[17];
		if (freoff > sec->fre_len)
			return SFRAME_E_FDE_FRES;
	}
	if (sec->flags & SFRAME_F_FDE_FUNC_START_PCREL)
		fde->func_start = sec->vaddr + off + rel;
	else
		fde->func_start = sec->vaddr + rel;
	if (fde->num_fres && freoff >= sec->fre_len)
		return SFRAME_E_FDE_FRES;
	fde->fres_off = sec->fre_off + freoff;
	if (fde->func_start + fde->func_size < fde->func_start)
		return SFRAME_E_FUNC_RANGE;
	if (SFRAME_INFO_FRE_TYPE(fde->info) > SFRAME_FRE_TYPE_ADDR4)
		return SFRAME_E_FRE_TYPE;
	if ((fde->info & SFRAME_INFO_PCMASK) && !fde->rep_size)
		return SFRAME_E_REP_SIZE;
	return 0;
}

/*
 * FREs are read through a small window: one copy of up to SF_WIN bytes
 * serves several FREs (one copy_from_user instead of two per FRE in the
 * kernel).  The window never extends past the FRE sub-section.
 */
#define SF_WIN		80	/* > the largest FRE: 4 + 1 + 15 * 4 bytes */

struct sf_win {
	u32 at, len;		/* section offsets [at, at + len) are in buf */
	u8 buf[SF_WIN];
};

static inline int sf_win_fill(const struct sframe_sec *sec, struct sf_win *w,
		       u32 pos)
{
	u32 end = sec->fre_off + sec->fre_len;
	u32 n = end - pos;

	if (n >= SF_WIN) {
		if (sf_sec_copy(sec, w->buf, pos, SF_WIN))
			return SFRAME_E_FAULT;
		n = SF_WIN;
	} else if (sf_sec_copy(sec, w->buf, pos, n)) {
		return SFRAME_E_FAULT;
	}
	w->at = pos;
	w->len = n;
	return 0;
}

/* sf_win_get() of bytes already checked to lie in the FRE sub-section */
static __always_inline int sf_win_at(const struct sframe_sec *sec,
				     struct sf_win *w, u32 pos, u32 need,
				     const u8 **p)
{
	int err;

#ifdef SF_ENV_DIRECT
	/* local memory: the checked bytes in place, no copy */
	if (likely(!sec->rd)) {
		*p = sf_env_direct(sec->base + pos);
		return 0;
	}
#endif
	if (pos < w->at || pos - w->at + need > w->len) {
		err = sf_win_fill(sec, w, pos);
		if (err)
			return err;
	}
	*p = w->buf + (pos - w->at);
	return 0;
}

/* Bytes [pos, pos + need) of the FRE sub-section, or an error. */
static __always_inline int sf_win_get(const struct sframe_sec *sec,
				      struct sf_win *w, u32 pos, u32 need,
				      const u8 **p)
{
	u32 end = sec->fre_off + sec->fre_len;

	if (pos < sec->fre_off || pos > end || end - pos < need)
		return SFRAME_E_FRE_OVERRUN;
	return sf_win_at(sec, w, pos, need, p);
}

/*
 * The start and info byte of an FRE from its first (1 << @type) + 1 bytes
 * at @b, already checked to lie in the FRE sub-section (as sf_win_at() is
 * to sf_win_get()); *size: its whole length.
 */
static __always_inline int sf_fre_head_at(const u8 *b, const unsigned int type,
					  u32 *start, u8 *info, u32 *size)
{
	const u32 asz = 1U << type;

	if (type == SFRAME_FRE_TYPE_ADDR1)
		*start = b[0];
	else if (type == SFRAME_FRE_TYPE_ADDR2)
		*start = sf_le16(b);
	else
		*start = sf_le32(b);
	*info = b[asz];
	if (SFRAME_FRE_SIZE(*info) == 3)
		return SFRAME_E_FRE_SIZE;
	*size = asz + 1 + (SFRAME_FRE_COUNT(*info) << SFRAME_FRE_SIZE(*info));
	return 0;
}

/*
 * Read the start and info byte of the FRE at @pos; set *size to its whole
 * length.  Only the bytes of the FRE sub-section are ever read.
 */
static __always_inline int sf_fre_head(const struct sframe_sec *sec,
				       struct sf_win *w, unsigned int type,
				       u32 pos, u32 *start, u8 *info,
				       u32 *size)
{
	const u8 *b;
	int err;

	err = sf_win_get(sec, w, pos, (1U << type) + 1, &b);
	if (!err)
		err = sf_fre_head_at(b, type, start, info, size);
	if (err)
		return err;
	return sf_win_get(sec, w, pos, *size, &b);
}

/* Data words of the FRE at @pos (its head already checked). */
static inline int sf_fre_words(const struct sframe_sec *sec,
			       struct sf_win *w, u32 pos, u32 size,
			       struct sframe_fre *fre)
{
	unsigned int asz = size - fre->nwords *
			   (1U << SFRAME_FRE_SIZE(fre->info)) - 1;
	unsigned int n = fre->nwords, i;
	unsigned int wsz = 1U << SFRAME_FRE_SIZE(fre->info);
	const u8 *b;
	int err;

	err = sf_win_get(sec, w, pos, size, &b);
	if (err)
		return err;
	b += asz + 1;
	for (i = 0; i < n; i++, b += wsz) {
		if (wsz == 1) {
			fre->words[i] = (s8)b[0];
			fre->uwords[i] = b[0];
		} else if (wsz == 2) {
			fre->words[i] = (s16)sf_le16(b);
			fre->uwords[i] = sf_le16(b);
		} else {
			fre->words[i] = (s32)sf_le32(b);
			fre->uwords[i] = sf_le32(b);
		}
	}
	return 0;
}

/*
 * What every rule of an FRE with @info shares: flags, function, the CFA's
 * base register, RA at the header's fixed offset (or, where the ABI tracks
 * it per FRE, in the link register until an FRE says it was saved), FP
 * unchanged.  True: the FRE has no data
 * words (@n), the rule is complete (outermost).
 */
static __always_inline bool sf_rule_base(const struct sframe_sec *sec,
					 const struct sframe_fde *fde,
					 u32 start, u8 info, unsigned int n,
					 struct sframe_rule *r)
{
	r->flags = 0;
	r->fde_info = fde->info;
	r->fde_info2 = fde->info2;
	r->func_start = fde->func_start;
	r->func_size = fde->func_size;
	r->fre_start = start;
	if (fde->info & SFRAME_INFO_PCMASK)
		r->flags |= SFRAME_R_PCMASK;
	if (sec->version == SFRAME_VERSION_3 &&
	    (fde->info & SFRAME_INFO_SIGNAL_V3))
		r->flags |= SFRAME_R_SIGNAL;
	r->cfa.kind = SFRAME_LOC_REG_VAL;
	r->cfa.reg = (info & SFRAME_FRE_BASE_SP) ?
		     SFRAME_REG_SP : SFRAME_REG_FP;
	r->cfa.off = 0;
#if USTACK_ARCH_SFRAME_FIXED_RA
	r->ra.kind = SFRAME_LOC_CFA_DEREF;
	r->ra.reg = 0;
	r->ra.off = sec->fixed_ra;
#else
	r->ra = (struct sframe_loc)USTACK_ARCH_ENTRY_RA;
#endif
	r->fp.kind = SFRAME_LOC_SAME;
	r->fp.reg = 0;
	r->fp.off = 0;
	if (!n) {
		/* v2 errata 2 / v3: no data words, RA undefined. */
		r->flags |= SFRAME_R_OUTERMOST;
		r->ra.kind = SFRAME_LOC_SAME;
		r->ra.off = 0;
		return true;
	}
	return false;
}

/*
 * The rest of a default FDE's rule (after sf_rule_base()) from its FRE's
 * @n data words @w0 .. @w2 (0 past n): CFA offset, then, with a fixed RA
 * offset, the FP's slot; without one (AArch64) the RA's slot, 0 if it is
 * not saved yet (a padding word), and the FP's.  Values, not the FRE's
 * bytes: a lookup decodes them in place, while ustack_sframe_fre_rule()
 * is given them in struct sframe_fre.
 */
static __always_inline int sf_rule_default(unsigned int n, s32 w0, s32 w1,
					   s32 w2, struct sframe_rule *r)
{
	r->cfa.off = w0;
#if USTACK_ARCH_SFRAME_FIXED_RA
	(void)w2;	/* a third word is the RA's arches' */
	if (n > 2)
		return SFRAME_E_FRE_COUNT;
	if (n == 2) {
		r->fp.kind = SFRAME_LOC_CFA_DEREF;
		r->fp.off = w1;
	}
#else
	if (n > 3)
		return SFRAME_E_FRE_COUNT;
	if (w1) {
		r->ra.kind = SFRAME_LOC_CFA_DEREF;
		r->ra.reg = 0;
		r->ra.off = w1;
	}
	if (n == 3) {
		r->fp.kind = SFRAME_LOC_CFA_DEREF;
		r->fp.off = w2;
	}
#endif
	return 0;
}

#endif /* USTACK_SFRAME_DECODE_H */
