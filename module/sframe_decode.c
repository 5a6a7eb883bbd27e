// SPDX-License-Identifier: GPL-2.0
/*
 * SFrame v1/v2/v3 decoder and the x86-64 unwind step.
 *
 * Compiled into ustack.ko and into the user-space tools; see sframe_env.h.
 * The walk loop at the end is the kernel's (module/walk.c gives it its
 * hooks) and the tests' and benchmarks' alike.
 * Every offset is checked against the section before it is read, every
 * loop is bounded by a count the header made consistent with the section
 * size, nothing is allocated and nothing is locked.
 */
#include "ustack_sframe.h"
#include "uapi/ustack.h"
#include "arch_x86.h"
#include "sframe_walk.h"

#define SF_U32_MAX	0xffffffffULL

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

static const u8 sf_fde_size[4] = {
	0, SFRAME_FDE_SIZE_V1, SFRAME_FDE_SIZE_V2, SFRAME_FDE_SIZE_V3
};

static const u8 sf_known_flags[4] = {
	0,
	SFRAME_F_FDE_SORTED | SFRAME_F_FRAME_POINTER,
	SFRAME_F_FDE_SORTED | SFRAME_F_FRAME_POINTER |
		SFRAME_F_FDE_FUNC_START_PCREL,
	SFRAME_F_FDE_SORTED | SFRAME_F_FDE_FUNC_START_PCREL,
};

/*
 * @len bytes at section offset @off: user (or local) memory at sec->base,
 * or through the section's reader (a store file's page cache).
 */
static __always_inline int sf_sec_copy(const struct sframe_sec *sec, void *dst,
				       u32 off, size_t len)
{
	if (unlikely(sec->rd))
		return sf_reader_copy(sec->rd, dst, off, len);
	return sf_copy(dst, sec->base + off, len);
}

int ustack_sframe_sec_init(struct sframe_sec *sec, unsigned long base, u64 len,
		    u64 vaddr, u64 text_lo, u64 text_hi)
{
	return ustack_sframe_sec_init_rd(sec, NULL, base, len, vaddr, text_lo,
					 text_hi);
}

int ustack_sframe_sec_init_rd(struct sframe_sec *sec, struct sf_reader *rd,
			      unsigned long base, u64 len, u64 vaddr,
			      u64 text_lo, u64 text_hi)
{
	u8 h[SFRAME_HDR_SIZE];
	u64 hdr_end, fde_beg, fde_end, fre_beg, fre_end;

	memset(sec, 0, sizeof(*sec));
	sec->base = base;
	sec->rd = rd;
	if (len < SFRAME_HDR_SIZE)
		return SFRAME_E_HDR_TRUNC;
	if (sf_sec_copy(sec, h, 0, sizeof(h)))
		return SFRAME_E_FAULT;
	if (sf_le16(h) != SFRAME_MAGIC)
		return SFRAME_E_MAGIC;
	if (h[2] < SFRAME_VERSION_1 || h[2] > SFRAME_VERSION_3)
		return SFRAME_E_VERSION;
	if (h[3] & ~sf_known_flags[h[2]])
		return SFRAME_E_FLAGS;
	if (h[4] != SFRAME_ABI_AMD64_ENDIAN_LITTLE)
		return SFRAME_E_ABI;
	/* AMD64: RA always at CFA-8, FP tracked per FRE. */
	if ((s8)h[6] != -8 || h[5] != 0)
		return SFRAME_E_FIXED_OFF;
	hdr_end = SFRAME_HDR_SIZE + (u64)h[7];
	if (hdr_end > len)
		return SFRAME_E_AUXHDR;

	sec->version = h[2];
	sec->flags = h[3];
	sec->fde_size = sf_fde_size[h[2]];
	sec->fixed_fp = (s8)h[5];
	sec->fixed_ra = (s8)h[6];
	sec->num_fdes = sf_le32(h + 8);
	sec->num_fres = sf_le32(h + 12);
	sec->fre_len = sf_le32(h + 16);

	fde_beg = hdr_end + sf_le32(h + 20);
	fde_end = fde_beg + (u64)sec->num_fdes * sec->fde_size;
	/* offsets are u32 from here on: the parts must end below 4 GiB */
	if (fde_end > len || fde_end > SF_U32_MAX)
		return SFRAME_E_FDE_OFF;
	fre_beg = hdr_end + sf_le32(h + 24);
	fre_end = fre_beg + sec->fre_len;
	if (fre_end > len || fre_end > SF_U32_MAX)
		return SFRAME_E_FRE_OFF;
	if (fde_beg < fre_end && fre_beg < fde_end)
		return SFRAME_E_FRE_OFF;	/* the two parts overlap */
	/* Each FRE takes at least 2 bytes (start + info). */
	if ((u64)sec->num_fres * 2 > sec->fre_len)
		return SFRAME_E_NUM_FRES;
	if (text_lo > text_hi)
		return SFRAME_E_FUNC_RANGE;

	sec->vaddr = vaddr;
	sec->text_lo = text_lo;
	sec->text_hi = text_hi;
	sec->fde_off = (u32)fde_beg;
	sec->fre_off = (u32)fre_beg;
	/* Trailing bytes (ld 2.40 pads PT_GNU_SFRAME) are never read. */
	sec->len = (u32)(fde_end > fre_end ? fde_end : fre_end);
	return 0;
}

