/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything AArch64 about ustack: the names arch_x86.h defines, for the
 * 64-bit ABI (AArch32 compat tasks are not unwound: user_walk.c stores
 * their PC alone, coop refuses them).
 *
 * Included through arch.h only.  The SFrame core (also built into the
 * user-space tools) uses the first part, with arch_arm64_unwind.c; the
 * parts that need kernel headers are under __KERNEL__.  The nmi_test
 * hook (USTACK_TEST_HOOKS) is x86's NMI IPI: an arm64 build has none.
 */
#ifndef USTACK_ARCH_ARM64_H
#define USTACK_ARCH_ARM64_H

/*
 * The ELF objects ustack unwinds (ustack_elf.h, the tools' ELF checks),
 * in <elf.h>'s or <linux/elf.h>'s names, and the CPU's name in reasons.
 */
#define USTACK_ARCH_ELF_MACHINE	EM_AARCH64
#define USTACK_ARCH_ELF_DATA	ELFDATA2LSB
#define USTACK_ARCH_NAME	"AArch64"
#define USTACK_ARCH_BFD_NAME	"elf64-littleaarch64"	/* objdump's "file format" */

/* ---- the SFrame core: registers, frames, calls (arch_arm64_unwind.c) --- */

/*
 * DWARF register numbers (the AArch64 DWARF ABI): x0 .. x30, sp (31),
 * pc (32).  x29 is the frame pointer, x30 the link register.  The walk's
 * IP sits in the RA column's slot, as x86-64's rip does: 32, so that a
 * flex rule may name any of x0 .. sp.
 */
#define SFRAME_REG_X29			29
#define SFRAME_REG_LR			30
#define SFRAME_REG_XSP			31
#define USTACK_ARCH_REG_FP		SFRAME_REG_X29
#define USTACK_ARCH_REG_SP		SFRAME_REG_XSP
#define USTACK_ARCH_REG_RA		32
#define USTACK_ARCH_NR_REGS		33

/*
 * SFrame's ABI for AArch64: no fixed offsets in the header, the RA and the
 * FP are tracked per FRE (CFA, RA, FP words); an FRE without an RA word
 * leaves it in the link register, as at a function's entry.
 */
#define USTACK_ARCH_SFRAME_ABI		SFRAME_ABI_AARCH64_ENDIAN_LITTLE
#define USTACK_ARCH_SFRAME_FIXED_FP	0
#define USTACK_ARCH_SFRAME_FIXED_RA	0
/*
 * The RA slot of the rules the rule cache holds (sframe_cache.c): a frame
 * record at the top of its frame, stp x29, x30, [sp, #-16]!.  Rules with
 * the record lower in the frame are looked up each time.
 */
#define USTACK_ARCH_RA_OFF		(-8)

/*
 * At a function's first instruction the call (BL) left nothing on the
 * stack: CFA = SP, the return address in the link register.
 */
#define USTACK_ARCH_ENTRY_CFA		0
#define USTACK_ARCH_ENTRY_RA	{ .kind = SFRAME_LOC_REG_VAL,	\
				  .reg = SFRAME_REG_LR }
/* The PLT entries a v1 PCMASK FDE covers (ld's, without BTI). */
#define USTACK_ARCH_PLT_ENTRY_SIZE	16

/*
 * The frame-pointer rule: x29 points at the frame record {caller's x29,
 * x30}.  The generic rule takes CFA = FP + 16, true where the record is at
 * the top of its frame; GCC puts it at the bottom, so an SP-based rule
 * after a frame-pointer step can be wrong (an FP-based one is not).
 */
#define USTACK_ARCH_FP_CFA_OFF		16
#define USTACK_ARCH_FP_RA_OFF		8

/* A64 instructions are 4 bytes: BL and BLR alike. */
#define USTACK_ARCH_CALL_MAX_LEN	4
/* bti c, adrp x16, ldr x17, [x16, ...]: what ustack_arch_plt_stub() reads. */
#define USTACK_ARCH_PLT_PEEK_LEN	12

/* ---- the user walk: signal frames and registers ---------------------- */

/*
 * The vDSO's __kernel_rt_sigreturn (glibc's handlers return there) and
 * musl's __restore_rt, the return address of every signal handler:
 *   mov x8, #139; svc #0  (rt_sigreturn)
 * Instructions are 4-byte aligned and nothing more is promised (the vDSO
 * puts a nop before the symbol), so every return address is looked at:
 * once per PC where the rule cache remembers it (no_tramp).
 */
