// SPDX-License-Identifier: GPL-2.0
/*
 * The walk: the one loop ustack.ko runs (module/user_walk.c gives it the
 * kernel's hooks) and the tests, the fuzzer and the benchmarks drive.
 *
 * Frame by frame: as many frames as the rule cache knows (sframe_cache.c),
 * then one the slow way: a signal frame where the return address is the
 * architecture's signal trampoline (arch.h), else the rule for the PC
 * from the section the find_sec hook gives, else the frame-pointer rule.  Where no rule takes
 * the walk further, the stack scan may (sframe_scan.c).  Every walk is
 * bounded by its depth and its budget (include/uapi/ustack.h); between
 * frames it pauses (sf_env_pause()) and a dying task's walk stops.
 */
#include "ustack_sframe.h"
#include "uapi/ustack.h"
#include "sframe_cache.h"
#include "sframe_scan.h"
#include "sframe_step.h"

static const struct sframe_walk_ops sf_no_ops;

static bool sf_is_sigreturn(struct sframe_walk *w,
			    const struct sframe_walk_ops *ops, u64 ip)
{
	static const u8 sig[USTACK_ARCH_SIGRETURN_LEN] =
		USTACK_ARCH_SIGRETURN_BYTES;
	u8 b[USTACK_ARCH_SIGRETURN_LEN];

	if (ops->read_code(w, b, ip, sizeof(b)))
		return false;
	return !memcmp(b, sig, sizeof(b));
}

static __always_inline u8 sf_end_of(int err)
{
	if (err == SFRAME_E_BUDGET)
		return USTACK_END_BUDGET;
	return err == SFRAME_E_FAULT ? USTACK_END_FAULT : USTACK_END_BAD_FRAME;
}

/* The walk ends with SFrame code @err, if any: 0, or -1 and *@end. */
static int sf_walk_end(struct sframe_walk *w, int err, u8 *end)
{
	if (!err)
		return 0;
	w->err = (s8)err;
	*end = sf_end_of(err);
	return -1;
}

/* Through a signal frame: 0 and *@method, or -1 and *@end. */
static int sf_walk_signal(struct sframe_walk *w, struct sframe_state *st,
			  u8 *method, u8 *end)
{
	if (++w->nsig > SFRAME_WALK_MAX_SIGNALS) {
		*end = USTACK_END_BAD_FRAME;
		return -1;
	}
	*method = USTACK_METHOD_SIGNAL;
	return sf_walk_end(w, ustack_arch_signal_step(w, st), end);
}

/*
 * The rule for @pc: from the rule cache, else from the section that
 * covers it (asked of find_sec when the PC leaves the last one's text),
 * then cached if the section allows.  0, or an SFrame code.
 */
static int sf_walk_rule(struct sframe_walk *w,
			const struct sframe_walk_ops *ops, u64 pc,
			struct sframe_rule *r, bool no_tramp)
{
	const struct sframe_sec *sec = w->sec;
	int err;

	if (sf_walk_has_cache(w, ops) &&
	    ustack_sframe_walk_cache_get(w, ops, pc, r, no_tramp))
		return 0;
	if (!sec || !sec->text_hi || pc < sec->text_lo || pc >= sec->text_hi) {
		w->sec_cacheable = false;
		sec = ops->find_sec ? ops->find_sec(w, pc, &w->sec_cacheable) :
				      NULL;
		w->sec = sec;
	}
	err = sec ? ustack_sframe_find_budget(sec, pc, r, &w->budget) :
		    SFRAME_E_NOINFO;
	if (!err && w->sec_cacheable && sf_walk_has_cache(w, ops))
		ustack_sframe_walk_cache_put(w, ops, pc, r, no_tramp);
	return err;
}

/*
 * Does the interrupted frame return from clone or clone3?  The request's
 * registers say so (SFRAME_WALK_CLONE_*), or, for a tick right after the
 * return, the code before the IP.  1 in the child, -1 in the parent, 0 if
 * neither.
 */
