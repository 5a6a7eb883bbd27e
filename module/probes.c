// SPDX-License-Identifier: GPL-2.0
/*
 * What the target kernel's headers provide, asked by compiling: one
 * section per feature, built alone (-DUSTACK_PROBE_<NAME>) with the
 * module's own flags and -Werror by Kbuild, which writes
 * "#define USTACK_HAVE_<NAME> 1" into ustack_probes.h when it compiles.
 * Distribution kernels backport features without changing their version,
 * so compat.h decides by these, not by LINUX_VERSION_CODE.  Never linked
 * into the module.
 */
#include <linux/cleanup.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/task_work.h>
#include <linux/timer.h>

int ustack_probe(void *arg);

#ifdef USTACK_PROBE_FREE_FPUT
/* DEFINE_FREE(fput): 6.5, and later 6.1 stable releases (not 6.1.0-50). */
int ustack_probe(void *arg)
{
	struct file *f __free(fput) = arg;

	return !!f;
}
#endif

#ifdef USTACK_PROBE_NO_LLSEEK
/* no_llseek: gone in 6.12, where a NULL .llseek means "not seekable". */
static const struct file_operations probe_fops = { .llseek = no_llseek };

int ustack_probe(void *arg)
{
	return arg == &probe_fops;
}
#endif

#ifdef USTACK_PROBE_INODE_GET_CTIME
/* inode_get_ctime(): 6.6 hid i_ctime behind it (later, its storage). */
int ustack_probe(void *arg)
{
	struct timespec64 t = inode_get_ctime(arg);

	return t.tv_nsec != 0;
}
#endif

#ifdef USTACK_PROBE_TWA_NMI_CURRENT
/* TWA_NMI_CURRENT: 6.11, task_work_add() from NMI on the current task. */
int ustack_probe(void *arg)
{
	enum task_work_notify_mode m = TWA_NMI_CURRENT;

	return m == (long)arg;
}
#endif

#ifdef USTACK_PROBE_UNMAP_VMAS_ARGS
/*
 * unmap_vmas(tlb, mt or mas, vma, start, end, ...) in linux/mm.h, as the
 * registry's kprobe reads it: 6.1's and 6.12's forms.  7.x moved it into
 * mm/ with a struct of mm/'s own.
 */
typedef void (unmap_vmas_61_t)(struct mmu_gather *, struct maple_tree *,
			       struct vm_area_struct *, unsigned long,
			       unsigned long);
typedef void (unmap_vmas_612_t)(struct mmu_gather *, struct ma_state *,
				struct vm_area_struct *, unsigned long,
				unsigned long, unsigned long, bool);
static_assert(__builtin_types_compatible_p(typeof(unmap_vmas), unmap_vmas_61_t) ||
	      __builtin_types_compatible_p(typeof(unmap_vmas), unmap_vmas_612_t));

int ustack_probe(void *arg)
{
	return arg == unmap_vmas;
}
#endif

#ifdef USTACK_PROBE_TIMER_DELETE_SYNC
/* timer_delete_sync(): 6.2 (and some 6.1 stable); del_timer_sync() left. */
int ustack_probe(void *arg)
{
	return timer_delete_sync(arg);
}
#endif

#ifdef USTACK_PROBE_UNWIND_USER
/*
 * unwind_user(trace, max_entries): the kernel's own user walk (6.17,
 * CONFIG_UNWIND_USER), which its deferred unwinder calls at the return to
 * user space and kernel_unwinder.c redirects: its prototype and the
 * struct unwind_stacktrace it fills, as the redirect's target has them.
 */
#include <linux/unwind_user.h>
#ifndef CONFIG_UNWIND_USER
#error "no deferred user unwinder in this kernel"
#endif
typedef int (unwind_user_t)(struct unwind_stacktrace *, unsigned int);
static_assert(__builtin_types_compatible_p(typeof(unwind_user), unwind_user_t));
static_assert(__builtin_types_compatible_p(typeof(((struct unwind_stacktrace *)0)->nr),
					   unsigned int));
static_assert(__builtin_types_compatible_p(typeof(((struct unwind_stacktrace *)0)->entries),
					   unsigned long *));

int ustack_probe(void *arg)
{
	return arg == unwind_user;
}
#endif