/*
 * ustack_sframe_read_fde(), inline into the lookup, which reads one FDE
 * each time.
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

int ustack_sframe_read_fde(const struct sframe_sec *sec, u32 idx,
			   struct sframe_fde *fde)
{
	return sf_read_fde(sec, idx, fde);
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

static int sf_win_fill(const struct sframe_sec *sec, struct sf_win *w,
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
	*p = sf_env_direct(sec->base + pos);
	return 0;
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
static int sf_fre_words(const struct sframe_sec *sec, struct sf_win *w,
			u32 pos, u32 size, struct sframe_fre *fre)
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

int ustack_sframe_read_fre(const struct sframe_sec *sec, const struct sframe_fde *fde,
		    u32 *pos, struct sframe_fre *fre)
{
	unsigned int type = SFRAME_INFO_FRE_TYPE(fde->info);
	struct sf_win w;
	u32 size;
	int err;

	w.at = 0;
	w.len = 0;	/* empty: the first read fills it */
	if (type > SFRAME_FRE_TYPE_ADDR4)
		return SFRAME_E_FRE_TYPE;
	err = sf_fre_head(sec, &w, type, *pos, &fre->start, &fre->info, &size);
	if (err)
		return err;
	fre->nwords = SFRAME_FRE_COUNT(fre->info);
	fre->size = (u8)size;
	err = sf_fre_words(sec, &w, *pos, size, fre);
	if (err)
		return err;
	*pos += size;
	return 0;
}

/* A flex (control, displacement) pair; ctrl 0 is never a rule. */
static int sf_flex_loc(u32 ctrl, s32 disp, struct sframe_loc *l)
{
	if (ctrl & SFRAME_FLEX_RESERVED)
		return SFRAME_E_FLEX;
	if (ctrl & SFRAME_FLEX_REG_P) {
		if (SFRAME_FLEX_REGNUM(ctrl) >= SFRAME_REG_RA)
			return SFRAME_E_FLEX;
		l->reg = (u8)SFRAME_FLEX_REGNUM(ctrl);
		l->kind = (ctrl & SFRAME_FLEX_DEREF_P) ?
			  SFRAME_LOC_REG_DEREF : SFRAME_LOC_REG_VAL;
	} else {
		if (SFRAME_FLEX_REGNUM(ctrl))
			return SFRAME_E_FLEX;
		l->reg = 0;
		l->kind = (ctrl & SFRAME_FLEX_DEREF_P) ?
			  SFRAME_LOC_CFA_DEREF : SFRAME_LOC_CFA_VAL;
	}
	l->off = disp;
	return 0;
}

