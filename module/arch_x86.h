/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86-64 specifics, in one place, as kernel versions are in compat.h.
 *
 * The SFrame core (ustack_sframe.c, also built into the user-space tools)
 * includes this header for the walk's part; the parts that need kernel
 * headers are under __KERNEL__.
 */
#ifndef USTACK_ARCH_X86_H
#define USTACK_ARCH_X86_H

/* ---- the user walk: signal frames and registers ---------------------- */

/*
 * glibc's __restore_rt, the return address of every signal handler:
 *   mov $0xf,%rax; syscall  (rt_sigreturn)
 * It is 16-byte aligned, so the walk looks at the code of aligned return
 * addresses first and at others only where no SFrame rule covers them.
 */
#define USTACK_X86_SIGRETURN_LEN	9
#define USTACK_X86_SIGRETURN_BYTES	{			\
	0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00,		\
	0x0f, 0x05,						\
}
#define USTACK_X86_SIGRETURN_ALIGN	16

/*
 * rt_sigframe: when the handler has returned to __restore_rt, SP points
 * at the frame's struct ucontext; its uc_mcontext (struct sigcontext_64)
 * starts with the 17 words r8 .. r15, rdi, rsi, rbp, rbx, rdx, rax, rcx,
 * rsp, rip.
 */
#define USTACK_X86_UC_MCONTEXT		40	/* offsetof(ucontext, uc_mcontext) */
#define USTACK_X86_SC_WORDS		17

/* The sigcontext_64 word of each DWARF register 0..16 (rip last). */
#define USTACK_X86_SC_DWARF_MAP		{				\
	13, 12, 14, 11, 9, 8, 10, 15,	/* rax rdx rcx rbx rsi rdi rbp rsp */ \
	0, 1, 2, 3, 4, 5, 6, 7,		/* r8 .. r15 */			\
	16,				/* rip */			\
}

#ifdef __KERNEL__
#include <asm/ptrace.h>

/* DWARF registers 0..16 (SFRAME_NR_REGS) of the user frame in @regs. */
static inline void ustack_x86_regs_dwarf(struct pt_regs *regs, u64 *gpr)
{
	gpr[0] = regs->ax;
	gpr[1] = regs->dx;
	gpr[2] = regs->cx;
	gpr[3] = regs->bx;
	gpr[4] = regs->si;
	gpr[5] = regs->di;
	gpr[6] = regs->bp;
	gpr[7] = user_stack_pointer(regs);
	gpr[8] = regs->r8;
	gpr[9] = regs->r9;
	gpr[10] = regs->r10;
	gpr[11] = regs->r11;
	gpr[12] = regs->r12;
	gpr[13] = regs->r13;
	gpr[14] = regs->r14;
	gpr[15] = regs->r15;
	gpr[16] = instruction_pointer(regs);
}
#endif /* __KERNEL__ */

#endif /* USTACK_ARCH_X86_H */
