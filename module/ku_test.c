// SPDX-License-Identifier: GPL-2.0
/*
 * Test hook: someone else's redirect of the kernel's user walk, so that
 * kernel_unwinder's refusal of a function redirected already (EBUSY of
 * an IPMODIFY ftrace_ops, as a livepatch of it would cause) runs for
 * real.  Writing 1 to /sys/kernel/debug/ustack/ku_squat registers an
 * IPMODIFY ftrace_ops on unwind_user() that changes nothing; 0
 * unregisters it.  Root only; nothing is registered until the first write.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cleanup.h>
#include <linux/debugfs.h>
#include <linux/ftrace.h>
#include <linux/kstrtox.h>
#include <linux/mutex.h>
#include "compat.h"
#include "kernel_unwinder.h"

#ifdef USTACK_KERNEL_UNWINDER

static DEFINE_MUTEX(squat_lock);
static bool squatting;

static void notrace squat_ftrace(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *op,
				 struct ftrace_regs *fregs)
{
}

static struct ftrace_ops squat_ops = {
	.func = squat_ftrace,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

static int squat_set(bool on)
{
	unsigned long ip;
	int err;

	lockdep_assert_held(&squat_lock);
	if (on == squatting)
		return 0;
	if (!on) {
		unregister_ftrace_function(&squat_ops);
		ftrace_free_filter(&squat_ops);
		squatting = false;
		return 0;
	}
	err = ustack_kernel_unwinder_ip(&ip);
	if (!err)
		err = ftrace_set_filter_ip(&squat_ops, ip, 0, 1);
	if (!err) {
		err = register_ftrace_function(&squat_ops);
		if (err)
			ftrace_free_filter(&squat_ops);
	}
	squatting = !err;
	return err;
}

static ssize_t squat_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	bool on;
	int ret = kstrtobool_from_user(ubuf, len, &on);

	if (ret)
		return ret;
	guard(mutex)(&squat_lock);
	ret = squat_set(on);
	return ret ? ret : len;
}

static const struct file_operations squat_fops = {
	.owner = THIS_MODULE,
	.write = squat_write,
	.llseek = ustack_no_llseek,
};

void ustack_ku_test_init(struct dentry *dir)
{
	debugfs_create_file("ku_squat", 0200, dir, NULL, &squat_fops);
}

/* After the debugfs file is gone: no write is running. */
void ustack_ku_test_exit(void)
{
	guard(mutex)(&squat_lock);
	squat_set(false);
}

#else

void ustack_ku_test_init(struct dentry *dir)
{
}

void ustack_ku_test_exit(void)
{
}

#endif