/* RA or FP of a flex FRE at word *i: a pair, a 0 pad word, or nothing. */
static int sf_flex_opt(const struct sframe_fre *fre, unsigned int *i,
		       struct sframe_loc *l)
{
	int err;

	if (*i >= fre->nwords)
		return 0;
	if (!fre->uwords[*i]) {
		(*i)++;
		return 0;
	}
	if (*i + 1 >= fre->nwords)
		return SFRAME_E_FLEX;
	err = sf_flex_loc(fre->uwords[*i], fre->words[*i + 1], l);
	*i += 2;
	return err;
}

/*
 * What every rule of an FRE with @info shares: flags, function, the CFA's
 * base register, RA at CFA-8, FP unchanged.  True: the FRE has no data
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
		     SFRAME_REG_RSP : SFRAME_REG_RBP;
	r->cfa.off = 0;
	r->ra.kind = SFRAME_LOC_CFA_DEREF;
	r->ra.reg = 0;
	r->ra.off = sec->fixed_ra;
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
 * @n data words: CFA offset, then the FP's slot (@fp, used if n == 2).
 * Values, not the FRE's bytes: a lookup decodes them in place, while
 * ustack_sframe_fre_rule() is given them in struct sframe_fre.
 */
static __always_inline int sf_rule_default(unsigned int n, s32 cfa, s32 fp,
					   struct sframe_rule *r)
{
	if (n > 2)
		return SFRAME_E_FRE_COUNT;
	r->cfa.off = cfa;
	if (n == 2) {
		r->fp.kind = SFRAME_LOC_CFA_DEREF;
		r->fp.off = fp;
	}
	return 0;
}

int ustack_sframe_fre_rule(const struct sframe_sec *sec, const struct sframe_fde *fde,
		    const struct sframe_fre *fre, struct sframe_rule *r)
{
	unsigned int n = fre->nwords, i;
	int err;

	if (sf_rule_base(sec, fde, fre->start, fre->info, n, r))
		return 0;
	if (SFRAME_INFO2_FDE_TYPE(fde->info2) != SFRAME_FDE_TYPE_FLEX)
		return sf_rule_default(n, fre->words[0],
				       n == 2 ? fre->words[1] : 0, r);
	r->flags |= SFRAME_R_FLEX;
	if (n < 2 || n > 6)
		return SFRAME_E_FRE_COUNT;
	err = sf_flex_loc(fre->uwords[0], fre->words[1], &r->cfa);
	if (err)
		return err;
	if (r->cfa.kind != SFRAME_LOC_REG_VAL &&
	    r->cfa.kind != SFRAME_LOC_REG_DEREF)
		return SFRAME_E_FLEX;
	i = 2;
	err = sf_flex_opt(fre, &i, &r->ra);
	if (!err)
		err = sf_flex_opt(fre, &i, &r->fp);
	if (!err && i != n)
		err = SFRAME_E_FLEX;
	return err;
}

/*
 * PLT stubs.  Only linkers write PCMASK FDEs, one per PLT section, and every
 * such stub (.plt entry, .plt.sec, .plt.got) is entered by a call: at its
 * first byte the return address is at the stack pointer, CFA = SP + 8.  ld
 * 2.47 writes CFA = SP + 16 for the whole of each .plt.got entry (a single
 * jmp through the GOT), as if it had pushed like a lazy .plt entry, and its
 * own .eh_frame for .plt.got says SP + 8.  A sample stopped there would
 * skip the caller.  The walker trusts .eh_frame: an FRE that starts at
 * block offset 0 of a PCMASK FDE means CFA = SP + 8.  ld's lazy .plt and
 * .plt.sec already say so, and later FREs (after a lazy stub's push) are
 * kept; SFRAME_R_PLT_ENTRY marks a rule that was corrected.  Dumps show the
 * section as written (ustack_sframe_fre_rule() does not apply this).
 */
