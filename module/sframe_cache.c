// SPDX-License-Identifier: GPL-2.0
/*
 * The SFrame core's rule cache (struct sframe_cache, ustack_sframe.h) and
 * the walk's cached runs through it.
 *
 * A cache is a caller's array, 4-way set associative by lookup PC; each
 * entry holds a default-shape rule and a guess at its caller's entry, so
 * that a stack seen before is climbed one load a frame.  Nothing here
 * allocates, locks or sleeps: the caller's hooks (sframe_walk_ops'
 * cache_begin/cache_end) say which cache a walk may use and when.
 */
#include "ustack_sframe.h"
#include "uapi/ustack.h"
#include "sframe_cache.h"

/*
 * Set of lookup PC @pc, indexed by pc + 1: the return address itself for a
 * caller frame, so the index does not wait for the subtraction.
 */
static __always_inline const struct sframe_cache_ent *
sf_cache_set(const struct sframe_cache *c, u64 pc)
{
	u64 k = pc + 1;

	return &c->e[((k ^ (k >> 8) ^ c->salt) & (SFRAME_CACHE_SETS - 1)) *
		     SFRAME_CACHE_WAYS];
}

void ustack_sframe_cache_set_tag(struct sframe_cache *c, u64 tag)
{
	c->tag = tag;
	/* Fibonacci hashing: the top bits mix every bit of the tag */
	c->salt = (tag * 0x9e3779b97f4a7c15ULL) >> 48;
}

static __always_inline const struct sframe_cache_ent *
sf_cache_find(const struct sframe_cache *c, u64 pc)
{
	const struct sframe_cache_ent *e = sf_cache_set(c, pc);
	const u64 tag = c->tag;

	if (likely(e[0].pc == pc && e[0].tag == tag && e[0].kind))
		return &e[0];
	if (e[1].pc == pc && e[1].tag == tag && e[1].kind)
		return &e[1];
	if (e[2].pc == pc && e[2].tag == tag && e[2].kind)
		return &e[2];
	if (e[3].pc == pc && e[3].tag == tag && e[3].kind)
		return &e[3];
	return NULL;
}

const struct sframe_cache_ent *ustack_sframe_cache_get(const struct sframe_cache *c,
						u64 pc)
{
	return sf_cache_find(c, pc);
}

bool ustack_sframe_cache_put(struct sframe_cache *c, u64 pc,
		      const struct sframe_rule *r)
{
	struct sframe_cache_ent *e, n = { .pc = pc, .tag = c->tag };
	int i;

	if (r->flags & SFRAME_R_OUTERMOST) {
		if (r->flags & (SFRAME_R_FLEX | SFRAME_R_SIGNAL))
			return false;
		n.kind = SFRAME_CK_VALID | SFRAME_CK_OUTERMOST;
	} else {
		if ((r->flags & (SFRAME_R_FLEX | SFRAME_R_SIGNAL)) ||
		    r->cfa.kind != SFRAME_LOC_REG_VAL ||
		    (r->cfa.reg != SFRAME_REG_SP &&
		     r->cfa.reg != SFRAME_REG_FP) ||
		    r->ra.kind != SFRAME_LOC_CFA_DEREF || r->ra.off != USTACK_ARCH_RA_OFF ||
		    (r->fp.kind != SFRAME_LOC_SAME &&
		     r->fp.kind != SFRAME_LOC_CFA_DEREF) ||
		    r->fp.off != (s8)r->fp.off)
			return false;
		n.kind = SFRAME_CK_VALID | SFRAME_CK_STEP;
		if (r->cfa.reg == SFRAME_REG_SP)
			n.kind |= SFRAME_CK_SP;
		n.cfa_off = r->cfa.off;
		if (r->fp.kind == SFRAME_LOC_CFA_DEREF) {
			n.kind |= SFRAME_CK_FP_SAVED;
			n.fp_off = (s8)r->fp.off;
		} else if ((n.kind & SFRAME_CK_SP) && n.cfa_off > 0 &&
			   !(n.cfa_off & 7)) {
			n.kind |= SFRAME_CK_SP8;
		}
	}
	/* newest first; the oldest of a full set goes, of any tag */
	e = (struct sframe_cache_ent *)sf_cache_set(c, pc);
	for (i = 0; i < SFRAME_CACHE_WAYS - 1; i++)
		if ((e[i].pc == pc && e[i].tag == n.tag) || !e[i].kind)
			break;
	for (; i > 0; i--)
		e[i] = e[i - 1];
	e[0] = n;
	return true;
}

