// SPDX-License-Identifier: GPL-2.0
/*
 * ustack: reliable user-space stack traces without frame pointers.
 * Module entry points and parameters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include "internal.h"
#include "deferred.h"
#include "registry.h"
#include "walk.h"

static int set_sample_hz(const char *val, const struct kernel_param *kp)
{
	unsigned int hz;
	int ret = kstrtouint(val, 0, &hz);

	if (ret)
		return ret;
	if (hz > 100000)
		return -ERANGE;
	WRITE_ONCE(ustack_sample_hz, hz);
	ustack_sources_resample();
	return 0;
}

static const struct kernel_param_ops sample_hz_ops = {
	.set = set_sample_hz,
	.get = param_get_uint,
};

unsigned int ustack_sample_hz = 99;
module_param_cb(sample_hz, &sample_hz_ops, &ustack_sample_hz, 0644);
MODULE_PARM_DESC(sample_hz, "Sampling frequency per CPU in Hz (0 = off)");

int ustack_pid;
module_param_named(pid, ustack_pid, int, 0644);
MODULE_PARM_DESC(pid, "Trace only this process (0 = all user tasks)");

static char syscalls_list[256];

static int set_syscalls(const char *val, const struct kernel_param *kp)
{
	int ret;

	if (strlen(val) >= sizeof(syscalls_list))
		return -ENOSPC;
	ret = ustack_syscalls_set(val);
	if (ret)
		return ret;
	strscpy(syscalls_list, val, sizeof(syscalls_list));
	strim(syscalls_list);
	return 0;
}

static int get_syscalls(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", syscalls_list);
}

static const struct kernel_param_ops syscalls_ops = {
	.set = set_syscalls,
	.get = get_syscalls,
};

module_param_cb(syscalls, &syscalls_ops, NULL, 0644);
MODULE_PARM_DESC(syscalls, "Comma-separated system calls to trace (empty = none)");

bool ustack_offcpu;
module_param_named(offcpu, ustack_offcpu, bool, 0644);
MODULE_PARM_DESC(offcpu, "Record off-CPU stacks at sched_switch (0/1)");

unsigned int ustack_max_frames = 256;
module_param_named(max_frames, ustack_max_frames, uint, 0444);
MODULE_PARM_DESC(max_frames, "Frames per user stack (16..1024, at load)");

unsigned int ustack_max_tasks = 2048;
module_param_named(max_tasks, ustack_max_tasks, uint, 0444);
MODULE_PARM_DESC(max_tasks, "Live tasks with ustack state at once (at load)");

unsigned int ustack_buffer_kb = 4096;
module_param_named(buffer_kb, ustack_buffer_kb, uint, 0644);
MODULE_PARM_DESC(buffer_kb, "Record buffer size in KiB (applies at the next first open)");

static int __init ustack_init(void)
{
	int ret;

	ret = ustack_deferred_init();
	if (ret)
		return ret;
	ustack_sources_init();
	ustack_stream_user_init();
	ret = ustack_discovery_init();
	if (ret)
		goto err_discovery;
	ret = ustack_walk_init();
	if (ret)
		goto err_walk;
	ret = ustack_registry_init();
	if (ret)
		goto err_registry;
	ret = ustack_sframe_dev_init();
	if (ret)
		goto err_sframe;
	ret = ustack_dev_init();
	if (ret)
		goto err_ustack;
	ustack_stats_init();
	pr_info("version %s loaded\n", USTACK_VERSION);
	return 0;

err_ustack:
	ustack_sframe_dev_exit();
err_sframe:
	ustack_registry_exit();
err_registry:
	ustack_walk_exit();
err_walk:
	ustack_discovery_exit();
err_discovery:
	ustack_stream_user_exit();
	ustack_deferred_exit();
	return ret;
}

static void __exit ustack_exit(void)
{
	ustack_stats_exit();
	ustack_dev_exit();
	ustack_sframe_dev_exit();
	ustack_registry_exit();
	ustack_walk_exit();
	ustack_discovery_exit();
	ustack_stream_user_exit();
	ustack_deferred_exit();
	pr_info("unloaded\n");
}

module_init(ustack_init);
module_exit(ustack_exit);

MODULE_LICENSE("GPL");
MODULE_VERSION(USTACK_VERSION);
MODULE_DESCRIPTION("Deferred user-space stack traces with SFrame, without frame pointers");
MODULE_AUTHOR("The ustack developers");
