// SPDX-License-Identifier: GPL-2.0
/*
 * The stack scan (SFRAME_WALK_GUESS): where no rule takes a walk further,
 * words of the stack that pass for return addresses, each just after a
 * call instruction in an executable mapping, are taken as the next
 * frames, marked USTACK_METHOD_GUESS.  Bounded by USTACK_GUESS_* words
 * and the walk's byte budget.
 */
#include "ustack_sframe.h"
#include "uapi/ustack.h"
#include "sframe_walk.h"

/* The rel32 of a call, little-endian. */
static s32 sf_rel32(const u8 *p)
{
	return (s32)((u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 |
		     (u32)p[3] << 24);
}

/* The length of an FF /2 call from its ModRM byte @m and SIB byte @sib. */
static u32 sf_ff2_len(u8 m, u8 sib)
{
	u8 mod = m >> 6, rm = m & 7;

	if (mod == 3)
		return 2;
	if (mod == 0) {
		if (rm == 5)
			return 6;	/* RIP-relative disp32 */
		if (rm == 4)
			return (sib & 7) == 5 ? 7 : 3;	/* SIB without base */
		return 2;
	}
	return (mod == 1 ? 3 : 6) + (rm == 4);
}

u32 ustack_sframe_call_before(const u8 *b, u64 ret, u64 *target)
{
	const u8 *end = b + SFRAME_CALL_MAX_LEN;
	u32 k;

	if (end[-5] == 0xe8) {
		*target = ret + (u64)(s64)sf_rel32(end - 4);
		return 5;
	}
	for (k = 2; k <= SFRAME_CALL_MAX_LEN; k++) {
		const u8 *op = end - k;

		/* a SIB byte only exists (and is only read) for k > 2 */
		if (op[0] == 0xff && ((op[1] >> 3) & 7) == 2 &&
		    sf_ff2_len(op[1], k > 2 ? op[2] : 0) == k)
			return k;
	}
	return 0;
}

/* sf_guess_rank() */
#define SF_GUESS_NONE		0
#define SF_GUESS_CONTRA		1	/* an E8 call elsewhere than @prev's */
#define SF_GUESS_PLAUSIBLE	2	/* E8 to @prev's function, or unknown */

/*
 * Does the E8 call target @t fit the frame whose PC is @prev: the start
 * of its function lies at most USTACK_GUESS_MAX_FUNC below it.  A call
 * through a PLT stub (jmp *GOT(%rip), after endbr64 or bnd) is to a
 * function elsewhere that only the GOT knows: no contradiction either.
 */
static bool sf_guess_fits(struct sframe_walk *w,
			  const struct sframe_walk_ops *ops, u64 t, u64 prev)
{
	static const u8 endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	u8 c[8];
	u32 k = 0;

	if (t <= prev && prev - t < USTACK_GUESS_MAX_FUNC)
		return true;
	if (w->budget.bytes < sizeof(c))
		return false;
	w->budget.bytes -= sizeof(c);
	if (ops->read_code(w, c, t, sizeof(c)))
		return false;
	if (!memcmp(c, endbr64, sizeof(endbr64)))
		k = 4;
	if (c[k] == 0xf2)	/* bnd */
		k++;
	return c[k] == 0xff && c[k + 1] == 0x25;
}

/*
 * How well the word @v passes for the return address of the frame whose
 * PC is @prev, or -1: the budget cannot pay for the code read.  *@start:
 * for a plausible E8 call, its target (@prev's function start, if the
 * call is the real one), else 0.
 */
static int sf_guess_rank(struct sframe_walk *w,
			 const struct sframe_walk_ops *ops, u64 v, u64 prev,
			 u64 *start)
{
	u8 b[SFRAME_CALL_MAX_LEN];
	u64 t;
	u32 len;

	*start = 0;
	if (v < sizeof(b) || !ops->is_text(w, v))
		return SF_GUESS_NONE;
	if (w->budget.bytes < sizeof(b))
		return -1;
	w->budget.bytes -= sizeof(b);
	if (ops->read_code(w, b, v - sizeof(b), sizeof(b)))
		return SF_GUESS_NONE;
	len = ustack_sframe_call_before(b, v, &t);
	if (!len)
		return SF_GUESS_NONE;
	if (len == 5 && !sf_guess_fits(w, ops, t, prev))
		return SF_GUESS_CONTRA;
	if (len == 5 && t <= prev)
		*start = t;
	return SF_GUESS_PLAUSIBLE;
}

/*
 * The rest of the walk by scanning, from the frame @last whose caller no
 * rule gave: frames stored from *@nr on, all USTACK_METHOD_GUESS.  Each
 * frame's return address is the first plausible candidate at most
 * USTACK_GUESS_LOOKAHEAD words above the first candidate of any rank
 * within USTACK_GUESS_MAX_WORDS words of the last slot, else that first
 * one.  A plausible E8 call gives way to a later one (in that reach) of a
 * higher target: the real call's target is the start of @prev's
 * function, the highest function start at or below @prev, while a stale
 * return address in a dead local is usually of a call of a function
 * further down.  The next search starts above the slot taken, so the
 * walk climbs.
 * Registers are not recovered: after a guess only guesses follow.
 * Returns the end reason.
 */
u8 ustack_sframe_walk_scan(struct sframe_walk *w,
			   const struct sframe_walk_ops *ops,
			   const struct sframe_state *last, u32 *nr)
{
	u64 slot = last->sp, prev = last->ip;

	for (;;) {
		u64 pick = 0, pick_v = 0, pick_t = 0, a = slot, v, t;
		u32 i, first = 0;
		int rank, best = SF_GUESS_NONE;
		u8 end = USTACK_END_SCAN_END;

		if (*nr >= w->max_frames)
			return USTACK_END_DEPTH;
		sf_env_pause();
		for (i = 0; i < USTACK_GUESS_MAX_WORDS; i++, a += 8) {
			/* an unknown target cannot be compared: it stays */
			if ((best == SF_GUESS_PLAUSIBLE && !pick_t) ||
			    (best && i > first + USTACK_GUESS_LOOKAHEAD))
				break;
			if (w->scanned >= USTACK_GUESS_WALK_WORDS ||
			    w->budget.bytes < 8) {
				end = USTACK_END_BUDGET;
				break;
			}
			w->scanned++;
			w->budget.bytes -= 8;
			if (a < slot || sf_load(last, a, &v)) {
				end = USTACK_END_SCAN_FAULT;
				break;
			}
			rank = sf_guess_rank(w, ops, v, prev, &t);
			if (rank < 0) {
				end = USTACK_END_BUDGET;
				break;
			}
			if (rank > best || (rank == SF_GUESS_PLAUSIBLE &&
					    pick_t && t > pick_t)) {
				if (!best)
					first = i;
				best = rank;
				pick = a;
				pick_v = v;
				pick_t = t;
			}
		}
		if (!best)
			return end;
		w->ips[*nr] = pick_v;
		if (w->methods)
			w->methods[*nr] = USTACK_METHOD_GUESS;
		(*nr)++;
		prev = pick_v;
		slot = pick + 8;
	}
}
