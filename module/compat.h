/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels ustack supports (Debian 12's 6.1 and
 * 6.12, generic and PREEMPT_RT; trixie's 6.12; sid's 7.2) lives here,
 * behind one name each.
 *
 * A feature is decided by what the target's headers provide (the
 * USTACK_HAVE_* answers of probes.c, compiled by Kbuild into
 * ustack_probes.h), not by LINUX_VERSION_CODE: distribution kernels
 * backport features without changing their version (Debian's 6.1.0-56 has
 * DEFINE_FREE(fput), its 6.1.0-50 does not).
 */
#ifndef USTACK_COMPAT_H
#define USTACK_COMPAT_H

#include "ustack_probes.h"

#include <linux/version.h>
#include <linux/cleanup.h>
#include <linux/file.h>
#include <linux/fs.h>

/*
 * The stay ends at a user-return notifier, or at the return of the exit
 * work (stay_return.h), which takes a kretprobe.
 */
#if !defined(CONFIG_USER_RETURN_NOTIFIER) && !defined(CONFIG_KRETPROBES)
#error "ustack needs CONFIG_USER_RETURN_NOTIFIER or CONFIG_KRETPROBES (the end of a kernel stay)"
#endif

/*
 * That exit work: the generic entry code's loop where the architecture
 * uses it (sid's 7.2 on arm64), else the architecture's own (arch.h).
 */
#ifdef CONFIG_GENERIC_IRQ_ENTRY
#define USTACK_EXIT_WORK	"exit_to_user_mode_loop"
#else
#define USTACK_EXIT_WORK	USTACK_ARCH_EXIT_WORK
#endif

/* 6.12 removed no_llseek: a NULL .llseek now means "not seekable". */
#ifdef USTACK_HAVE_NO_LLSEEK
#define ustack_no_llseek no_llseek
#else
#define ustack_no_llseek NULL
#endif

/* __free(fput): 6.5, backported to 6.1 stable only in later releases. */
#ifndef USTACK_HAVE_FREE_FPUT
DEFINE_FREE(fput, struct file *, if (!IS_ERR_OR_NULL(_T)) fput(_T))
#endif

/* 6.2 named it timer_delete_sync(); the old name is gone in 7.x. */
#ifndef USTACK_HAVE_TIMER_DELETE_SYNC
#include <linux/timer.h>
#define timer_delete_sync(t)	del_timer_sync(t)
#endif

#include <linux/sched.h>

/* Tasks that look like user tasks but never return to user space. */
#ifdef PF_USER_WORKER
#define USTACK_PF_WORKERS	(PF_IO_WORKER | PF_USER_WORKER)
#else
#define USTACK_PF_WORKERS	PF_IO_WORKER
#endif

/* 6.6 hid i_ctime behind an accessor. */
#ifdef USTACK_HAVE_INODE_GET_CTIME
#define ustack_inode_ctime(inode) inode_get_ctime(inode)
#else
#define ustack_inode_ctime(inode) ((inode)->i_ctime)
#endif

#include <linux/task_work.h>

/*
 * Queueing a task_work from NMI.  6.11 added TWA_NMI_CURRENT, which skips
 * KASAN's aux-stack record (not NMI-safe) and kicks an irq_work.  Before
 * it, task_work_add(TWA_NONE) is NMI-safe (a cmpxchg on the list) unless
 * KASAN is built in; there, NMI requests are refused.
 */
#ifdef USTACK_HAVE_TWA_NMI_CURRENT
#define USTACK_TWA_NMI		TWA_NMI_CURRENT
#define USTACK_NMI_REQUESTS	1
#elif !defined(CONFIG_KASAN)
#define USTACK_TWA_NMI		TWA_NONE
#define USTACK_NMI_REQUESTS	1
#else
#define USTACK_TWA_NMI		TWA_NONE
#define USTACK_NMI_REQUESTS	0
#endif