static void sf_plt_entry(struct sframe_rule *r)
{
	if ((r->flags & (SFRAME_R_PCMASK | SFRAME_R_FLEX | SFRAME_R_OUTERMOST)) !=
	    SFRAME_R_PCMASK || r->fre_start ||
	    r->cfa.kind != SFRAME_LOC_REG_VAL || r->cfa.reg != SFRAME_REG_RSP ||
	    r->cfa.off == 8)
		return;
	r->cfa.off = 8;
	r->flags |= SFRAME_R_PLT_ENTRY;
}

/*
 * The binary search proper, for one start field width (@v3: 8 bytes, else
 * 4): only the start field of each probe is read, with the section's
 * fields in locals.  Every probe must lie between the starts already seen
 * below and above it: sortedness is checked on the path taken.  At most
 * @left probes (the budget's); *@probes says how many were made (also on
 * an error), for the caller to charge.
 */
static __always_inline int sf_bsearch(const struct sframe_sec *sec, u64 pc,
				      const u32 fde_size, u32 left, u32 *idx,
				      u32 *probes)
{
	const bool v3 = fde_size == SFRAME_FDE_SIZE_V3;
	const u32 fde_off = sec->fde_off;
	/* PC-relative starts add their own offset: a mask, not a branch */
	const u64 rel = (sec->flags & SFRAME_F_FDE_FUNC_START_PCREL) ?
			~0ULL : 0;
	const u64 add = sec->vaddr;
	u32 lo = 0, hi = sec->num_fdes, mid, off, n = 0;
	u64 lo_val = 0, hi_val = ~0ULL, span = ~0ULL, s;
	u8 b[8];
	int err = 0;

	while (lo < hi) {
		if (n == left) {
			err = SFRAME_E_BUDGET;
			break;
		}
		mid = lo + (hi - lo) / 2;
		off = fde_off + mid * fde_size;
		n++;
		if (v3) {
			if (sf_sec_copy(sec, b, off, 8)) {
				err = SFRAME_E_FAULT;
				break;
			}
			s = sf_le64(b);
		} else {
			if (sf_sec_copy(sec, b, off, 4)) {
				err = SFRAME_E_FAULT;
				break;
			}
			s = (u64)(s64)(s32)sf_le32(b);
		}
		s += add + (off & rel);
		/* lo_val <= s <= hi_val, in one comparison */
		if (s - lo_val > span) {
			err = SFRAME_E_UNSORTED;
			break;
		}
		if (s <= pc) {
			lo = mid + 1;
			lo_val = s;
		} else {
			hi = mid;
			hi_val = s;
		}
		span = hi_val - lo_val;
	}
	*probes = n;
	if (err)
		return err;
	if (!lo)
		return SFRAME_E_NOINFO;
	*idx = lo - 1;
	return 0;
}

/* Index of the last FDE starting at or below @pc, checking order. */
static int sf_search(const struct sframe_sec *sec, u64 pc, u32 *idx,
		     struct sframe_budget *bud)
{
	const u32 fde_size = sec->fde_size;
	/* bytes of a start field */
	const u32 probe = sec->version == SFRAME_VERSION_3 ? 8 : 4;
	u32 left, n;
	int err;