#define USTACK_ARCH_SIGRETURN_LEN	8
#define USTACK_ARCH_SIGRETURN_BYTES	{			\
	0x68, 0x11, 0x80, 0xd2,					\
	0x01, 0x00, 0x00, 0xd4,					\
}
#define USTACK_ARCH_SIGRETURN_ALIGN	4

/*
 * struct rt_sigframe { siginfo (128 bytes); struct ucontext }: when the
 * handler has returned to the trampoline, SP points at the frame; the
 * ucontext's uc_mcontext (struct sigcontext, 16-byte aligned at 176) holds
 * fault_address, then regs[31], sp, pc: the DWARF registers 0 .. 32 in
 * order.  arch_arm64_unwind.c checks the offsets against the kernel's.
 */
#define USTACK_ARCH_SIGINFO_SIZE	128
#define USTACK_ARCH_UC_MCONTEXT		176	/* offsetof(ucontext, uc_mcontext) */
#define USTACK_ARCH_SC_REGS		8	/* offsetof(sigcontext, regs) */
#define USTACK_ARCH_SC_WORDS		33
/*
 * sizeof(struct rt_sigframe), a multiple of 16: how far below the frame
 * record the kernel makes for the handler the frame starts, where its
 * records fit uc_mcontext's 4 KiB.
 */
#define USTACK_ARCH_SIGFRAME_SIZE	4688

/*
 * glibc's clone and clone3 end their CFI before the system call, right
 * after loading its number:  mov x8, #220 or #435; svc #0.  The result is
 * in x0 (DWARF 0): 0 in the child.
 */
#define USTACK_ARCH_CLONE_CODE_LEN	8
#define USTACK_ARCH_NR_CLONE		220
#define USTACK_ARCH_NR_CLONE3		435
#define USTACK_ARCH_REG_RET		0

#ifdef __KERNEL__
#include <asm/compiler.h>
#include <asm/memory.h>

/*
 * A return address as the stack or x30 holds it, made a code address: a
 * function built with -mbranch-protection=pac-ret signs x30 before it
 * saves it.  The kernel's own helper, which knows the VA size: 6.12's
 * (xpaclri), else 6.1's mask of the user PAC bits.
 */
static inline u64 ustack_arch_strip_ra(u64 ra)
{
#ifdef ptrauth_strip_user_insn_pac
	return ptrauth_strip_user_insn_pac(ra);
#else
	return ptrauth_clear_pac(ra);
#endif
}
#else
/* The tools: a 48-bit user address space, the PAC and tag bits above. */
static inline u64 ustack_arch_strip_ra(u64 ra)
{
	return ra & ((1ULL << 48) - 1);
}
#endif

/* ---- the kernel side ---------------------------------------------------- */

#ifdef __KERNEL__

#include <linux/elf.h>
#include <linux/mm.h>
#include <linux/mm_types.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/errno.h>
#include <asm/unistd.h>

/*
 * The exit path's work loop (signals, task_work, rescheduling), entered
 * with IRQs masked while a work flag is set and left with them masked
 * when none is, right before the user's registers are restored: where a
 * stay ends (stay_exitprobe.c).  arm64 has no user-return notifier.
 */
#define USTACK_ARCH_EXIT_WORK	"do_notify_resume"

/*
 * Does the task of user-mode @regs run the native 64-bit ABI (not an
 * AArch32 task)?  SFrame and cooperative unwinding serve only it.
 */
static inline bool ustack_arch_user_native(struct pt_regs *regs)
{
	return !compat_user_mode(regs);
}

/*
 * Has a user thread's @regs been set by a return to user space?  A user
 * worker's registers (copy_thread()) are zero and not in EL0 at all.
 */
static inline bool ustack_arch_user_regs_set(const struct pt_regs *regs)
{
	return regs->pc || regs->sp;
}

/* Is @vma the vDSO of its mm (its code: the data pages come before)? */
static inline bool ustack_arch_is_vdso(const struct vm_area_struct *vma)
{
	return vma->vm_mm &&
	       vma->vm_start == (unsigned long)vma->vm_mm->context.vdso;
}

/*
 * The vDSO image @mm maps at its vDSO (ustack_arch_is_vdso()): its ELF
 * bytes in kernel memory, one image for every process, NULL if @mm has
 * none.  *@size, if @size: the image's length, in whole pages.  Called
 * with @mm's mmap lock held.  arm64 keeps no pointer to the image in the
 * mm and does not export vdso_start: the code pages of the special
 * mapping are the image's, contiguous in the kernel's linear map.  The
 * mapping is checked to be one (anonymous, executable, with pages) that
 * starts with an ELF header: a vDSO unmapped and replaced leaves
 * context.vdso stale.
 */
