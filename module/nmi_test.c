// SPDX-License-Identifier: GPL-2.0
/*
 * Test hook: real NMIs on demand, for machines without a PMU (QEMU TCG),
 * so that the engine's NMI path runs for real where hardware-cycle
 * sampling cannot.  Writing "CPU COUNT" to /sys/kernel/debug/ustack/nmi_test
 * sends COUNT NMI IPIs to CPU, about one per millisecond; the handler takes
 * a sample (event nmi-test) of the task each one interrupted, exactly as a
 * cycles overflow does.  Root only; nothing runs until the first write.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>
#include <asm/nmi.h>
#include <uapi/ustack.h>
#include "arch.h"
#include "compat.h"
#include "nmi_test.h"
#include "sources.h"

#define NMI_TEST_MAX	100000

static DEFINE_PER_CPU(atomic_t, nmi_expected);
static DEFINE_MUTEX(nmi_test_lock);
static bool handler_on;

/* Claims only the NMIs this hook sent; every other one is left alone. */
static int nmi_test_handler(unsigned int type, struct pt_regs *regs)
{
	if (!atomic_add_unless(this_cpu_ptr(&nmi_expected), -1, 0))
		return NMI_DONE;
	ustack_sources_sample(USTACK_EVENT_NMI_TEST, regs);
	return NMI_HANDLED;
}

static int send_nmis(unsigned int cpu, unsigned int count)
{
	unsigned int i;

	for (i = 0; i < count; i++) {
		if (!cpu_online(cpu))
			return -ENODEV;
		if (fatal_signal_pending(current))
			return -EINTR;
		atomic_inc(per_cpu_ptr(&nmi_expected, cpu));
		ustack_arch_send_nmi(cpu);
		usleep_range(1000, 1100);
	}
	return 0;
}

static ssize_t nmi_test_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	unsigned int cpu, count;
	char buf[32];
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%u %u", &cpu, &count) != 2 || cpu >= nr_cpu_ids ||
	    count > NMI_TEST_MAX) {
		pr_warn_ratelimited("nmi_test: want \"CPU COUNT\", COUNT <= %u\n",
				    NMI_TEST_MAX);
		return -EINVAL;
	}
	guard(mutex)(&nmi_test_lock);
	if (!handler_on) {
		ret = register_nmi_handler(NMI_LOCAL, nmi_test_handler, 0,
					   "ustack_nmi_test");
		if (ret)
			return ret;
		handler_on = true;
	}
	cpus_read_lock();
	ret = send_nmis(cpu, count);
	cpus_read_unlock();
	return ret ? ret : len;
}

static const struct file_operations nmi_test_fops = {
	.owner = THIS_MODULE,
	.write = nmi_test_write,
	.llseek = ustack_no_llseek,
};

void ustack_nmi_test_init(struct dentry *dir)
{
	debugfs_create_file("nmi_test", 0200, dir, NULL, &nmi_test_fops);
}

/* After the debugfs file is gone: no write is running. */
void ustack_nmi_test_exit(void)
{
	if (handler_on)
		unregister_nmi_handler(NMI_LOCAL, "ustack_nmi_test");
}