	if (!(sec->flags & SFRAME_F_FDE_SORTED)) {
		struct sframe_fde f;
		u32 i;

		for (i = 0; i < sec->num_fdes; i++) {
			if (!bud->fdes || bud->bytes < fde_size)
				return SFRAME_E_BUDGET;
			bud->fdes--;
			bud->bytes -= fde_size;
			err = ustack_sframe_read_fde(sec, i, &f);
			if (err)
				return err;
			if (pc - f.func_start < f.func_size) {
				*idx = i;
				return 0;
			}
		}
		return SFRAME_E_NOINFO;
	}
	/*
	 * The search stops where the budget does, as probe by probe; what it
	 * spent is charged after.
	 */
	left = bud->bytes / probe < bud->fdes ? bud->bytes / probe : bud->fdes;
	/* constant FDE sizes: no multiply on the probe's path */
	if (sec->version == SFRAME_VERSION_1)
		err = sf_bsearch(sec, pc, SFRAME_FDE_SIZE_V1, left, idx, &n);
	else if (sec->version == SFRAME_VERSION_2)
		err = sf_bsearch(sec, pc, SFRAME_FDE_SIZE_V2, left, idx, &n);
	else
		err = sf_bsearch(sec, pc, SFRAME_FDE_SIZE_V3, left, idx, &n);
	bud->fdes -= n;
	bud->bytes -= n * probe;
	return err;
}

int ustack_sframe_find(const struct sframe_sec *sec, u64 pc, struct sframe_rule *r)
{
	struct sframe_budget b = {
		.fdes = USTACK_LOOKUP_MAX_FDES,
		.fres = USTACK_LOOKUP_MAX_FRES,
		.bytes = ~0U,
	};

	return ustack_sframe_find_budget(sec, pc, r, &b);
}

/* What the FRE scan chose: the last FRE starting at or below the PC. */
struct sf_pick {
	u32 idx, pos, start, size;
	u8 info;
	bool found;
};

/*
 * The FREs of one FDE in order, up to the last one starting at or below
 * @off; each one visited is checked (bounds, order, start below @limit)
 * and paid for.  @type, the FRE start field width, is a constant in each
 * of the three copies of this loop.  The bytes left in the sub-section
 * are counted down instead of each FRE's bounds being checked from
 * scratch, and @off < @limit: only an FRE past @off can be past @limit.
 */
static __always_inline int sf_fre_scan(const struct sframe_sec *sec,
				       struct sf_win *w,
				       const unsigned int type, u32 pos,
				       u32 num, u32 off, u32 limit,
				       struct sframe_budget *bud,
				       struct sf_pick *pk)
{
	const u32 asz = 1U << type, end = sec->fre_off + sec->fre_len;
	u32 fres = bud->fres, bytes = bud->bytes;
	u32 i, avail, start, size, least = 0;
	const u8 *b;
	int err = 0;
	u8 info;

	if (pos < sec->fre_off || pos > end)
		return SFRAME_E_FRE_OVERRUN;
	avail = end - pos;
	for (i = 0; i < num; i++) {
		if (!fres) {
			err = SFRAME_E_BUDGET;
			break;
		}
		fres--;
		if (avail < asz + 1) {
			err = SFRAME_E_FRE_OVERRUN;
			break;
		}
		err = sf_win_at(sec, w, pos, asz + 1, &b);
		if (err)
			break;
		err = sf_fre_head_at(b, type, &start, &info, &size);
		/* rare; so hinted, the scan keeps its registers (bench walk) */
		if (unlikely(err))
			break;
		if (avail < size) {
			err = SFRAME_E_FRE_OVERRUN;
			break;
		}
		err = sf_win_at(sec, w, pos, size, &b);
		if (err)
			break;
		if (bytes < size) {
			err = SFRAME_E_BUDGET;
			break;
		}
		bytes -= size;
		/* least: 0, then one past the last start */
		if (start < least) {
			err = SFRAME_E_FRE_ORDER;
			break;
		}
		if (start > off) {
			if (start >= limit)
				err = SFRAME_E_FRE_START;
			break;
		}
		pk->found = true;
		pk->idx = i;
		pk->pos = pos;
		pk->start = start;
		pk->info = info;
		pk->size = size;
		least = start + 1;
		pos += size;
		avail -= size;
	}
	bud->fres = fres;
	bud->bytes = bytes;
	return err;
}

/* Data word @b of @wsz bytes, sign-extended. */
static __always_inline s32 sf_word(const u8 *b, unsigned int wsz)
{
	if (wsz == 1)
		return (s8)b[0];
	if (wsz == 2)
		return (s16)sf_le16(b);
	return (s32)sf_le32(b);
}

