// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/sframe: open to every user; a process registers and unregisters its
 * own SFrame sections and asks for its own stack here.  Every request acts
 * on current->mm only, so no process can affect another.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <uapi/ustack.h>
#include "coop.h"
#include "ustack_limits.h"
#include "registry.h"
#include "sframe_dev.h"
#include "sources.h"
#include "store.h"
#include "user_walk.h"

static long sframe_reg_ioctl(unsigned int cmd, void __user *uarg)
{
	struct sframe_reg r;

	if (copy_from_user(&r, uarg, sizeof(r)))
		return -EFAULT;
	if (r.size < sizeof(r) || r.flags) {
		pr_info_ratelimited("pid %d (%s): sframe request refused: %s\n",
				    task_tgid_nr(current), current->comm,
				    r.flags ? "unknown flags" : "bad size");
		return -EINVAL;
	}
	if (cmd == SFRAME_IOC_REGISTER)
		return ustack_registry_register(r.sframe_start, r.sframe_len,
				     r.text_start, r.text_end);
	return ustack_registry_unregister(r.sframe_start, r.text_start, r.text_end);
}

static long sframe_self_ioctl(void __user *uarg)
{
	struct ustack_self s;
	u64 *ips;
	u8 *methods, end = USTACK_END_NOMEM;
	u32 max, nr;
	long ret = 0;

	if (copy_from_user(&s, uarg, sizeof(s)))
		return -EFAULT;
	if (s.size < sizeof(s) || s.flags || s.reserved || !s.ips)
		return -EINVAL;
	max = min_t(u32, s.max_frames, USTACK_FRAMES_LIMIT);
	ips = kmalloc_array(max + 1, sizeof(*ips) + sizeof(*methods),
			    GFP_KERNEL);
	if (!ips)
		return -ENOMEM;
	methods = (u8 *)(ips + max + 1);
	s.cookie = ustack_sources_self();
	nr = ustack_walk_user(task_pt_regs(current), ips, methods, max, &end);
	if (copy_to_user(u64_to_user_ptr(s.ips), ips, nr * sizeof(*ips)) ||
	    (s.methods &&
	     copy_to_user(u64_to_user_ptr(s.methods), methods, nr))) {
		ret = -EFAULT;
		goto out;
	}
	s.nr_frames = nr;
	s.end_reason = end;
	if (copy_to_user(uarg, &s, sizeof(s)))
		ret = -EFAULT;
out:
	kfree(ips);
	return ret;
}

static long sframe_coop_ioctl(unsigned int cmd, void __user *uarg)
{
	struct ustack_coop c;

	if (copy_from_user(&c, uarg, sizeof(c)))
		return -EFAULT;
	if (c.size < sizeof(c) || c.flags || c.reserved)
		return -EINVAL;
	if (cmd == SFRAME_IOC_COOP_OFF)
		return ustack_coop_off();
	return ustack_coop_on(c.signo);
}

static long sframe_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case SFRAME_IOC_REGISTER:
	case SFRAME_IOC_UNREGISTER:
		return sframe_reg_ioctl(cmd, uarg);
	case SFRAME_IOC_SELF_STACK:
		return sframe_self_ioctl(uarg);
	case SFRAME_IOC_COOP_ON:
	case SFRAME_IOC_COOP_OFF:
		return sframe_coop_ioctl(cmd, uarg);
	case SFRAME_IOC_COOP_ANSWER:
		return ustack_coop_answer(uarg);
	case SFRAME_IOC_STORE_ADD:
	case SFRAME_IOC_STORE_DEL:
	case SFRAME_IOC_STORE_FLUSH:
	case SFRAME_IOC_STORE_MISSES:
		return ustack_store_ioctl(cmd, uarg);
	default:
		return -ENOTTY;
	}
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

int ustack_sframe_dev_init(void)
{
	return misc_register(&sframe_misc);
}

void ustack_sframe_dev_exit(void)
{
	misc_deregister(&sframe_misc);
}
