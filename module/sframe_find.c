// SPDX-License-Identifier: GPL-2.0
/*
 * The SFrame lookup: the rule for one PC, the hot path of every walk.
 *
 * A binary search over the FDE starts (checking their order on the path
 * it takes), then a scan of the FDE's FREs up to the PC's, decoded in
 * place through the FRE window.  Each FDE and FRE visited, and each byte
 * read, is paid for from the caller's budget (struct sframe_budget): a
 * section crafted to be slow costs its owner a short walk, nothing more.
 */
#include "ustack_sframe.h"
#include "uapi/ustack.h"
#include "sframe_decode.h"

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
	    r->cfa.kind != SFRAME_LOC_REG_VAL || r->cfa.reg != SFRAME_REG_SP ||
	    r->cfa.off == USTACK_ARCH_ENTRY_CFA)
		return;
	r->cfa.off = USTACK_ARCH_ENTRY_CFA;
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
 * The head of the FRE at @pos, @avail bytes before the end of the FRE
 * sub-section: its start, info byte and size, the whole FRE then in the
 * window.
 */
static __always_inline int sf_fre_scan_head(const struct sframe_sec *sec,
					    struct sf_win *w,
					    const unsigned int type, u32 pos,
					    u32 avail, u32 *start, u8 *info,
					    u32 *size)
{
	const u32 asz = 1U << type;
	const u8 *b;
	int err;

	if (avail < asz + 1)
		return SFRAME_E_FRE_OVERRUN;
	err = sf_win_at(sec, w, pos, asz + 1, &b);
	if (err)
		return err;
	err = sf_fre_head_at(b, type, start, info, size);
	if (unlikely(err))
		return err;
	if (avail < *size)
		return SFRAME_E_FRE_OVERRUN;
	return sf_win_at(sec, w, pos, *size, &b);
}

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
	const u32 end = sec->fre_off + sec->fre_len;
	u32 fres = bud->fres, bytes = bud->bytes;
	u32 i, avail, start, size, least = 0;
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
		err = sf_fre_scan_head(sec, w, type, pos, avail, &start, &info,
				       &size);
		/* rare; so hinted, the scan keeps its registers (bench walk) */
		if (unlikely(err))
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
			      n >= 2 ? sf_word(b + wsz, wsz) : 0,
			      n >= 3 ? sf_word(b + 2 * wsz, wsz) : 0, r);
	if (!err)
		sf_plt_entry(r);
	return err;
}

/*
 * The FRE of @fde for function offset @off (below @limit): the scan,
 * one copy of it for each FRE start width.
 */
static __always_inline int sf_fre_pick(const struct sframe_sec *sec,
				       struct sf_win *w,
				       const struct sframe_fde *fde, u32 off,
				       u32 limit, struct sframe_budget *bud,
				       struct sf_pick *pk)
{
	/* read_fde refused other types */
	switch (SFRAME_INFO_FRE_TYPE(fde->info)) {
	case SFRAME_FRE_TYPE_ADDR1:
		return sf_fre_scan(sec, w, SFRAME_FRE_TYPE_ADDR1, fde->fres_off,
				   fde->num_fres, off, limit, bud, pk);
	case SFRAME_FRE_TYPE_ADDR2:
		return sf_fre_scan(sec, w, SFRAME_FRE_TYPE_ADDR2, fde->fres_off,
				   fde->num_fres, off, limit, bud, pk);
	default:
		return sf_fre_scan(sec, w, SFRAME_FRE_TYPE_ADDR4, fde->fres_off,
				   fde->num_fres, off, limit, bud, pk);
	}
}

/* The rule of the chosen FRE of a flex FDE, through struct sframe_fre. */
static int sf_fre_flex(const struct sframe_sec *sec, struct sf_win *w,
		       const struct sframe_fde *fde, const struct sf_pick *pk,
		       struct sframe_rule *r)
{
	struct sframe_fre fre;
	int err;

	/* the chosen FRE was checked in the loop */
	fre.start = pk->start;
	fre.info = pk->info;
	fre.nwords = SFRAME_FRE_COUNT(pk->info);
	err = sf_fre_words(sec, w, pk->pos, pk->size, &fre);
	if (err)
		return err;
	err = ustack_sframe_fre_rule(sec, fde, &fre, r);
	if (!err)
		sf_plt_entry(r);
	return err;
}

/* The FDE that covers @pc, paid for: 0, or an SFrame code. */
static __always_inline int sf_find_fde(const struct sframe_sec *sec, u64 pc,
				       struct sframe_budget *bud, u32 *idx,
				       struct sframe_fde *fde)
{
	int err;

	if (sec->text_hi && (pc < sec->text_lo || pc >= sec->text_hi))
		return SFRAME_E_NOINFO;
	err = sf_search(sec, pc, idx, bud);
	if (err)
		return err;
	if (!bud->fdes || bud->bytes < sec->fde_size)
		return SFRAME_E_BUDGET;
	bud->fdes--;
	bud->bytes -= sec->fde_size;
	err = sf_read_fde(sec, *idx, fde);
	if (err)
		return err;
	return pc - fde->func_start < fde->func_size ? 0 : SFRAME_E_NOINFO;
}

/**
 * ustack_sframe_find_budget() - the rule for one PC
 * @sec: the section
 * @pc: the PC (a caller's: its return address less one)
 * @r: set to the rule
 * @bud: what the lookup may still spend; spent
 *
 * Return: 0, SFRAME_E_NOINFO (no FDE or FRE covers @pc), SFRAME_E_BUDGET,
 * or the error of a malformed section.
 */
int ustack_sframe_find_budget(const struct sframe_sec *sec, u64 pc,
			      struct sframe_rule *r, struct sframe_budget *bud)
{
	struct sframe_fde fde;
	struct sf_pick pk = { 0 };
	u32 idx = 0, off, limit;
	struct sf_win win;
	int err;

	win.at = 0;
	win.len = 0;
	err = sf_find_fde(sec, pc, bud, &idx, &fde);
	if (err)
		return err;
	off = (u32)(pc - fde.func_start);
	limit = fde.func_size;
	if (fde.info & SFRAME_INFO_PCMASK) {
		off %= fde.rep_size;
		limit = fde.rep_size;
	}
	r->fde_idx = idx;
	if (!fde.num_fres) {
		/* v3: a default FDE without FREs is an outermost frame. */
		struct sframe_fre fre = { .start = 0, .info = 0, .nwords = 0 };

		r->fre_idx = 0;
		return ustack_sframe_fre_rule(sec, &fde, &fre, r);
	}
	err = sf_fre_pick(sec, &win, &fde, off, limit, bud, &pk);
	if (err)
		return err;
	if (!pk.found)
		return SFRAME_E_NOINFO;
	r->fre_idx = pk.idx;
	if (SFRAME_INFO2_FDE_TYPE(fde.info2) != SFRAME_FDE_TYPE_FLEX)
		return sf_fre_default(sec, &win, &fde, &pk, r);
	return sf_fre_flex(sec, &win, &fde, &pk, r);
}