static int sf_walk_clone_return(struct sframe_walk *w,
				const struct sframe_walk_ops *ops,
				const struct sframe_state *st)
{
	u8 b[SFRAME_CLONE_CODE_LEN];

	if (st->ip == w->st.ip && st->sp == w->st.sp) {
		if (w->flags & SFRAME_WALK_CLONE_CHILD)
			return 1;
		if (w->flags & SFRAME_WALK_CLONE_PARENT)
			return -1;
	}
	if (!ops->read_code || !st->gpr || st->ip < sizeof(b) ||
	    ops->read_code(w, b, st->ip - sizeof(b), sizeof(b)) ||
	    !ustack_sframe_clone_code(b))
		return 0;
	return st->gpr[SFRAME_REG_RET] ? -1 : 1;
}

/*
 * No rule covers the interrupted frame, which returns from clone or
 * clone3 (@clone: 1 in the child, -1 in the parent): 0 and *@method, or
 * -1 and *@end.
 */
static int sf_walk_clone(struct sframe_walk *w, struct sframe_state *st,
			 int clone, u8 *method, u8 *end)
{
	if (clone > 0) {
		*end = USTACK_END_OUTERMOST;
		return -1;
	}
	*method = USTACK_METHOD_ENTRY;
	return sf_walk_end(w, sf_entry_step(st), end);
}

/*
 * No rule covers the PC: a thread's creation, a signal trampoline at an
 * unaligned address, or the frame-pointer rule.  0 and *@method, or -1
 * and *@end.
 */
static int sf_walk_no_info(struct sframe_walk *w,
			   const struct sframe_walk_ops *ops,
			   struct sframe_state *st, u8 *method, u8 *end)
{
	int err, clone = st->topmost ? sf_walk_clone_return(w, ops, st) : 0;

	if (clone)
		return sf_walk_clone(w, st, clone, method, end);
	if (ops->read_code && !st->topmost &&
	    (st->ip & (USTACK_ARCH_SIGRETURN_ALIGN - 1)) &&
	    sf_is_sigreturn(w, ops, st->ip))
		return sf_walk_signal(w, st, method, end);
	if (w->flags & SFRAME_WALK_NO_FP) {
		w->err = SFRAME_E_NOINFO;
		*end = USTACK_END_NO_INFO;
		return -1;
	}
	if (!st->fp) {
		/*
		 * The psABIs: a frame pointer of 0 marks the deepest frame,
		 * in code that keeps frame pointers; code without them may
		 * never touch the register, so a scan may still find callers.
		 */
		*end = (w->flags & SFRAME_WALK_GUESS) ?
		       USTACK_END_NO_INFO : USTACK_END_OUTERMOST;
		return -1;
	}
	*method = USTACK_METHOD_FP;
	err = sf_fp_step(st);
	if (err == SFRAME_E_RA) {
		/* A zero return address ends the chain. */
		*end = USTACK_END_OUTERMOST;
		return -1;
	}
	return sf_walk_end(w, err, end);
}

/* One frame up, the slow way: 0 and *@method, or -1 and *@end. */
static int sf_walk_step(struct sframe_walk *w,
			const struct sframe_walk_ops *ops,
			struct sframe_state *st, u8 *method, u8 *end)
{
	struct sframe_rule r;
	bool no_tramp = false;
	int err;

	/*
	 * __restore_rt is aligned: look at the code there first; elsewhere
	 * only where no SFrame rule covers the PC.
	 */
	if (ops->read_code && !st->topmost &&
	    !(st->ip & (USTACK_ARCH_SIGRETURN_ALIGN - 1))) {
		if (sf_is_sigreturn(w, ops, st->ip))
			return sf_walk_signal(w, st, method, end);
		no_tramp = true;
	}
	err = sf_walk_rule(w, ops, st->exact_ip ? st->ip : st->ip - 1, &r,
			   no_tramp);
	if (likely(!err)) {
		if (r.flags & SFRAME_R_OUTERMOST) {
			*end = USTACK_END_OUTERMOST;
			return -1;
		}
		*method = (r.flags & SFRAME_R_SIGNAL) ?
			  USTACK_METHOD_SIGNAL : USTACK_METHOD_SFRAME;
		err = sf_step(&r, st);
	} else if (err == SFRAME_E_NOINFO) {
		return sf_walk_no_info(w, ops, st, method, end);
	}
	return sf_walk_end(w, err, end);
}

