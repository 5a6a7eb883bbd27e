/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The environment of the SFrame core (core.mk lists its files).
 *
 * The core is compiled into ustack.ko, where the section and the stack
 * are user memory read with copy_from_user()/get_user() in faultable
 * context, and into the user-space tools, tests and benchmarks, where they
 * are local memory.  Everything the core needs from its environment is
 * here: fixed-width types, bool, errno values, two readers, each returning
 * 0 or -EFAULT, and a pause.  A section anywhere else (a store file, a
 * kernel buffer) has a reader of its own, passed down by the layer above
 * (struct sframe_reader, ustack_sframe.h).  The core checks every offset
 * against the section length before it reads, so the user-space readers
 * need no checks of their own.
 */
#ifndef USTACK_SFRAME_ENV_H
#define USTACK_SFRAME_ENV_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/uaccess.h>

/*
 * Copy @len bytes of the section at address @src (user memory).  The 4- and
 * 8-byte reads of the FDE search use get_user(), lighter than
 * copy_from_user(); unaligned ones work on every architecture the
 * module builds for (arch.h).
 */
static __always_inline int sf_copy(void *dst, unsigned long src, size_t len)
{
	if (__builtin_constant_p(len) && len == 4) {
		u32 v;

		if (get_user(v, (const u32 __user *)src))
			return -EFAULT;
		memcpy(dst, &v, 4);
		return 0;
	}
	if (__builtin_constant_p(len) && len == 8) {
		u64 v;

		if (get_user(v, (const u64 __user *)src))
			return -EFAULT;
		memcpy(dst, &v, 8);
		return 0;
	}
	return copy_from_user(dst, (const void __user *)src, len) ? -EFAULT : 0;
}

/* Read one 8-byte word of the user stack (or other user memory). */
static __always_inline int sf_read_word(u64 *dst, unsigned long addr)
{
	return get_user(*dst, (const u64 __user *)addr) ? -EFAULT : 0;
}

/*
 * Between frames of a walk and every so many entries of a validation, in
 * task context that may sleep: let others run; true if the task has a
 * fatal signal pending (it is dying: stop the work).
 */
static inline bool sf_env_pause(void)
{
	cond_resched();
	return fatal_signal_pending(current);
}

#else /* !__KERNEL__ */

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include <errno.h>

#ifndef SFRAME_ENV_HAVE_KTYPES
#define SFRAME_ENV_HAVE_KTYPES
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
#endif

#include <sys/cdefs.h>	/* __always_inline */
#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif

static __always_inline int sf_copy(void *dst, unsigned long src, size_t len)
{
	memcpy(dst, (const void *)src, len);
	return 0;
}

static __always_inline int sf_read_word(u64 *dst, unsigned long addr)
{
	memcpy(dst, (const void *)addr, sizeof(*dst));
	return 0;
}

/*
 * Nothing to yield to; the tests may count calls or stop the work
 * (SF_ENV_PAUSE_HOOK: a function of theirs).
 */
#ifdef SF_ENV_PAUSE_HOOK
bool SF_ENV_PAUSE_HOOK(void);
#define sf_env_pause()	SF_ENV_PAUSE_HOOK()
#else
static inline bool sf_env_pause(void)
{
	return false;
}
#endif

/*
 * The section is local memory: the core may read checked bytes in place
 * (the FRE window) instead of copying them first.
 */
#define SF_ENV_DIRECT	1

static __always_inline const u8 *sf_env_direct(unsigned long addr)
{
	return (const u8 *)addr;
}

#endif /* __KERNEL__ */

#endif /* USTACK_SFRAME_ENV_H */
