// SPDX-License-Identifier: GPL-2.0
/*
 * badmod: does one forbidden thing, chosen by the parameter bug=, at load
 * time, so that the debug-kernel test can prove the VM harness catches it.
 * Built only for tests/debugkernel; never shipped.
 *
 *   none     nothing (control: the boot must stay clean)
 *   oob      kmalloc'd buffer written one byte past its end   (KASAN)
 *   uaf      kfree'd buffer read                              (KASAN)
 *   ubsan    shift by more than the width of the type         (UBSAN)
 *   sleep    might_sleep() under preempt_disable()            (DEBUG_ATOMIC_SLEEP)
 *   lockinv  two mutexes taken in both orders                 (lockdep)
 *   waitctx  mutex taken under a raw_spinlock_t               (lockdep wait context)
 *   rcu      rcu_dereference() outside rcu_read_lock()        (PROVE_RCU)
 *   list     list_del() of an entry twice                     (DEBUG_LIST)
 *   leak     kmalloc'd buffer whose only pointer is dropped   (kmemleak)
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/rcupdate.h>
#include <linux/list.h>
#include <linux/preempt.h>
#include <linux/kernel.h>

static char bug[16] = "none";
module_param_string(bug, bug, sizeof(bug), 0444);
MODULE_PARM_DESC(bug, "which forbidden thing to do at load time");

struct item {
	int val;
	struct list_head node;
};

static struct item __rcu *rcu_item;
static DEFINE_MUTEX(lock_a);
static DEFINE_MUTEX(lock_b);
static DEFINE_RAW_SPINLOCK(raw_lock);
static DEFINE_MUTEX(wait_mutex);

static int do_oob(void)
{
	size_t n = 20;
	char *p = kmalloc(n, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	OPTIMIZER_HIDE_VAR(n);
	p[n] = 'x';
	kfree(p);
	return 0;
}

static int do_uaf(void)
{
	char *p = kmalloc(32, GFP_KERNEL);
	char c;

	if (!p)
		return -ENOMEM;
	kfree(p);
	OPTIMIZER_HIDE_VAR(p);
	c = READ_ONCE(p[3]);
	pr_info("badmod: read %d\n", c);
	return 0;
}

static int do_ubsan(void)
{
	unsigned int shift = 40;
	int v = 1;

	OPTIMIZER_HIDE_VAR(shift);
	v <<= shift;
	pr_info("badmod: shifted %d\n", v);
	return 0;
}

static int do_sleep(void)
{
	preempt_disable();
	might_sleep();
	preempt_enable();
	return 0;
}

static int do_lockinv(void)
{
	mutex_lock(&lock_a);
	mutex_lock(&lock_b);
	mutex_unlock(&lock_b);
	mutex_unlock(&lock_a);

	mutex_lock(&lock_b);
	mutex_lock(&lock_a);
	mutex_unlock(&lock_a);
	mutex_unlock(&lock_b);
	return 0;
}

static int do_waitctx(void)
{
	raw_spin_lock(&raw_lock);
	mutex_lock(&wait_mutex);
	mutex_unlock(&wait_mutex);
	raw_spin_unlock(&raw_lock);
	return 0;
}

static int do_rcu(void)
{
	struct item *it = kzalloc(sizeof(*it), GFP_KERNEL);
	struct item *p;

	if (!it)
		return -ENOMEM;
	rcu_assign_pointer(rcu_item, it);
	p = rcu_dereference(rcu_item);
	pr_info("badmod: rcu item %d\n", p->val);
	RCU_INIT_POINTER(rcu_item, NULL);
	synchronize_rcu();
	kfree(it);
	return 0;
}

static int do_list(void)
{
	LIST_HEAD(head);
	struct item it = { .val = 1 };

	list_add(&it.node, &head);
	list_del(&it.node);
	list_del(&it.node);
	return 0;
}

static noinline int leak_one(void)
{
	void *p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	memset(p, 0x5a, 64);
	OPTIMIZER_HIDE_VAR(p);
	return 0;
}

/*
 * kmemleak scans the whole of a task's stack, dead part included (and a
 * vmalloc'ed stack stays cached after insmod exits): a stale copy of the
 * pointer, left in the frames of kmalloc() or of leak_one(), hides the
 * leak now and then.  Overwrite them.
 */
static noinline void scrub_stack(void)
{
	char buf[1536];

	memzero_explicit(buf, sizeof(buf));
}

static int do_leak(void)
{
	int ret = leak_one();

	scrub_stack();
	return ret;
}

static const struct {
	const char *name;
	int (*fn)(void);
} bugs[] = {
	{ "oob", do_oob },
	{ "uaf", do_uaf },
	{ "ubsan", do_ubsan },
	{ "sleep", do_sleep },
	{ "lockinv", do_lockinv },
	{ "waitctx", do_waitctx },
	{ "rcu", do_rcu },
	{ "list", do_list },
	{ "leak", do_leak },
};

static int __init badmod_init(void)
{
	size_t i;

	if (!strcmp(bug, "none"))
		return 0;
	for (i = 0; i < ARRAY_SIZE(bugs); i++) {
		if (!strcmp(bug, bugs[i].name)) {
			pr_info("badmod: doing %s\n", bug);
			return bugs[i].fn();
		}
	}
	pr_err("badmod: unknown bug '%s'\n", bug);
	return -EINVAL;
}

static void __exit badmod_exit(void)
{
}

module_init(badmod_init);
module_exit(badmod_exit);
MODULE_DESCRIPTION("ustack debug-kernel test: deliberate bugs");
MODULE_LICENSE("GPL");
