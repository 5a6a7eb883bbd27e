// SPDX-License-Identifier: GPL-2.0
/*
 * The user-stack walk of the current task, in faultable task context
 * (task_work at return to user space, or the SELF_STACK ioctl).
 *
 * Frame by frame with the SFrame core's primitives: the section for a PC is
 * a registered one, else the ELF file's PT_GNU_SFRAME (discovery), else the
 * frame-pointer rule.  A return address on the rt_sigreturn trampoline
 * (mov $0xf,%rax; syscall: glibc's __restore_rt) is a signal frame: the
 * interrupted registers come from the ucontext on the user stack and the
 * walk goes on from there (METHOD_SIGNAL).  No lock is held across a user
 * memory read; the registry is read under RCU and copied out first.
 *
 * Rules of registered sections are kept in a per-CPU rule cache (the core's
 * struct sframe_cache), tagged with the mm and the registry generation it
 * was filled under: any registration change anywhere makes it stale, so a
 * walk never uses a rule of a section unregistered (or unmapped) before it
 * started.  It is used with preemption and page faults disabled (a stack
 * read that would fault ends the cached run; the frame is then taken the
 * slow way), a bounded number of frames at a time.  Rules found through
 * ELF discovery are not cached (a mapping can change without a generation).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <asm/ptrace.h>
#include <uapi/ustack.h>
#include "internal.h"
#include "registry.h"

/* Nested signal frames in one walk (sigaltstack breaks the SP order). */
#define WALK_MAX_SIGNALS	16

/* x86-64 rt_sigframe: after the handler returns, SP is at its ucontext. */
#define WALK_UC_MCONTEXT	40	/* offsetof(struct ucontext, uc_mcontext) */
#define WALK_SC_WORDS		17	/* r8 .. rip of struct sigcontext_64 */

static const u8 walk_sigreturn[] = {
	0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00,	/* mov $0xf,%rax */
	0x0f, 0x05,					/* syscall */
};

/* sigcontext_64 word index of each DWARF register 0..16. */
static const u8 walk_sc_dwarf[SFRAME_NR_REGS] = {
	13, 12, 14, 11, 9, 8, 10, 15,	/* rax rdx rcx rbx rsi rdi rbp rsp */
	0, 1, 2, 3, 4, 5, 6, 7,		/* r8 .. r15 */
	16,				/* rip */
};

/* Frames taken from the rule cache per preemption-off stretch. */
#define WALK_CACHED_BURST	64

/* The per-CPU rule cache: rules of @mm's registered sections at @gen. */
struct walk_rcache {
	struct mm_struct *mm;
	u64 gen;
	struct sframe_cache c;
};

static struct walk_rcache __percpu *walk_rc;

int ustack_walk_init(void)
{
	walk_rc = alloc_percpu(struct walk_rcache);	/* zeroed: no owner */
	return walk_rc ? 0 : -ENOMEM;
}

/* After the last walk (module exit). */
void ustack_walk_exit(void)
{
	free_percpu(walk_rc);
	walk_rc = NULL;
}

/* The section answer for a range of PCs, reused while PCs stay inside. */
struct walk_cache {
	struct sframe_sec sec;
	u64 lo, hi;
	u64 gen;		/* registry generation read before the lookup */
	bool valid, have;
	bool reg;		/* @sec is a registered section */
};

static const struct sframe_sec *walk_find(struct walk_cache *c,
					   struct mm_struct *mm, u64 pc)
{
	u64 glo, ghi, dlo, dhi;

	if (c->valid && pc >= c->lo && pc < c->hi)
		return c->have ? &c->sec : NULL;
	c->valid = true;
	c->reg = false;
	c->gen = ustack_registry_generation();
	if (ustack_registry_lookup(mm, pc, &c->sec, &glo, &ghi)) {
		c->have = true;
		c->reg = true;
		c->lo = c->sec.text_lo;
		c->hi = c->sec.text_hi;
		return &c->sec;
	}
	c->have = !ustack_discovery_lookup(pc, &c->sec, &dlo, &dhi);
	if (c->have) {
		dlo = c->sec.text_lo;
		dhi = c->sec.text_hi;
	}
	/* Registrations win: a discovered range stops at the next one. */
	c->lo = max(glo, dlo);
	c->hi = min(ghi, dhi);
	if (c->lo > pc || c->hi <= pc) {
		c->lo = pc;
		c->hi = pc + 1;
	}
	if (!c->have)
		return NULL;
	c->sec.text_lo = c->lo;
	c->sec.text_hi = c->hi;
	return &c->sec;
}

