/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Injected failures (fault_test.c), built only for the test suite
 * (USTACK_TEST_HOOKS=y, Kbuild): the module users install has none.
 * The stock kernels the tests run on have no fault injection of their
 * own (no failslab), so the paths that undo a failed start are reached
 * through this hook.
 */
#ifndef USTACK_FAULT_TEST_H
#define USTACK_FAULT_TEST_H

#include <linux/types.h>

#ifdef USTACK_TEST_HOOKS
bool ustack_fault_test(void);
#else
static inline bool ustack_fault_test(void) { return false; }
#endif

#endif /* USTACK_FAULT_TEST_H */
