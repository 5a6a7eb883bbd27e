/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels ustack supports (Debian 12's 6.1 and
 * 6.12, generic and PREEMPT_RT) lives here, behind one name each.
 */
#ifndef USTACK_COMPAT_H
#define USTACK_COMPAT_H

#include <linux/version.h>
#include <linux/fs.h>

/* 6.12 removed no_llseek: a NULL .llseek now means "not seekable". */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define ustack_no_llseek NULL
#else
#define ustack_no_llseek no_llseek
#endif

#endif /* USTACK_COMPAT_H */
