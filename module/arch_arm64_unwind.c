// SPDX-License-Identifier: GPL-2.0
/*
 * The AArch64 part of the SFrame core's walk (arch.h: the seam): the
 * registers a signal frame saved, the call instruction before a return
 * address, the PLT stub a call may go through, and the system call that
 * made a thread.  Built with the core into ustack.ko and the tools
 * (core.mk); its constants are arch_arm64.h's.
 */
#include "ustack_sframe.h"
#include "sframe_stack.h"

#ifdef __KERNEL__
#include <linux/signal.h>
#include <asm/sigcontext.h>
#include <asm/ucontext.h>

/* The layout arch_arm64.h reads, as the kernel's uapi has it. */
static_assert(sizeof(struct siginfo) == USTACK_ARCH_SIGINFO_SIZE);
static_assert(offsetof(struct ucontext, uc_mcontext) == USTACK_ARCH_UC_MCONTEXT);
static_assert(offsetof(struct sigcontext, regs) == USTACK_ARCH_SC_REGS);
static_assert(offsetof(struct sigcontext, sp) ==
	      USTACK_ARCH_SC_REGS + 8 * SFRAME_REG_XSP);
static_assert(offsetof(struct sigcontext, pc) ==
	      USTACK_ARCH_SC_REGS + 8 * USTACK_ARCH_REG_RA);
static_assert(sizeof(struct siginfo) + sizeof(struct ucontext) ==
	      USTACK_ARCH_SIGFRAME_SIZE);
#endif

/* The saved registers are the walk's, in order: one copy. */
_Static_assert(USTACK_ARCH_SC_WORDS == SFRAME_NR_REGS, "sigcontext words");

/* The saved x0 .. x30, sp, pc of the signal frame at @frame, into @gpr. */
static int a64_sigframe_regs(const struct sframe_state *st, u64 frame,
			     u64 *gpr)
{
	u64 at = frame + USTACK_ARCH_SIGINFO_SIZE + USTACK_ARCH_UC_MCONTEXT +
		 USTACK_ARCH_SC_REGS;

	if (at < frame)
		return SFRAME_E_FAULT;
	return sf_load_block(st, at, gpr, USTACK_ARCH_SC_WORDS * 8);
}

/*
 * Is there a signal frame at @frame (its registers then in @gpr)?  The
 * kernel puts the handler's first frame record right above it (unless
 * large SVE or SME state made the frame bigger), holding the interrupted
 * x29 and x30 as the frame's sigcontext does.
 */
static bool a64_sigframe_at(const struct sframe_state *st, u64 frame,
			    u64 *gpr)
{
	u64 rec[2];

	return !a64_sigframe_regs(st, frame, gpr) &&
	       !sf_load_block(st, frame + USTACK_ARCH_SIGFRAME_SIZE, rec,
			      sizeof(rec)) &&
	       rec[0] == gpr[SFRAME_REG_X29] && rec[1] == gpr[SFRAME_REG_LR];
}

/*
 * @st is at the trampoline: go on from the registers of the signal
 * frame's uc_mcontext, x0 .. x30, sp, pc, which are the DWARF registers in
 * order (all of them: the frame is a topmost one).  After an SFrame step
 * SP is at the frame.  After a frame-pointer step it is not (the rule
 * takes FP + 16, and GCC puts the record at the bottom of the frame), but
 * the record that step read last was the kernel's, above the frame: FP
 * points at it.
 */
int ustack_arch_signal_step(struct sframe_walk *w, struct sframe_state *st)
{
	int err = 0;

	if (!a64_sigframe_at(st, st->sp, w->gpr) &&
	    !(st->fp > USTACK_ARCH_SIGFRAME_SIZE &&
	      a64_sigframe_at(st, st->fp - USTACK_ARCH_SIGFRAME_SIZE, w->gpr)))
		err = a64_sigframe_regs(st, st->sp, w->gpr);
	if (err)
		return err;
	st->ip = w->gpr[SFRAME_REG_RA];
	st->sp = w->gpr[SFRAME_REG_SP];
	st->fp = w->gpr[SFRAME_REG_FP];
	st->gpr = w->gpr;
	st->topmost = true;
	st->exact_ip = true;
	return st->ip ? 0 : SFRAME_E_RA;
}

/* The A64 instruction at @p, little-endian. */
static u32 a64_insn(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

/* movz x8, #@nr: the system call number's load. */
static u32 a64_mov_x8(u32 nr)
{
	return 0xd2800008 | nr << 5;
}

#define A64_SVC0	0xd4000001

bool ustack_sframe_clone_code(const u8 *b)
{
	u32 mov = a64_insn(b);

	return a64_insn(b + 4) == A64_SVC0 &&
	       (mov == a64_mov_x8(USTACK_ARCH_NR_CLONE) ||
		mov == a64_mov_x8(USTACK_ARCH_NR_CLONE3));
}

/*
 * BL imm26 is the direct call (its target set: the offset is from the BL
 * itself); BLR Xn and the pointer-authenticating BLRAA, BLRAB (Xn, Xm)
 * and BLRAAZ, BLRABZ (Xn) the indirect ones.
 */
u32 ustack_sframe_call_before(const u8 *b, u64 ret, u64 *target)
{
	u32 insn = a64_insn(b);

	if ((insn & 0xfc000000) == 0x94000000) {
		s64 off = (s64)((u64)(insn & 0x03ffffff) << 38) >> 36;

		*target = ret - 4 + (u64)off;
		return 4;
	}
	if ((insn & 0xfffffc1f) == 0xd63f0000 ||	/* blr */
	    (insn & 0xfffff800) == 0xd73f0800 ||	/* blraa, blrab */
	    (insn & 0xfffff81f) == 0xd63f081f)		/* blraaz, blrabz */
		return 4;
	return 0;
}

/*
 * A PLT stub: adrp x16, GOT page; ldr x17, [x16, #slot] (then add, br x17),
 * after a bti c where the object has BTI.
 */
bool ustack_arch_plt_stub(const u8 *c)
{
	u32 k = a64_insn(c) == 0xd503245f ? 4 : 0;	/* bti c */

	return (a64_insn(c + k) & 0x9f00001f) == 0x90000010 &&
	       (a64_insn(c + k + 4) & 0xffc003ff) == 0xf9400211;
}
