// SPDX-License-Identifier: GPL-2.0
/*
 * ustack: reliable user-space stack traces without frame pointers.
 * Module entry points and run-time parameters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include "ustack.h"

unsigned int ustack_sample_hz = 99;
module_param_named(sample_hz, ustack_sample_hz, uint, 0644);
MODULE_PARM_DESC(sample_hz, "Sampling frequency per CPU in Hz (0 = off)");

int ustack_pid;
module_param_named(pid, ustack_pid, int, 0644);
MODULE_PARM_DESC(pid, "Trace only this process (0 = all user tasks)");

static char ustack_syscalls[256];
module_param_string(syscalls, ustack_syscalls, sizeof(ustack_syscalls), 0644);
MODULE_PARM_DESC(syscalls, "Comma-separated system calls to trace (empty = none)");

bool ustack_offcpu;
module_param_named(offcpu, ustack_offcpu, bool, 0644);
MODULE_PARM_DESC(offcpu, "Record off-CPU stacks at sched_switch (0/1)");

static int __init ustack_init(void)
{
	int ret;

	ret = sframe_dev_init();
	if (ret)
		return ret;
	ret = ustack_dev_init();
	if (ret) {
		sframe_dev_exit();
		return ret;
	}
	pr_info("version %s loaded\n", USTACK_VERSION);
	return 0;
}

static void __exit ustack_exit(void)
{
	ustack_dev_exit();
	sframe_dev_exit();
	pr_info("unloaded\n");
}

module_init(ustack_init);
module_exit(ustack_exit);

MODULE_LICENSE("GPL");
MODULE_VERSION(USTACK_VERSION);
MODULE_DESCRIPTION("Deferred user-space stack traces with SFrame, without frame pointers");
MODULE_AUTHOR("The ustack developers");
