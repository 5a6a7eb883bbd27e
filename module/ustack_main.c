// SPDX-License-Identifier: GPL-2.0
/*
 * ustack: reliable user-space stack traces without frame pointers.
 *
 * The module's entry points and parameters.  Every layer is set up here,
 * bottom first, and torn down in the reverse order:
 *
 *   devices   /dev/ustack (ustack_dev.c), /dev/sframe (sframe_dev.c),
 *             debugfs (stats.c, nmi_test.c), the trace events' consumer
 *             (trace_consumer.c)
 *   sources   sampling, system calls, off-CPU, self, any tracepoint or
 *             kprobe (sources.c, source_*.c), and the user records and
 *             interpreter frames they are answered with (user_record.c,
 *             coop.c); the kernel's own deferred unwinder, whose walk
 *             ustack's can be (kernel_unwinder.c)
 *   engine    task_work and deliveries (deferred.c); the stay and its
 *             cookie (stay.c); per-task state (task_pool.c)
 *   walk      the user walk (user_walk.c), registry*.c, discovery.c,
 *             store*.c
 *   core      the SFrame core (core.mk, ustack_sframe.h); the record ring
 *             (ring.c); the trace events the sources emit (trace_events.c)
 *
 * docs/DESIGN.md tells the layers, a sample's life and the context rules.
 *
 * Each layer calls only the layers below it; a client of a lower layer
 * registers with it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include "coop.h"
#include "deferred.h"
#include "kernel_unwinder.h"
#include "ustack_limits.h"
#include "nmi_test.h"
#include "registry.h"
#include "ring.h"
#include "sframe_dev.h"
#include "sources.h"
#include "stage_times.h"
#include "stats.h"
#include "store.h"
#include "ustack_dev.h"
#include "trace_consumer.h"
#include "user_record.h"
#include "user_walk.h"

static int set_sample_hz(const char *val, const struct kernel_param *kp)
{
	unsigned int hz;
	int ret = kstrtouint(val, 0, &hz);

	if (ret)
		return ret;
	if (hz > 100000)
		return -ERANGE;
	return ustack_sources_set_hz(hz);
}

static const struct kernel_param_ops sample_hz_ops = {
	.set = set_sample_hz,
	.get = param_get_uint,
};

module_param_cb(sample_hz, &sample_hz_ops, &ustack_sources_hz, 0644);
MODULE_PARM_DESC(sample_hz, "Sampling frequency per CPU in Hz (0 = off)");

module_param_named(pid, ustack_sources_pid, int, 0644);
MODULE_PARM_DESC(pid, "Trace only this process (0 = all user tasks)");

static char syscalls_list[256];

static int set_syscalls(const char *val, const struct kernel_param *kp)
{
	int ret;

	if (strlen(val) >= sizeof(syscalls_list))
		return -ENOSPC;
	ret = ustack_sources_set_syscalls(val);
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

static int set_any(const char *val, const struct kernel_param *kp)
{
	if (strlen(val) >= USTACK_SOURCES_LIST_LEN)
		return -EINVAL;
	return ustack_sources_set_any((unsigned long)kp->arg, val);
}

static int get_any(char *buf, const struct kernel_param *kp)
{
	return ustack_sources_get_any((unsigned long)kp->arg, buf);
}

static const struct kernel_param_ops any_ops = {
	.set = set_any,
	.get = get_any,
};

module_param_cb(tracepoints, &any_ops, (void *)USTACK_EVENT_TP, 0644);
MODULE_PARM_DESC(tracepoints, "Comma-separated tracepoints system:name to trace (empty = none)");
module_param_cb(kprobes, &any_ops, (void *)USTACK_EVENT_KPROBE, 0644);
MODULE_PARM_DESC(kprobes, "Comma-separated kernel functions to trace with kprobes (empty = none)");

module_param_named(offcpu, ustack_sources_offcpu, bool, 0644);
MODULE_PARM_DESC(offcpu, "Record off-CPU stacks at sched_switch (0/1)");

module_param_named(guess, ustack_walk_guess, bool, 0644);
MODULE_PARM_DESC(guess, "Scan the stack for return addresses where no unwind rule is known (0/1)");

module_param_named(rule_cache, ustack_walk_rule_cache, bool, 0644);
MODULE_PARM_DESC(rule_cache, "Keep unwind rules in the per-CPU rule cache (0/1; 0 for measurements)");

module_param_named(stage_times, ustack_stage_times, bool, 0644);
MODULE_PARM_DESC(stage_times, "Time the stages of each sample in the stats (0/1; for measurements)");

module_param_named(max_frames, ustack_deferred_max_frames, uint, 0444);
MODULE_PARM_DESC(max_frames, "Frames per user stack (16..1024, at load)");

module_param_named(max_tasks, ustack_deferred_max_tasks, uint, 0444);
MODULE_PARM_DESC(max_tasks, "Live tasks with ustack state at once (at load)");

module_param_named(buffer_kb, ustack_dev_buffer_kb, uint, 0644);
MODULE_PARM_DESC(buffer_kb, "Record buffer size in KiB (applies at the next first open)");

module_param_named(coop_timeout_ms, ustack_coop_timeout_ms, uint, 0644);
MODULE_PARM_DESC(coop_timeout_ms, "A cooperative unwinding request expires after this many ms (100)");

static int set_kernel_unwinder(const char *val, const struct kernel_param *kp)
{
	unsigned int on;
	int ret = kstrtouint(val, 10, &on);

	if (ret || on > 1)
		return -EINVAL;
	return ustack_kernel_unwinder_set(on);
}

static int get_kernel_unwinder(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", ustack_kernel_unwinder_get());
}

static const struct kernel_param_ops kernel_unwinder_ops = {
	.set = set_kernel_unwinder,
	.get = get_kernel_unwinder,
};

module_param_cb(kernel_unwinder, &kernel_unwinder_ops, NULL, 0644);
MODULE_PARM_DESC(kernel_unwinder, "Walk user stacks for the kernel's own deferred unwinder, so perf's deferred callchains get ustack's (0/1)");

static int __init ustack_init(void)
{
	struct dentry *dir;
	int ret;

	ustack_ring_init();
	ret = ustack_discovery_init();
	if (ret)
		goto err_ring;
	ret = ustack_registry_init();
	if (ret)
		goto err_discovery;
	ret = ustack_walk_init();
	if (ret)
		goto err_registry;
	ret = ustack_deferred_init();
	if (ret)
		goto err_walk;
	ustack_user_record_init();
	ustack_coop_init();
	ret = ustack_sources_init();
	if (ret)
		goto err_user_record;
	ret = ustack_sframe_dev_init();
	if (ret)
		goto err_sources;
	ret = ustack_dev_init();
	if (ret)
		goto err_sframe_dev;
	ret = ustack_kernel_unwinder_init();
	if (ret)
		goto err_dev;
	dir = ustack_stats_init();
	ustack_nmi_test_init(dir);
	ustack_ku_test_init(dir);
	ustack_trace_consumer_init();
	pr_info("version %s loaded\n", USTACK_VERSION);
	return 0;

err_dev:
	ustack_dev_exit();
err_sframe_dev:
	ustack_sframe_dev_exit();
err_sources:
	ustack_sources_exit();
err_user_record:
	ustack_coop_exit();
	ustack_user_record_exit();
	ustack_deferred_exit();
err_walk:
	ustack_walk_exit();
err_registry:
	ustack_registry_exit();
err_discovery:
	ustack_discovery_exit();
err_ring:
	ustack_ring_exit();
	/* Parameters set at load may hold kprobes. */
	ustack_sources_exit();
	return ret;
}

