// SPDX-License-Identifier: GPL-2.0
/*
 * The x86-64 part of the SFrame core's walk (arch.h: the seam): the
 * registers a signal frame saved, the call instruction before a return
 * address, the PLT stub a call may go through, and the system call that
 * made a thread.  Built with the core
 * into ustack.ko and the tools (core.mk); its constants are arch_x86.h's.
 */
#include "ustack_sframe.h"
#include "sframe_stack.h"

/*
 * @st is at __restore_rt, SP at the signal frame's ucontext: go on from
 * the registers of its uc_mcontext (all of them: the frame is a topmost
 * one).
 */
int ustack_arch_signal_step(struct sframe_walk *w, struct sframe_state *st)
{
	static const u8 map[SFRAME_NR_REGS] = USTACK_ARCH_SC_DWARF_MAP;
	u64 sc[USTACK_ARCH_SC_WORDS];
	u64 at = st->sp + USTACK_ARCH_UC_MCONTEXT;
	int i, err;

	if (at < st->sp)
		return SFRAME_E_FAULT;
	err = sf_load_block(st, at, sc, sizeof(sc));
	if (err)
		return err;
	for (i = 0; i < SFRAME_NR_REGS; i++)
		w->gpr[i] = sc[map[i]];
	st->ip = w->gpr[SFRAME_REG_RA];
	st->sp = w->gpr[SFRAME_REG_RSP];
	st->fp = w->gpr[SFRAME_REG_RBP];
	st->gpr = w->gpr;
	st->topmost = true;
	st->exact_ip = true;
	return st->ip ? 0 : SFRAME_E_RA;
}

/* The rel32 of an E8 call, little-endian. */
static s32 x86_rel32(const u8 *p)
{
	return (s32)((u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 |
		     (u32)p[3] << 24);
}

bool ustack_sframe_clone_code(const u8 *b)
{
	s32 nr = x86_rel32(b + 1);

	return b[0] == 0xb8 && b[5] == 0x0f && b[6] == 0x05 &&
	       (nr == USTACK_ARCH_NR_CLONE || nr == USTACK_ARCH_NR_CLONE3);
}

/* The length of an FF /2 call from its ModRM byte @m and SIB byte @sib. */
static u32 x86_ff2_len(u8 m, u8 sib)
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

/*
 * E8 rel32 is the direct call (its target set); FF /2 the indirect ones,
 * through a register or memory.
 */
u32 ustack_sframe_call_before(const u8 *b, u64 ret, u64 *target)
{
	const u8 *end = b + SFRAME_CALL_MAX_LEN;
	u32 k;

	if (end[-5] == 0xe8) {
		*target = ret + (u64)(s64)x86_rel32(end - 4);
		return 5;
	}
	for (k = 2; k <= SFRAME_CALL_MAX_LEN; k++) {
		const u8 *op = end - k;

		/* a SIB byte only exists (and is only read) for k > 2 */
		if (op[0] == 0xff && ((op[1] >> 3) & 7) == 2 &&
		    x86_ff2_len(op[1], k > 2 ? op[2] : 0) == k)
			return k;
	}
	return 0;
}

/* A PLT stub: jmp *GOT(%rip), after endbr64 or bnd. */
bool ustack_arch_plt_stub(const u8 *c)
{
	static const u8 endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	u32 k = 0;

	if (!memcmp(c, endbr64, sizeof(endbr64)))
		k = 4;
	if (c[k] == 0xf2)	/* bnd */
		k++;
	return c[k] == 0xff && c[k + 1] == 0x25;
}
