// SPDX-License-Identifier: GPL-2.0
/*
 * The SFrame v1/v2/v3 decoder: a section's header, its FDEs and FREs one
 * by one, the rule an FRE gives, the check of a whole section, and the
 * names of the core's codes.  The lookup of one PC is sframe_find.c.
 *
 * Compiled into ustack.ko and into the user-space tools; see sframe_env.h.
 * Every offset is checked against the section before it is read, every
 * loop is bounded by a count the header made consistent with the section
 * size, nothing is allocated and nothing is locked.
 */
#include "ustack_sframe.h"
#include "uapi/ustack.h"
#include "sframe_decode.h"

#define SF_U32_MAX	0xffffffffULL

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

int ustack_sframe_sec_init(struct sframe_sec *sec, unsigned long base, u64 len,
		    u64 vaddr, u64 text_lo, u64 text_hi)
{
	return ustack_sframe_sec_init_rd(sec, NULL, base, len, vaddr, text_lo,
					 text_hi);
}

/**
 * ustack_sframe_sec_init_rd() - decode and check a section's header
 * @sec: the section, filled
 * @rd: the reader of its bytes, or NULL: they are at @base (sframe_env.h)
 * @base: where the bytes are, without a reader
 * @len: the bytes the section may use
 * @vaddr: where it is mapped, the base of its PC arithmetic
 * @text_lo: the PCs it may cover, from
 * @text_hi: to (0, 0: no limit)
 *
 * The FDE array and the FRE sub-section must lie in @len and below 4 GiB;
 * nothing past the header is read.
 *
 * Return: 0 or a negative enum sframe_code.
 */
int ustack_sframe_sec_init_rd(struct sframe_sec *sec, struct sframe_reader *rd,
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
	if (h[4] != USTACK_ARCH_SFRAME_ABI)
		return SFRAME_E_ABI;
	/* The ABI's fixed offsets (x86-64: RA at CFA-8, FP per FRE). */
	if ((s8)h[6] != USTACK_ARCH_SFRAME_FIXED_RA ||
	    (s8)h[5] != USTACK_ARCH_SFRAME_FIXED_FP)
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


int ustack_sframe_read_fde(const struct sframe_sec *sec, u32 idx,
			   struct sframe_fde *fde)
{
	return sf_read_fde(sec, idx, fde);
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


int ustack_sframe_fre_rule(const struct sframe_sec *sec, const struct sframe_fde *fde,
		    const struct sframe_fre *fre, struct sframe_rule *r)
{
	unsigned int n = fre->nwords, i;
	int err;

	if (sf_rule_base(sec, fde, fre->start, fre->info, n, r))
		return 0;
	if (SFRAME_INFO2_FDE_TYPE(fde->info2) != SFRAME_FDE_TYPE_FLEX)
		return sf_rule_default(n, fre->words[0],
				       n >= 2 ? fre->words[1] : 0,
				       n >= 3 ? fre->words[2] : 0, r);
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

/**
 * ustack_sframe_validate() - check every FDE and FRE of a section
 * @sec: a section from ustack_sframe_sec_init()
 *
 * Registration, discovery and the store call it once per section, so that
 * a walk's lookups may trust the order they rely on.  Pauses
 * (sf_env_pause()) every USTACK_SFRAME_VALIDATE_STRIDE entries.
 *
 * Return: 0 or a negative enum sframe_code (SFRAME_E_INTR: a fatal signal).
 */
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