static const struct sframe_budget sf_walk_limit = {
	.fdes = USTACK_WALK_MAX_FDES,
	.fres = USTACK_WALK_MAX_FRES,
	.bytes = USTACK_WALK_MAX_BYTES,
};

/* SFrame bytes a walk reads before a fatal signal may cut it short. */
#define SF_DYING_BYTES	(64 * 1024)

/* The walk's own fields, and the interrupted frame stored: the new nr. */
static u32 sf_walk_start(struct sframe_walk *w, struct sframe_state *st)
{
	w->err = 0;
	w->scanned = 0;
	w->nsig = 0;
	w->sec = NULL;
	w->sec_cacheable = false;
	w->budget = w->limit ? *w->limit : sf_walk_limit;
	if (!w->max_frames)
		return 0;
	st->topmost = true;
	st->exact_ip = true;
	st->outermost = false;
	w->ips[0] = st->ip;
	if (w->methods)
		w->methods[0] = USTACK_METHOD_REGS;
	return 1;
}

/**
 * ustack_sframe_walk() - walk a stack from its interrupted frame
 * @w: w->st, the hooks, the frame arrays and their size, the flags
 *
 * Runs where its hooks may run: in the kernel, faultable task context
 * (user_walk.c).  Bounded by w->max_frames and the budget (w->limit, or
 * USTACK_WALK_MAX_*); pauses between frames and stops a dying task's walk
 * once it has done real work.
 *
 * Return: the frames stored (w->nr); w->end and w->err say why it ended.
 */
u32 ustack_sframe_walk(struct sframe_walk *w)
{
	const struct sframe_walk_ops *ops = w->ops ? w->ops : &sf_no_ops;
	/* locals: stores to ips[] could alias *w and force reloads */
	struct sframe_state st = w->st;
	u64 *ips = w->ips;
	u8 *methods = w->methods;
	u32 max = w->max_frames, nr = sf_walk_start(w, &st);
	/* a cached run stops before what may be a signal trampoline */
	u64 stop = ops->read_code ? SF_STOP : 0;
	struct sframe_state last = w->st;	/* before the step: the scan's */
	u32 start_bytes = w->budget.bytes;
	u8 method, end = USTACK_END_DEPTH;
	bool sig = w->flags & SFRAME_WALK_IN_SIGRETURN;

	while (nr) {
		if (!sig && sf_walk_has_cache(w, ops))
			nr = ustack_sframe_walk_cached(w, ops, &st, nr, stop);
		if (nr >= max) {
			end = USTACK_END_DEPTH;
			break;
		}
		if (st.outermost) {
			end = USTACK_END_OUTERMOST;
			break;
		}
		/*
		 * Between frames others may run, and a dying task stops here
		 * once its walk has done real work: a short walk of a task
		 * that a signal is about to kill still says where it was.
		 */
		if (sf_env_pause() &&
		    start_bytes - w->budget.bytes >= SF_DYING_BYTES) {
			end = USTACK_END_EXIT;
			break;
		}
		if (w->flags & SFRAME_WALK_GUESS)
			last = st;
		if (sig ? sf_walk_signal(w, &st, &method, &end) :
			  sf_walk_step(w, ops, &st, &method, &end)) {
			if ((end == USTACK_END_NO_INFO ||
			     end == USTACK_END_BAD_FRAME) &&
			    (w->flags & SFRAME_WALK_GUESS) && ops->is_text &&
			    ops->read_code)
				end = ustack_sframe_walk_scan(w, ops, &last, &nr);
			break;
		}
		ips[nr] = st.ip;
		if (methods)
			methods[nr] = method;
		nr++;
		sig = false;
	}
	w->nr = nr;
	w->end = end;
	return nr;
}

#ifndef __KERNEL__
/*
 * read_code for walks of local memory (tools, tests, benchmarks): the
 * code of the text the walk's own find_sec knows, nothing else.
 */
int ustack_sframe_read_local_code(struct sframe_walk *w, void *dst, u64 addr,
				  u32 len)
{
	bool cacheable;
	const struct sframe_sec *s = w->ops->find_sec(w, addr, &cacheable);

	if (!s || addr + len > s->text_hi)
		return -EFAULT;
	memcpy(dst, (const void *)(unsigned long)addr, len);
	return 0;
}
#endif
