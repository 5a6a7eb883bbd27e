/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels ustack supports (Debian 12's 6.1 and
 * 6.12, generic and PREEMPT_RT) lives here, behind one name each.
 */
#ifndef USTACK_COMPAT_H
#define USTACK_COMPAT_H

#include <linux/version.h>
#include <linux/fs.h>

/* The stay ends at a user-return notifier: without it there is no ustack. */
#ifndef CONFIG_USER_RETURN_NOTIFIER
#error "ustack needs CONFIG_USER_RETURN_NOTIFIER (the end of a kernel stay)"
#endif

/* 6.12 removed no_llseek: a NULL .llseek now means "not seekable". */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define ustack_no_llseek NULL
#else
#define ustack_no_llseek no_llseek
#endif

#include <linux/sched.h>

/* Tasks that look like user tasks but never return to user space. */
#ifdef PF_USER_WORKER
#define USTACK_PF_WORKERS	(PF_IO_WORKER | PF_USER_WORKER)
#else
#define USTACK_PF_WORKERS	PF_IO_WORKER
#endif

/* 6.6 hid i_ctime behind an accessor. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
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
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
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
 * registry.c follows unmappings with kprobes on unmap_vmas(tlb, mt or mas,
 * vma, start, end, ...) and move_page_tables(vma, old_addr, new_vma,
 * new_addr, len, ...), argument positions as on 6.1 to 6.14.  6.15 passes
 * move_page_tables() a struct private to mm/: registration is off there
 * until that is read.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 15, 0)
#define USTACK_REG_FOLLOW_UNMAP	1
#else
#define USTACK_REG_FOLLOW_UNMAP	0
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