static bool walk_is_sigreturn(u64 ip)
{
	u8 b[sizeof(walk_sigreturn)];

	if (ip > TASK_SIZE - sizeof(b))
		return false;
	if (copy_from_user(b, (const void __user *)ip, sizeof(b)))
		return false;
	return !memcmp(b, walk_sigreturn, sizeof(b));
}

/* @st is at the trampoline: continue from the interrupted registers. */
static int walk_signal(struct sframe_state *st, u64 *gpr)
{
	u64 sc[WALK_SC_WORDS];
	unsigned long at = st->sp + WALK_UC_MCONTEXT;
	int i;

	if (at < st->sp || at > TASK_SIZE - sizeof(sc))
		return SFRAME_E_FAULT;
	if (copy_from_user(sc, (const void __user *)at, sizeof(sc)))
		return SFRAME_E_FAULT;
	for (i = 0; i < SFRAME_NR_REGS; i++)
		gpr[i] = sc[walk_sc_dwarf[i]];
	st->ip = gpr[SFRAME_REG_RA];
	st->sp = gpr[SFRAME_REG_RSP];
	st->fp = gpr[SFRAME_REG_RBP];
	st->gpr = gpr;
	st->topmost = true;	/* an interrupted frame: exact IP, all regs */
	st->exact_ip = true;
	return st->ip ? 0 : SFRAME_E_RA;
}

static void walk_regs(const struct pt_regs *regs, u64 *gpr)
{
	gpr[0] = regs->ax;
	gpr[1] = regs->dx;
	gpr[2] = regs->cx;
	gpr[3] = regs->bx;
	gpr[4] = regs->si;
	gpr[5] = regs->di;
	gpr[6] = regs->bp;
	gpr[7] = regs->sp;
	gpr[8] = regs->r8;
	gpr[9] = regs->r9;
	gpr[10] = regs->r10;
	gpr[11] = regs->r11;
	gpr[12] = regs->r12;
	gpr[13] = regs->r13;
	gpr[14] = regs->r14;
	gpr[15] = regs->r15;
	gpr[16] = regs->ip;
}

static u8 walk_end_of(int err)
{
	return err == SFRAME_E_FAULT ? USTACK_END_FAULT : USTACK_END_BAD_FRAME;
}

struct uwalk {
	struct mm_struct *mm;
	struct sframe_state st;
	struct walk_cache c;
	u64 gpr[SFRAME_NR_REGS];
	u32 nsig;
};

/* Remember the rule @r of @pc, found in a registered section. */
static void walk_cache_put(struct uwalk *w, u64 pc,
			    const struct sframe_rule *r)
{
	struct walk_rcache *rc;

	if (!walk_rc)
		return;
	rc = get_cpu_ptr(walk_rc);
	if (rc->mm != w->mm || rc->gen != w->c.gen) {
		/* a new owner, unless the registry moved on since the lookup */
		if (ustack_registry_generation() != w->c.gen)
			goto out;
		ustack_sframe_cache_reset(&rc->c);
		rc->mm = w->mm;
		rc->gen = w->c.gen;
	}
	ustack_sframe_cache_put(&rc->c, pc, r);
out:
	put_cpu_ptr(walk_rc);
}

/* The cached rule for @pc, if the cache is @w's and current. */
static bool walk_cache_get(struct uwalk *w, u64 pc, struct sframe_rule *r)
{
	const struct sframe_cache_ent *e;
	struct walk_rcache *rc;
	bool hit = false;

	if (!walk_rc)
		return false;
	rc = get_cpu_ptr(walk_rc);
	if (rc->mm == w->mm && rc->gen == ustack_registry_generation()) {
		e = ustack_sframe_cache_get(&rc->c, pc);
		if (e) {
			ustack_sframe_cache_rule(e, r);
			hit = true;
		}
	}
	put_cpu_ptr(walk_rc);
	return hit;
}

/*
 * As many frames as the rule cache knows, from @w->st: the new nr.  No
 * fault is taken (pagefault_disable(): get_user() fails instead); the
 * walk stops before 16-byte aligned return addresses (possible
 * __restore_rt, checked by walk_step()).
 */