void ustack_sframe_cache_rule(const struct sframe_cache_ent *e,
		       struct sframe_rule *r)
{
	memset(r, 0, sizeof(*r));
	if (e->kind & SFRAME_CK_OUTERMOST) {
		r->flags = SFRAME_R_OUTERMOST;
		r->cfa.kind = SFRAME_LOC_REG_VAL;
		r->cfa.reg = SFRAME_REG_SP;
		return;
	}
	r->cfa.kind = SFRAME_LOC_REG_VAL;
	r->cfa.reg = (e->kind & SFRAME_CK_SP) ? SFRAME_REG_SP : SFRAME_REG_FP;
	r->cfa.off = e->cfa_off;
	r->ra.kind = SFRAME_LOC_CFA_DEREF;
	r->ra.off = USTACK_ARCH_RA_OFF;
	if (e->kind & SFRAME_CK_FP_SAVED) {
		r->fp.kind = SFRAME_LOC_CFA_DEREF;
		r->fp.off = e->fp_off;
	}
}

void ustack_sframe_cache_reset(struct sframe_cache *c)
{
	memset(c, 0, sizeof(*c));
}

_Static_assert(sizeof(struct sframe_cache_ent) == 32, "cache entry size");
_Static_assert(!(SFRAME_CACHE_SETS & (SFRAME_CACHE_SETS - 1)), "sets");

/* e[] byte offsets of entries: 32-byte aligned, inside the array */
#define SF_CACHE_OFF_MASK	((SFRAME_CACHE_SIZE - 1) * \
				 sizeof(struct sframe_cache_ent))

/*
 * One cached default-shape step from (sp, fp): *cfa, *ra, *fp of the caller,
 * or false where ustack_sframe_step() might disagree (the generic step decides).
 * @min_cfa: sp + 1, or sp (and lo + 8) for the topmost frame.  The RA slot
 * cfa - 8 is then at or above lo (cfa > sp >= lo, both 8-aligned, or
 * cfa >= lo + 8): only cfa <= hi is left.
 */
static __always_inline bool sf_cache_step(const struct sframe_cache_ent *e,
					  u8 kind, u64 sp, u64 min_cfa,
					  u64 *fp, u64 *cfa, u64 *ra,
					  u64 lo, u64 span, u64 hi)
{
	u64 c, at, nfp;

	if (kind & SFRAME_CK_SP)
		c = sp + (s64)e->cfa_off;
	else
		c = *fp + (s64)e->cfa_off;
	if (unlikely(c < min_cfa || (c & 7) || c > hi))
		return false;
	if (unlikely(sf_read_word(ra, (unsigned long)(c - 8))))
		return false;
	*ra = ustack_arch_strip_ra(*ra);
	if (unlikely(!*ra))
		return false;
	if (kind & SFRAME_CK_FP_SAVED) {
		at = c + (s64)e->fp_off;
		if (unlikely(at - lo > span ||
			     sf_read_word(&nfp, (unsigned long)at)))
			return false;
		*fp = nfp;
	}
	*cfa = c;
	return true;
}

/*
 * The step of a caller frame: sp is the last CFA, 8-aligned and at or
 * above lo + 8, so min_cfa is sp + 1.  The SP-based shape without a saved
 * FP and with an aligned offset (most frames of code without frame
 * pointers) has a path of its own: the same checks, less the selects and
 * the alignment test (sp and cfa_off are aligned).
 */
static __always_inline bool sf_cache_step_caller(const struct sframe_cache_ent *e,
						 u64 sp, u64 *fp, u64 *cfa,
						 u64 *ra, u64 lo, u64 span,
						 u64 hi)
{
	const u8 kind = e->kind;

	if (likely(kind == (SFRAME_CK_VALID | SFRAME_CK_STEP |
			    SFRAME_CK_SP | SFRAME_CK_SP8))) {
		*cfa = sp + (s64)e->cfa_off;
		if (unlikely(*cfa <= sp || *cfa > hi))
			return false;
		if (unlikely(sf_read_word(ra, (unsigned long)(*cfa - 8))))
			return false;
		*ra = ustack_arch_strip_ra(*ra);
		return likely(*ra);
	}
	return (kind & SFRAME_CK_STEP) &&
	       sf_cache_step(e, kind, sp, sp + 1, fp, cfa, ra, lo, span, hi);
}