/*
 * The rule of the chosen FRE of a default FDE, decoded in place: at most
 * two words, CFA offset and FP slot (ustack_sframe_fre_rule()'s default
 * case, without the copy through struct sframe_fre).
 */
static __always_inline int sf_fre_default(const struct sframe_sec *sec,
					  struct sf_win *w,
					  const struct sframe_fde *fde,
					  const struct sf_pick *pk,
					  struct sframe_rule *r)
{
	unsigned int n = SFRAME_FRE_COUNT(pk->info);
	unsigned int wsz = 1U << SFRAME_FRE_SIZE(pk->info);
	const u8 *b;
	int err;

	err = sf_win_get(sec, w, pk->pos, pk->size, &b);
	if (err)
		return err;
	if (sf_rule_base(sec, fde, pk->start, pk->info, n, r))
		return 0;
	/* the words end the FRE */
	b += pk->size - n * wsz;
	err = sf_rule_default(n, sf_word(b, wsz),
			      n == 2 ? sf_word(b + wsz, wsz) : 0, r);
	if (!err)
		sf_plt_entry(r);
	return err;
}

int ustack_sframe_find_budget(const struct sframe_sec *sec, u64 pc,
			      struct sframe_rule *r, struct sframe_budget *bud)
{
	struct sframe_fde fde;
	struct sframe_fre fre;
	struct sf_pick pk = { 0 };
	u32 idx = 0, off, limit;
	struct sf_win win;
	int err;

	if (sec->text_hi && (pc < sec->text_lo || pc >= sec->text_hi))
		return SFRAME_E_NOINFO;
	win.at = 0;
	win.len = 0;
	err = sf_search(sec, pc, &idx, bud);
	if (err)
		return err;
	if (!bud->fdes || bud->bytes < sec->fde_size)
		return SFRAME_E_BUDGET;
	bud->fdes--;
	bud->bytes -= sec->fde_size;
	err = sf_read_fde(sec, idx, &fde);
	if (err)
		return err;
	if (pc - fde.func_start >= fde.func_size)
		return SFRAME_E_NOINFO;
	off = (u32)(pc - fde.func_start);
	limit = fde.func_size;
	if (fde.info & SFRAME_INFO_PCMASK) {
		off %= fde.rep_size;
		limit = fde.rep_size;
	}
	r->fde_idx = idx;
	if (!fde.num_fres) {
		/* v3: a default FDE without FREs is an outermost frame. */
		fre.start = 0;
		fre.info = 0;
		fre.nwords = 0;
		r->fre_idx = 0;
		return ustack_sframe_fre_rule(sec, &fde, &fre, r);
	}
	/* read_fde refused other types */
	switch (SFRAME_INFO_FRE_TYPE(fde.info)) {
	case SFRAME_FRE_TYPE_ADDR1:
		err = sf_fre_scan(sec, &win, SFRAME_FRE_TYPE_ADDR1,
				  fde.fres_off, fde.num_fres, off, limit, bud,
				  &pk);
		break;
	case SFRAME_FRE_TYPE_ADDR2:
		err = sf_fre_scan(sec, &win, SFRAME_FRE_TYPE_ADDR2,
				  fde.fres_off, fde.num_fres, off, limit, bud,
				  &pk);
		break;
	default:
		err = sf_fre_scan(sec, &win, SFRAME_FRE_TYPE_ADDR4,
				  fde.fres_off, fde.num_fres, off, limit, bud,
				  &pk);
		break;
	}
	if (err)
		return err;
	if (!pk.found)
		return SFRAME_E_NOINFO;
	r->fre_idx = pk.idx;
	if (SFRAME_INFO2_FDE_TYPE(fde.info2) != SFRAME_FDE_TYPE_FLEX)
		return sf_fre_default(sec, &win, &fde, &pk, r);
	/* the chosen FRE was checked in the loop */
	fre.start = pk.start;
	fre.info = pk.info;
	fre.nwords = SFRAME_FRE_COUNT(pk.info);
	err = sf_fre_words(sec, &win, pk.pos, pk.size, &fre);
	if (err)
		return err;
	err = ustack_sframe_fre_rule(sec, &fde, &fre, r);
	if (!err)
		sf_plt_entry(r);
	return err;
}