static void __exit ustack_exit(void)
{
	/*
	 * Unloading has begun: try_module_get() fails from here on, so no
	 * request queues a task_work any more, and none was pending (each
	 * holds a reference).  First every source of requests stops: the
	 * redirect of the kernel's unwinder, the trace events' consumers
	 * (tracefs enables them without pinning the module), the sources
	 * and coop's stay ends.
	 */
	ustack_kernel_unwinder_exit();
	ustack_trace_consumer_exit();
	ustack_sources_exit();
	ustack_coop_exit();
	/*
	 * Our last task_works have put their module references, the last
	 * walks for the kernel's unwinder have ended: let them return out of
	 * our text before it goes.
	 */
	ustack_sync_tasks();
	ustack_stats_exit();
	ustack_nmi_test_exit();
	ustack_ku_test_exit();
	ustack_dev_exit();
	ustack_sframe_dev_exit();
	ustack_user_record_exit();
	ustack_deferred_exit();
	ustack_walk_exit();
	ustack_store_exit();
	ustack_registry_exit();
	ustack_discovery_exit();
	ustack_ring_exit();
	pr_info("unloaded\n");
}

module_init(ustack_init);
module_exit(ustack_exit);

MODULE_LICENSE("GPL");
MODULE_VERSION(USTACK_VERSION);
MODULE_DESCRIPTION("Deferred user-space stack traces with SFrame, without frame pointers");
MODULE_AUTHOR("The ustack developers");
