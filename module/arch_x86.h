/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything x86-64 about ustack, as compat.h holds everything that
 * differs between kernel versions: the rest of the module reads as if
 * there were one CPU.  A port adds arch_<arch>.h with the same names.
 *
 * Included through arch.h only.  The SFrame core (also built into the
 * user-space tools) uses the first part, with arch_x86_unwind.c; the
 * parts that need kernel headers are under __KERNEL__.
 */
#ifndef USTACK_ARCH_X86_H
#define USTACK_ARCH_X86_H

/*
 * The ELF objects ustack unwinds (ustack_elf.h, the tools' ELF checks),
 * in <elf.h>'s or <linux/elf.h>'s names, and the CPU's name in reasons.
 */
#define USTACK_ARCH_ELF_MACHINE	EM_X86_64
#define USTACK_ARCH_ELF_DATA	ELFDATA2LSB
#define USTACK_ARCH_NAME	"x86-64"
#define USTACK_ARCH_BFD_NAME	"elf64-x86-64"	/* objdump's "file format" */

/* ---- the SFrame core: registers, frames, calls (arch_x86_unwind.c) ----- */

/* DWARF register numbers (the x86-64 psABI): rbp, rsp, the RA column. */
#define SFRAME_REG_RBP			6
#define SFRAME_REG_RSP			7
#define USTACK_ARCH_REG_FP		SFRAME_REG_RBP
#define USTACK_ARCH_REG_SP		SFRAME_REG_RSP
#define USTACK_ARCH_REG_RA		16
#define USTACK_ARCH_NR_REGS		17

/*
 * SFrame's ABI for x86-64, whose header fixes the return address at
 * CFA - 8 (where the call pushed it) and tracks the FP per FRE.
 */
#define USTACK_ARCH_SFRAME_ABI		SFRAME_ABI_AMD64_ENDIAN_LITTLE
#define USTACK_ARCH_SFRAME_FIXED_FP	0
#define USTACK_ARCH_SFRAME_FIXED_RA	(-8)	/* 0: tracked per FRE */
/* The RA slot of the rules the rule cache holds (sframe_cache.c). */
#define USTACK_ARCH_RA_OFF		(-8)

/*
 * A return address as the stack holds it, made a code address: x86-64
 * return addresses carry no signature.
 */
static inline u64 ustack_arch_strip_ra(u64 ra)
{
	return ra;
}

/*
 * At a function's first instruction (a PLT stub's): CFA = SP + 8, the
 * return address where the call pushed it (a struct sframe_loc).
 */
#define USTACK_ARCH_ENTRY_CFA		8
#define USTACK_ARCH_ENTRY_RA	{ .kind = SFRAME_LOC_CFA_DEREF, .off = -8 }
/* The PLT entries a v1 PCMASK FDE covers. */
#define USTACK_ARCH_PLT_ENTRY_SIZE	16

/* The frame-pointer rule: CFA = FP + 16, RA at FP + 8, the caller's FP at FP. */
#define USTACK_ARCH_FP_CFA_OFF		16
#define USTACK_ARCH_FP_RA_OFF		8

/* The longest call instruction (FF /2 with SIB and disp32). */
#define USTACK_ARCH_CALL_MAX_LEN	7
/* The bytes of a call's target ustack_arch_plt_stub() looks at. */
#define USTACK_ARCH_PLT_PEEK_LEN	8

/* ---- the user walk: signal frames and registers ---------------------- */

/*
 * glibc's __restore_rt, the return address of every signal handler:
 *   mov $0xf,%rax; syscall  (rt_sigreturn)
 * It is 16-byte aligned, so the walk looks at the code of aligned return
 * addresses first and at others only where no SFrame rule covers them.
 */
#define USTACK_ARCH_SIGRETURN_LEN	9
#define USTACK_ARCH_SIGRETURN_BYTES	{			\
	0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00,		\
	0x0f, 0x05,						\
}
#define USTACK_ARCH_SIGRETURN_ALIGN	16

/*
 * rt_sigframe: when the handler has returned to __restore_rt, SP points
 * at the frame's struct ucontext; its uc_mcontext (struct sigcontext_64)
 * starts with the 17 words r8 .. r15, rdi, rsi, rbp, rbx, rdx, rax, rcx,
 * rsp, rip.
 */
#define USTACK_ARCH_UC_MCONTEXT		40	/* offsetof(ucontext, uc_mcontext) */
#define USTACK_ARCH_SC_WORDS		17

/* The sigcontext_64 word of each DWARF register 0..16 (rip last). */
#define USTACK_ARCH_SC_DWARF_MAP		{				\
	13, 12, 14, 11, 9, 8, 10, 15,	/* rax rdx rcx rbx rsi rdi rbp rsp */ \
	0, 1, 2, 3, 4, 5, 6, 7,		/* r8 .. r15 */			\
	16,				/* rip */			\
}

/*
 * glibc's clone and clone3 end their CFI before the system call (parent
 * and child unwind differently from there), right after loading its
 * number:  mov $56 or $435,%eax; syscall  (b8 imm32 0f 05).  The result
 * is in rax (DWARF 0): 0 in the child.
 */
#define USTACK_ARCH_CLONE_CODE_LEN	7
#define USTACK_ARCH_NR_CLONE		56
#define USTACK_ARCH_NR_CLONE3		435
#define USTACK_ARCH_REG_RET		0

/* ---- the kernel side ---------------------------------------------------- */

#ifdef __KERNEL__

#include <linux/elf.h>
#include <linux/mm_types.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/errno.h>
#include <asm/apic.h>
#include <asm/irq_vectors.h>
#include <asm/cpu_entry_area.h>
#include <asm/vdso.h>

