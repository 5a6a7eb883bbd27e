/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The nmi_test hook (nmi_test.c), built only for the test suite
 * (USTACK_TEST_HOOKS=y, Kbuild): the module users install has none.
 */
#ifndef USTACK_NMI_TEST_H
#define USTACK_NMI_TEST_H

struct dentry;

#ifdef USTACK_TEST_HOOKS
void ustack_nmi_test_init(struct dentry *dir);
void ustack_nmi_test_exit(void);
#else
static inline void ustack_nmi_test_init(struct dentry *dir) { }
static inline void ustack_nmi_test_exit(void) { }
#endif

#endif /* USTACK_NMI_TEST_H */
