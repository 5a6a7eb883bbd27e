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
#include "sframe_scan.h"
#include "sframe_stack.h"

/* sf_guess_rank() */
#define SF_GUESS_NONE		0
#define SF_GUESS_CONTRA		1	/* a direct call elsewhere than @prev's */
#define SF_GUESS_PLAUSIBLE	2	/* direct to @prev's function, or unknown */

/* ustack_sframe_call_before() left the target alone: an indirect call. */
#define SF_NO_TARGET		(~0ULL)

/*
 * Does the direct call target @t fit the frame whose PC is @prev: the
 * start of its function lies at most USTACK_GUESS_MAX_FUNC below it.  A
 * call through a PLT stub (ustack_arch_plt_stub()) is to a function
 * elsewhere that only the GOT knows: no contradiction either.
 */
static bool sf_guess_fits(struct sframe_walk *w,
			  const struct sframe_walk_ops *ops, u64 t, u64 prev)
{
	u8 c[USTACK_ARCH_PLT_PEEK_LEN];

	if (t <= prev && prev - t < USTACK_GUESS_MAX_FUNC)
		return true;
	if (w->budget.bytes < sizeof(c))
		return false;
	w->budget.bytes -= sizeof(c);
	if (ops->read_code(w, c, t, sizeof(c)))
		return false;
	return ustack_arch_plt_stub(c);
}

/*
 * How well the word @v passes for the return address of the frame whose
 * PC is @prev, or -1: the budget cannot pay for the code read.  *@start:
 * for a plausible direct call, its target (@prev's function start, if the
 * call is the real one), else 0.
 */
static int sf_guess_rank(struct sframe_walk *w,
			 const struct sframe_walk_ops *ops, u64 v, u64 prev,
			 u64 *start)
{
	u8 b[SFRAME_CALL_MAX_LEN];
	u64 t = SF_NO_TARGET;
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
	if (t == SF_NO_TARGET)
		return SF_GUESS_PLAUSIBLE;
	if (!sf_guess_fits(w, ops, t, prev))
		return SF_GUESS_CONTRA;
	if (t <= prev)
		*start = t;
	return SF_GUESS_PLAUSIBLE;
}

/*
 * The rest of the walk by scanning, from the frame @last whose caller no
 * rule gave: frames stored from *@nr on, all USTACK_METHOD_GUESS.  Each
 * frame's return address is the first plausible candidate at most
 * USTACK_GUESS_LOOKAHEAD words above the first candidate of any rank
 * within USTACK_GUESS_MAX_WORDS words of the last slot, else that first
 * one.  A plausible direct call gives way to a later one (in that reach) of a
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
			v = ustack_arch_strip_ra(v);
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