/*
 * The step of the interrupted frame: exact IP, CFA may equal SP, the RA
 * slot cfa - 8 at or above lo (cfa >= lo + 8).
 */
static __always_inline bool sf_cache_step_top(const struct sframe_cache_ent *e,
					      u64 sp, u64 *fp, u64 *cfa,
					      u64 *ra, u64 lo, u64 span,
					      u64 hi)
{
	return (e->kind & SFRAME_CK_STEP) &&
	       sf_cache_step(e, e->kind, sp, sp > lo + 8 ? sp : lo + 8, fp,
			     cfa, ra, lo, span, hi);
}

/* The stack bounds of a run from @st: false if no frame can be taken. */
static __always_inline bool sf_cache_bounds(const struct sframe_state *st,
					    u64 *lo, u64 *span, u64 *hi)
{
	*lo = 0;
	*span = ~0ULL;
	*hi = ~0ULL;
	if (!st->stack_hi)
		return true;
	*lo = st->stack_lo;
	*hi = st->stack_hi;
	if (*hi < 8 || *hi - 8 < *lo || (*lo & 7) || st->sp < *lo)
		return false;
	*span = *hi - 8 - *lo;
	return true;
}

/*
 * The entry of the caller whose return address is @ra, from entry @e: the
 * one the last walk went to from @e, if it is the right one, else a set
 * probe (then remembered in @e).  The guess is a load away, no
 * arithmetic: this chain of loads bounds the run.  Its range check is a
 * branch.  NULL: not cached.
 */
static __always_inline struct sframe_cache_ent *
sf_cache_next(struct sframe_cache *c, struct sframe_cache_ent *e, u64 ra,
	      u64 tag)
{
	struct sframe_cache_ent *n = e->next;

	if (unlikely((((unsigned long)n - (unsigned long)c->e) &
		      ~SF_CACHE_OFF_MASK) || n->pc != ra - 1 || n->tag != tag)) {
		n = (struct sframe_cache_ent *)sf_cache_find(c, ra - 1);
		if (n)
			e->next = n;
	}
	return n;
}

/*
 * A cached run: step @st up through consecutive frames whose rules are
 * cached, as ustack_sframe_step() would, storing each new IP at ips[nr++] (and
 * methods[nr] = SFRAME, if @methods) while nr < @max.  Stops, leaving @st
 * at the last frame reached, at an exact IP after a signal, a PC not
 * cached, a PC whose cached rule is outermost (then @st->outermost: the
 * walk ends there, as its own lookup of that rule would end it, without
 * that lookup), a caller IP with no bit of @stop_mask set (if
 * @stop_mask: a possible signal trampoline) whose entry is not marked
 * no_tramp by an earlier walk, or anything ustack_sframe_step() might
 * reject: the walk then takes that frame the slow way.  Returns the new nr.
 *
 * The hit path: registers in locals, the checks of ustack_sframe_step() for the
 * default shape (or stricter ones), two stack reads at most.  A frame it
 * cannot take is left for the walk's generic step, which gives the same
 * answer or the same error.
 */
static __always_inline u32 sf_cache_walk(struct sframe_cache *c,
					 struct sframe_state *st, u64 *ips,
					 u8 *methods, u32 nr, u32 max,
					 u64 stop_mask)
{
	u64 sp = st->sp, fp = st->fp, lo, span, hi, cfa, ra;
	const u64 tag = c->tag;
	struct sframe_cache_ent *e, *n;
	u32 i = nr;

	if (nr >= max || (st->exact_ip && !st->topmost) ||
	    !sf_cache_bounds(st, &lo, &span, &hi))
		return nr;
	e = (struct sframe_cache_ent *)sf_cache_find(c, st->topmost ? st->ip :
						      st->ip - 1);
	if (!e || (stop_mask && !st->topmost && !(st->ip & stop_mask) &&
		   !e->no_tramp))
		return nr;
	if (e->kind & SFRAME_CK_OUTERMOST) {
		st->outermost = true;
		return nr;
	}
	if (st->topmost ?
	    !sf_cache_step_top(e, sp, &fp, &cfa, &ra, lo, span, hi) :
	    !sf_cache_step_caller(e, sp, &fp, &cfa, &ra, lo, span, hi))
		return nr;
	for (;;) {
		sp = cfa;
		if (methods)
			methods[i] = USTACK_METHOD_SFRAME;
		ips[i++] = ra;
		if (unlikely(i >= max))
			break;
		n = sf_cache_next(c, e, ra, tag);
		/* a possible trampoline the walk has not looked at yet */
		if (!n || (stop_mask && !(ra & stop_mask) && !n->no_tramp))
			break;
		if (n->kind & SFRAME_CK_OUTERMOST) {
			st->outermost = true;
			break;
		}
		e = n;
		if (!sf_cache_step_caller(e, sp, &fp, &cfa, &ra, lo, span, hi))
			break;
	}
	st->ip = ips[i - 1];
	st->sp = sp;
	st->fp = fp;
	st->gpr = NULL;
	st->topmost = false;
	st->exact_ip = false;
	return i;
}

