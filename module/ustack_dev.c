// SPDX-License-Identifier: GPL-2.0
/* /dev/ustack: the stream of sample and user-stack records (root only). */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include "ustack.h"

static int ustack_open(struct inode *inode, struct file *file)
{
	if (!perfmon_capable())
		return -EPERM;
	return nonseekable_open(inode, file);
}

static ssize_t ustack_read(struct file *file, char __user *buf, size_t len,
			   loff_t *ppos)
{
	return 0;
}

static const struct file_operations ustack_fops = {
	.owner = THIS_MODULE,
	.open = ustack_open,
	.read = ustack_read,
	.llseek = ustack_no_llseek,
};

static struct miscdevice ustack_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "ustack",
	.fops = &ustack_fops,
	.mode = 0600,
};

int ustack_dev_init(void)
{
	return misc_register(&ustack_misc);
}

void ustack_dev_exit(void)
{
	misc_deregister(&ustack_misc);
}