#ifndef CONFIG_X86_64
#error "ustack supports x86-64 only"
#endif

/*
 * Does the task of user-mode @regs run the native 64-bit ABI (not a
 * 32-bit or x32 task)?  SFrame and cooperative unwinding serve only it.
 */
static inline bool ustack_arch_user_native(struct pt_regs *regs)
{
	return user_64bit_mode(regs);
}

/*
 * Has a user thread's @regs been set by a return to user space?
 * copy_thread() gives io_uring and other user workers user-mode registers
 * with IP and SP 0, which no task returning to user space has.
 */
static inline bool ustack_arch_user_regs_set(const struct pt_regs *regs)
{
	return regs->ip || regs->sp;
}

/* Is @vma the vDSO of its mm? */
static inline bool ustack_arch_is_vdso(const struct vm_area_struct *vma)
{
	return vma->vm_mm &&
	       vma->vm_start == (unsigned long)vma->vm_mm->context.vdso;
}

/*
 * The vDSO image @mm maps at its vDSO (ustack_arch_is_vdso()): its ELF
 * bytes in kernel memory, one image for every process of an ABI, so the
 * address tells the 64-bit image from the 32-bit and x32 ones.  NULL if
 * @mm has none.  *@size, if @size: the image's length.  Called with @mm's
 * mmap lock held (arm64's looks at the mapping).
 */
static inline const void *ustack_arch_vdso_image(struct mm_struct *mm,
						 size_t *size)
{
	const struct vdso_image *img = mm->context.vdso_image;

	if (!img || !mm->context.vdso)
		return NULL;
	if (size)
		*size = img->size;
	return img->data;
}

/*
 * In NMI, task_pt_regs() may be half written: the NMI can land in the
 * entry code before the user registers are all saved, or in the exit
 * code after they were popped.  The stack it interrupted tells: the user
 * stack, the cpu_entry_area (entry trampoline, exception stacks), or the
 * task stack above the saved registers mean not now.  Kernel code on the
 * task stack below them, or on the IRQ stack (entered with them saved),
 * is fine.
 */
static inline bool ustack_arch_nmi_regs_ok(struct task_struct *t,
					   struct pt_regs *regs)
{
	unsigned long sp, top = (unsigned long)task_stack_page(t) + THREAD_SIZE;

	if (!regs)
		return false;
	if (user_mode(regs))
		return true;
	sp = kernel_stack_pointer(regs);
	if (sp < TASK_SIZE_MAX || sp - CPU_ENTRY_AREA_BASE < P4D_SIZE)
		return false;
	return sp < (unsigned long)task_pt_regs(t) || sp >= top;
}

/*
 * Do @live's registers enter a signal handler?  The kernel set up a
 * signal frame after the request then: the handler's first argument, the
 * signal number, is in DI.
 */
static inline bool ustack_arch_entering_handler(const struct pt_regs *live)
{
	unsigned long sig = live->di;

	return sig >= 1 && sig <= _NSIG &&
	       live->ip == (unsigned long)READ_ONCE(current->sighand->action[sig - 1].sa.sa_handler);
}

/*
 * Did the kernel restart the system call of @req?  The IP is back on the
 * 2-byte syscall instruction, the stack untouched.
 */
static inline bool ustack_arch_syscall_restarted(const struct pt_regs *req,
						 const struct pt_regs *live)
{
	return live->sp == req->sp && live->ip == req->ip - 2;
}

/* DWARF registers 0..16 (SFRAME_NR_REGS) of the user frame in @regs. */
static inline void ustack_arch_regs_dwarf(struct pt_regs *regs, u64 *gpr)
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

/*
 * Is the task inside a system call whose result is not final yet?  The
 * entry code stores "no such system call" (errno 38) in ax and the call's result replaces it only
 * on return (task_work running inside io_uring_enter()); a restart code
 * is still to be turned into a restart or an error by signal delivery.
 */
static inline bool ustack_arch_syscall_unfinished(const struct pt_regs *regs)
{
	long ax = (long)regs->ax;

	return (long)regs->orig_ax >= 0 &&
	       (ax == -38 ||
		(ax >= -ERESTART_RESTARTBLOCK && ax <= -ERESTARTSYS));
}

/*
 * Is @req's system call rt_sigreturn?  Its return loads every register
 * from the signal frame, so the registers at the walk are not the
 * request's; the walk starts from the request's, in the trampoline, where
 * the sample found the task.
 */
static inline bool ustack_arch_in_sigreturn(const struct pt_regs *req)
{
	return req->orig_ax == __NR_rt_sigreturn;
}

/*
 * Do user-mode @regs return from a system call that made a thread or a
 * process (clone, clone3)?  1 in the child, where it returns 0; -1 in the
 * parent; 0 otherwise.  Interrupts and NMIs from user mode store -1 as
 * orig_ax, so the number is the call's.  The registers of a request during
 * the call hold -ENOSYS in ax: the result only comes on the way out.
 */
static inline int ustack_arch_clone_return(const struct pt_regs *regs)
{
	if (regs->orig_ax != USTACK_ARCH_NR_CLONE &&
	    regs->orig_ax != USTACK_ARCH_NR_CLONE3)
		return 0;
	return regs->ax ? -1 : 1;
}

/* Send an NMI to @cpu (the nmi_test hook). */
static inline void ustack_arch_send_nmi(unsigned int cpu)
{
	apic->send_IPI(cpu, NMI_VECTOR);
}

#endif /* __KERNEL__ */

#endif /* USTACK_ARCH_X86_H */