/* ---- the walk's use of the cache ---------------------------------------- */

/*
 * The cached rule for @pc.  @no_tramp: the code at pc + 1 was just looked
 * at and is no signal trampoline; the entry remembers that, so that later
 * cached runs need not stop there.  The verdict lives as long as the rule
 * does: code is not rewritten under its unwind rules.
 */
bool ustack_sframe_walk_cache_get(struct sframe_walk *w,
				  const struct sframe_walk_ops *ops, u64 pc,
				  struct sframe_rule *r, bool no_tramp)
{
	struct sframe_cache_ent *e;
	struct sframe_cache *c;

	c = ops->cache_begin ? ops->cache_begin(w, SFRAME_CACHE_LOOKUP) :
			       w->cache;
	if (!c)
		return false;
	e = (struct sframe_cache_ent *)sf_cache_find(c, pc);
	if (e) {
		ustack_sframe_cache_rule(e, r);
		if (no_tramp)
			e->no_tramp = 1;
	}
	if (ops->cache_begin)
		ops->cache_end(w, SFRAME_CACHE_LOOKUP);
	return !!e;
}

/* Remember @r for @pc (and @no_tramp, see ustack_sframe_walk_cache_get()). */
void ustack_sframe_walk_cache_put(struct sframe_walk *w,
				  const struct sframe_walk_ops *ops, u64 pc,
				  const struct sframe_rule *r, bool no_tramp)
{
	struct sframe_cache *c;

	c = ops->cache_begin ? ops->cache_begin(w, SFRAME_CACHE_FILL) :
			       w->cache;
	if (!c)
		return;
	if (ustack_sframe_cache_put(c, pc, r) && no_tramp)
		((struct sframe_cache_ent *)sf_cache_set(c, pc))->no_tramp = 1;
	if (ops->cache_begin)
		ops->cache_end(w, SFRAME_CACHE_FILL);
}

/*
 * As many frames as the rule cache knows, from @st: the new nr.  In runs
 * of at most w->cache_burst frames, each (with cache hooks) between a
 * cache_begin(RUN) and its cache_end().  @stop: see
 * sf_cache_walk().
 */
u32 ustack_sframe_walk_cached(struct sframe_walk *w,
			      const struct sframe_walk_ops *ops,
			      struct sframe_state *st, u32 nr, u64 stop)
{
	u32 max = w->max_frames, lim;
	u32 burst = w->cache_burst ? w->cache_burst : max;
	struct sframe_cache *c;

	do {
		lim = max - nr > burst ? nr + burst : max;
		c = ops->cache_begin ? ops->cache_begin(w, SFRAME_CACHE_RUN) :
				       w->cache;
		if (!c)
			break;
		/* copies: with and without the methods[] stores, stops */
		if (w->methods && stop)
			nr = sf_cache_walk(c, st, w->ips, w->methods, nr, lim,
					   SF_STOP);
		else if (w->methods)
			nr = sf_cache_walk(c, st, w->ips, w->methods, nr, lim,
					   0);
		else if (stop)
			nr = sf_cache_walk(c, st, w->ips, NULL, nr, lim,
					   SF_STOP);
		else
			nr = sf_cache_walk(c, st, w->ips, NULL, nr, lim, 0);
		if (ops->cache_begin)
			ops->cache_end(w, SFRAME_CACHE_RUN);
	} while (nr == lim && nr < max);
	return nr;
}