static u32 walk_cached(struct uwalk *w, u64 *ips, u8 *methods, u32 nr,
			u32 max)
{
	struct walk_rcache *rc;
	u32 lim;

	if (!walk_rc)
		return nr;
	do {
		lim = min_t(u32, max, nr + WALK_CACHED_BURST);
		rc = get_cpu_ptr(walk_rc);
		if (rc->mm != w->mm || rc->gen != ustack_registry_generation()) {
			put_cpu_ptr(walk_rc);
			break;
		}
		pagefault_disable();
		nr = ustack_sframe_cache_walk(&rc->c, &w->st, ips, methods, nr, lim,
				       15);
		pagefault_enable();
		put_cpu_ptr(walk_rc);
	} while (nr == lim && nr < max);
	return nr;
}

/* @w->st is at a signal trampoline: step to the interrupted frame. */
static int walk_signal_step(struct uwalk *w, u8 *method, u8 *end)
{
	int err;

	if (++w->nsig > WALK_MAX_SIGNALS) {
		*end = USTACK_END_BAD_FRAME;
		return -1;
	}
	err = walk_signal(&w->st, w->gpr);
	if (err) {
		*end = walk_end_of(err);
		return -1;
	}
	*method = USTACK_METHOD_SIGNAL;
	return 0;
}

/* One frame up: 0 and *@method, or -1 and *@end. */
static int walk_step(struct uwalk *w, u8 *method, u8 *end)
{
	struct sframe_state *st = &w->st;
	const struct sframe_sec *sec;
	struct sframe_rule r;
	u64 pc;
	int err;

	/*
	 * glibc's __restore_rt is 16-byte aligned: look at the code there
	 * first; elsewhere only where no SFrame rule covers the PC.
	 */
	if (!st->topmost && !(st->ip & 15) && walk_is_sigreturn(st->ip))
		return walk_signal_step(w, method, end);
	pc = st->exact_ip ? st->ip : st->ip - 1;
	if (walk_cache_get(w, pc, &r)) {
		err = 0;
	} else {
		sec = walk_find(&w->c, w->mm, pc);
		err = sec ? ustack_sframe_find(sec, pc, &r) : SFRAME_E_NOINFO;
		if (!err && w->c.reg)
			walk_cache_put(w, pc, &r);
	}
	if (!err) {
		if (r.flags & SFRAME_R_OUTERMOST) {
			*end = USTACK_END_OUTERMOST;
			return -1;
		}
		*method = (r.flags & SFRAME_R_SIGNAL) ?
			  USTACK_METHOD_SIGNAL : USTACK_METHOD_SFRAME;
		err = ustack_sframe_step(&r, st);
	} else if (err == SFRAME_E_NOINFO) {
		if (!st->topmost && (st->ip & 15) && walk_is_sigreturn(st->ip))
			return walk_signal_step(w, method, end);
		if (!st->fp) {
			/* psABI: rbp 0 marks the deepest frame. */
			*end = USTACK_END_OUTERMOST;
			return -1;
		}
		*method = USTACK_METHOD_FP;
		err = ustack_sframe_fp_step(st);
		if (err == SFRAME_E_RA) {
			/* A zero return address ends the chain. */
			*end = USTACK_END_OUTERMOST;
			return -1;
		}
	}
	if (err) {
		*end = walk_end_of(err);
		return -1;
	}
	return 0;
}

u32 ustack_walk_user(struct pt_regs *regs, u64 *ips, u8 *methods, u32 max,
		     u8 *end)
{
	struct uwalk w = { .mm = current->mm };
	u32 nr = 0;
	u8 method;

	if (!max) {
		*end = USTACK_END_DEPTH;
		return 0;
	}
	if (!regs || !w.mm || (current->flags & (PF_KTHREAD | USTACK_PF_WORKERS))) {
		*end = USTACK_END_KTHREAD;
		return 0;
	}
	ips[nr] = regs->ip;
	if (methods)
		methods[nr] = USTACK_METHOD_REGS;
	nr++;
	if (!user_64bit_mode(regs)) {
		/* 32-bit code: no SFrame, no 4-byte FP walk (yet). */
		*end = USTACK_END_NO_INFO;
		return nr;
	}
	walk_regs(regs, w.gpr);
	w.st.ip = regs->ip;
	w.st.sp = regs->sp;
	w.st.fp = regs->bp;
	w.st.gpr = w.gpr;
	w.st.topmost = true;
	w.st.exact_ip = true;

	for (;;) {
		nr = walk_cached(&w, ips, methods, nr, max);
		if (nr >= max) {
			*end = USTACK_END_DEPTH;
			break;
		}
		if (walk_step(&w, &method, end))
			break;
		ips[nr] = w.st.ip;
		if (methods)
			methods[nr] = method;
		nr++;
	}
	return nr;
}