/*
 * registry.c follows unmappings with kprobes on functions internal to mm/,
 * whose arguments the headers mostly do not show; what each kernel passes
 * them was read from its sources:
 *   6.1 to 6.14  unmap_vmas(tlb, mt or mas, vma, start, end, ...) (its
 *                prototype, still in linux/mm.h there, is probed) and
 *                move_page_tables(vma, old_addr, new_vma, new_addr, len,
 *                ...): USTACK_REG_FOLLOW_UNMAP_VMAS;
 *   7.2          remove_vma(vma), for each VMA that munmap, MAP_FIXED over,
 *                mremap's old range, brk or exit takes away, once its
 *                pages are gone (mm/vma.c vms_complete_munmap_vmas(),
 *                mm/mmap.c tear_down_vmas()), and move_page_tables(pmc),
 *                for the pages mremap moves away, also from the range
 *                MREMAP_DONTUNMAP leaves mapped (mm/mremap.c
 *                copy_vma_and_data()), which remove_vma() never sees:
 *                USTACK_REG_FOLLOW_REMOVE_VMA.  struct
 *                ustack_pagetable_move_control is the opening of 7.2's
 *                struct pagetable_move_control (mm/internal.h).
 * In between, 6.15 to 7.1 have the same two functions by their sources
 * (remove_vma()'s first argument is the VMA throughout, pmc came with
 * 6.15's mremap rework) but no kernel of the matrix to prove it: there,
 * and after 7.2 until it is read, the registry's probes are off, and
 * registrations are refused with a log line.
 */
#define USTACK_REG_FOLLOW_UNMAP_VMAS	1
#define USTACK_REG_FOLLOW_REMOVE_VMA	2
#if defined(USTACK_HAVE_UNMAP_VMAS_ARGS) && \
	LINUX_VERSION_CODE < KERNEL_VERSION(6, 15, 0)
#define USTACK_REG_FOLLOW_UNMAP		USTACK_REG_FOLLOW_UNMAP_VMAS
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0) && \
	LINUX_VERSION_CODE < KERNEL_VERSION(7, 3, 0)
#define USTACK_REG_FOLLOW_UNMAP		USTACK_REG_FOLLOW_REMOVE_VMA
struct vm_area_struct;
struct ustack_pagetable_move_control {
	struct vm_area_struct *old;	/* the VMA the pages leave */
	struct vm_area_struct *new;
	unsigned long old_addr;		/* [old_addr, old_end) */
	unsigned long old_end;
};
#else
#define USTACK_REG_FOLLOW_UNMAP		0
#endif

/*
 * The kernel's own deferred user unwinder (6.17, CONFIG_UNWIND_USER):
 * kernel/unwind/deferred.c's unwind_user_faultable() walks with
 * unwind_user(trace, max_entries) (kernel/unwind/user.c), whose one
 * caller it is, in task context: the task_work at the return to user
 * space, or do_exit() before exit_mm().  kernel_unwinder.c redirects
 * unwind_user() with an IPMODIFY ftrace_ops, which needs the trampoline
 * that saves the registers.  The call crosses files: only LTO could inline
 * it (sid's 7.2 has one call to unwind_user() in its text, from
 * unwind_user_faultable(), and a traceable entry).  Where the redirect
 * cannot work, USTACK_KU_MISSING says why.
 */
#if !defined(USTACK_HAVE_UNWIND_USER)
#define USTACK_KU_MISSING	"no deferred user unwinder (CONFIG_UNWIND_USER, 6.17)"
#elif !defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS)
#define USTACK_KU_MISSING	"no register-saving ftrace (DYNAMIC_FTRACE_WITH_REGS)"
#elif defined(CONFIG_LTO_CLANG)
#define USTACK_KU_MISSING	"an LTO kernel may have inlined unwind_user()"
#else
#define USTACK_KERNEL_UNWINDER	1
#include <linux/unwind_user.h>
#endif

#include <linux/rcupdate.h>

/*
 * A task_work of ours ends with module_put(): the task may be preempted
 * after it, still in our text, while rmmod goes ahead.  Before that text
 * is freed, every such task must have left it.  Tasks RCU waits for
 * exactly that (every task switched out voluntarily or in user space);
 * without preemption in the kernel (no CONFIG_TASKS_RCU), an interrupted
 * epilogue is all that is left, and plain RCU waits for interrupts.
 */
#ifdef CONFIG_TASKS_RCU
#define ustack_sync_tasks()	synchronize_rcu_tasks()
#else
#define ustack_sync_tasks()	synchronize_rcu()
#endif

#endif /* USTACK_COMPAT_H */
