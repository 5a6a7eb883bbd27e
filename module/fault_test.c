// SPDX-License-Identifier: GPL-2.0
/*
 * Test hook: the parameter fail_sources=N makes the next N creations of
 * a source's kernel object (a sampling counter, the sys_enter probe) fail
 * as if memory had run out, so that tests can check that a parameter
 * write whose start fails leaves the old state running.  Built only for
 * the test suite (USTACK_TEST_HOOKS=y).
 */
#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>
#include "fault_test.h"

static atomic_t fail_sources = ATOMIC_INIT(0);

static int set_fail_sources(const char *val, const struct kernel_param *kp)
{
	int n, ret = kstrtoint(val, 0, &n);

	if (ret)
		return ret;
	atomic_set(&fail_sources, n);
	return 0;
}

static int get_fail_sources(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&fail_sources));
}

static const struct kernel_param_ops fail_sources_ops = {
	.set = set_fail_sources,
	.get = get_fail_sources,
};

module_param_cb(fail_sources, &fail_sources_ops, NULL, 0600);
MODULE_PARM_DESC(fail_sources, "Test hook: the next N source creations fail with -ENOMEM");

/**
 * ustack_fault_test - whether this creation is to fail
 *
 * Any context but NMI.
 *
 * Return: true while fail_sources counts down from a positive value.
 */
bool ustack_fault_test(void)
{
	return atomic_dec_if_positive(&fail_sources) >= 0;
}
