/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's deferred unwinder, fed by ustack's walk (kernel_unwinder.c). */
#ifndef USTACK_KERNEL_UNWINDER_H
#define USTACK_KERNEL_UNWINDER_H

#include <linux/types.h>

struct seq_file;

int ustack_kernel_unwinder_set(bool on);
bool ustack_kernel_unwinder_get(void);
int ustack_kernel_unwinder_init(void);
void ustack_kernel_unwinder_exit(void);
void ustack_kernel_unwinder_show(struct seq_file *m);
int ustack_kernel_unwinder_ip(unsigned long *ip);	/* with the redirect */

/* The ku_squat hook (ku_test.c), built only for the test suite. */
struct dentry;
#ifdef USTACK_TEST_HOOKS
void ustack_ku_test_init(struct dentry *dir);
void ustack_ku_test_exit(void);
#else
static inline void ustack_ku_test_init(struct dentry *dir) { }
static inline void ustack_ku_test_exit(void) { }
#endif

#endif /* USTACK_KERNEL_UNWINDER_H */
