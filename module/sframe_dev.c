// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/sframe: open to every user; a process registers and unregisters its
 * own SFrame sections and asks for its own stack here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <uapi/ustack.h>
#include "ustack.h"

static long sframe_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	return -ENOTTY;
}

static const struct file_operations sframe_fops = {
	.owner = THIS_MODULE,
	.open = nonseekable_open,
	.unlocked_ioctl = sframe_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = ustack_no_llseek,
};

static struct miscdevice sframe_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "sframe",
	.fops = &sframe_fops,
	.mode = 0666,
};

int sframe_dev_init(void)
{
	return misc_register(&sframe_misc);
}

void sframe_dev_exit(void)
{
	misc_deregister(&sframe_misc);
}