static inline const void *ustack_arch_vdso_image(struct mm_struct *mm,
						 size_t *size)
{
	unsigned long base = (unsigned long)mm->context.vdso;
	const struct vm_special_mapping *sm;
	struct vm_area_struct *vma;
	const u8 *img;

	mmap_assert_locked(mm);
	if (!base)
		return NULL;
	vma = find_vma(mm, base);
	if (!vma || vma->vm_start != base || vma->vm_file ||
	    !(vma->vm_flags & VM_EXEC) || !vma->vm_private_data)
		return NULL;
	sm = vma->vm_private_data;
	if (!sm->pages || !sm->pages[0])
		return NULL;
	img = page_address(sm->pages[0]);
	if (!img || memcmp(img, ELFMAG, SELFMAG))
		return NULL;
	if (size)
		*size = vma->vm_end - vma->vm_start;
	return img;
}

/*
 * In a (pseudo-)NMI, task_pt_regs() is whole: the entry code saves the
 * user registers, and restores them, with every interrupt masked (DAIF),
 * pseudo-NMIs included.
 */
static inline bool ustack_arch_nmi_regs_ok(struct task_struct *t,
					   struct pt_regs *regs)
{
	return regs;
}

/*
 * Do @live's registers enter a signal handler?  The kernel set up a
 * signal frame after the request then: the handler's first argument, the
 * signal number, is in x0.
 */
static inline bool ustack_arch_entering_handler(const struct pt_regs *live)
{
	unsigned long sig = live->regs[0];

	return sig >= 1 && sig <= _NSIG &&
	       live->pc == (unsigned long)READ_ONCE(current->sighand->action[sig - 1].sa.sa_handler);
}

/*
 * Did the kernel restart the system call of @req?  The PC is back on the
 * 4-byte svc, the stack untouched.
 */
static inline bool ustack_arch_syscall_restarted(const struct pt_regs *req,
						 const struct pt_regs *live)
{
	return live->sp == req->sp && live->pc == req->pc - 4;
}

/* DWARF registers 0..32 (SFRAME_NR_REGS) of the user frame in @regs. */
static inline void ustack_arch_regs_dwarf(struct pt_regs *regs, u64 *gpr)
{
	int i;

	for (i = 0; i < 31; i++)
		gpr[i] = regs->regs[i];
	gpr[SFRAME_REG_XSP] = user_stack_pointer(regs);
	gpr[USTACK_ARCH_REG_RA] = instruction_pointer(regs);
}

/*
 * Is the task inside a system call whose result is not final yet?  The
 * entry code leaves the first argument in x0 (orig_x0 keeps a copy) and
 * the call's result replaces it only on return (task_work running inside
 * io_uring_enter()); a restart code is still to be turned into a restart
 * or an error by signal delivery.  A result equal to the first argument
 * reads as unfinished: the signal waits for the next return, no worse.
 */
static inline bool ustack_arch_syscall_unfinished(const struct pt_regs *regs)
{
	long x0 = (long)regs->regs[0];

	return regs->syscallno != NO_SYSCALL &&
	       (regs->regs[0] == regs->orig_x0 ||
		(x0 >= -ERESTART_RESTARTBLOCK && x0 <= -ERESTARTSYS));
}

/*
 * Is @req's system call rt_sigreturn?  Its return loads every register
 * from the signal frame, so the registers at the walk are not the
 * request's; the walk starts from the request's, in the trampoline.
 */
static inline bool ustack_arch_in_sigreturn(const struct pt_regs *req)
{
	return req->syscallno == __NR_rt_sigreturn;
}

/*
 * Do user-mode @regs return from a system call that made a thread or a
 * process (clone, clone3)?  1 in the child, where x0 is 0 (copy_thread());
 * -1 in the parent; 0 otherwise.  Entries other than svc store
 * NO_SYSCALL, so the number is the call's; during the call x0 still holds
 * the flags or the clone_args pointer, never 0.
 */
static inline int ustack_arch_clone_return(const struct pt_regs *regs)
{
	if (regs->syscallno != USTACK_ARCH_NR_CLONE &&
	    regs->syscallno != USTACK_ARCH_NR_CLONE3)
		return 0;
	return regs->regs[0] ? -1 : 1;
}

#endif /* __KERNEL__ */

#endif /* USTACK_ARCH_ARM64_H */