int ustack_sframe_validate(const struct sframe_sec *sec)
{
	struct sframe_fde fde;
	struct sframe_fre fre;
	struct sframe_rule r;
	u64 prev_start = 0, total = 0;
	u32 i, j, pos, limit, work = 0;
	int err;

	/* Lookups are binary searches: real toolchains sort FDEs. */
	if (!(sec->flags & SFRAME_F_FDE_SORTED))
		return SFRAME_E_UNSORTED;
	fre.start = 0;
	for (i = 0; i < sec->num_fdes; i++) {
		if (!(++work % USTACK_SFRAME_VALIDATE_STRIDE) && sf_env_pause())
			return SFRAME_E_INTR;
		err = ustack_sframe_read_fde(sec, i, &fde);
		if (err)
			return err;
		if (i && fde.func_start < prev_start)
			return SFRAME_E_UNSORTED;
		/* a lookup scans an FDE's FREs: as many as v3 can express */
		if (fde.num_fres > USTACK_SFRAME_MAX_FDE_FRES)
			return SFRAME_E_NUM_FRES;
		prev_start = fde.func_start;
		total += fde.num_fres;
		if (total > sec->num_fres)
			return SFRAME_E_NUM_FRES;
		limit = (fde.info & SFRAME_INFO_PCMASK) ? fde.rep_size :
			fde.func_size;
		pos = fde.fres_off;
		for (j = 0; j < fde.num_fres; j++) {
			u32 prev = fre.start;

			if (!(++work % USTACK_SFRAME_VALIDATE_STRIDE) &&
			    sf_env_pause())
				return SFRAME_E_INTR;
			err = ustack_sframe_read_fre(sec, &fde, &pos, &fre);
			if (err)
				return err;
			if (j && fre.start <= prev)
				return SFRAME_E_FRE_ORDER;
			if (fre.start >= limit)
				return SFRAME_E_FRE_START;
			err = ustack_sframe_fre_rule(sec, &fde, &fre, &r);
			if (err)
				return err;
		}
	}
	if (total != sec->num_fres)
		return SFRAME_E_NUM_FRES;
	return 0;
}

/* ---- codes ---------------------------------------------------------- */

static const char * const sf_names[] = {
	"ok", "no-info", "fault", "header-truncated", "bad-magic",
	"bad-version", "bad-abi", "bad-flags", "bad-auxhdr", "bad-fde-offset",
	"bad-fre-offset", "bad-fixed-offset", "bad-num-fres", "fdes-unsorted",
	"bad-func-range", "bad-fde-fres", "bad-fde-type", "bad-fre-type",
	"bad-rep-size", "fre-overrun", "bad-fre-start", "fres-unsorted",
	"bad-fre-size", "bad-fre-count", "bad-flex-rule", "unknown-register",
	"cfa-not-above-sp", "cfa-misaligned", "bad-return-address",
	"budget-spent", "interrupted",
};

const char *ustack_sframe_strerror(int code)
{
	if (code > 0 || code <= SFRAME_E_MAX)
		return "unknown";
	return sf_names[-code];
}

int ustack_sframe_errno(int code, int malformed)
{
	switch (code) {
	case SFRAME_OK:
		return 0;
	case SFRAME_E_NOINFO:
		return -ENOENT;
	case SFRAME_E_FAULT:
		return -EFAULT;
	case SFRAME_E_INTR:
		return -EINTR;
	case SFRAME_E_VERSION:
	case SFRAME_E_ABI:
		return -EOPNOTSUPP;
	default:
		return malformed;
	}
}
