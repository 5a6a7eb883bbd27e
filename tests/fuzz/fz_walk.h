/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the fuzz target turns its input into a walk: the section is the
 * input, the stack and registers are input bytes, the text has signal
 * trampolines at known places.  Shared with mkseeds, which looks for seeds
 * whose walks take each path of the walk loop.
 */
#ifndef FZ_WALK_H
#define FZ_WALK_H

#include <stdint.h>
#include <string.h>
#include "ustack_sframe.h"
#include "uapi/ustack.h"

#define VADDR	0x400000ULL

static struct sframe_sec fz_sec;

static const struct sframe_sec *fz_find(struct sframe_walk *w, u64 pc,
					 bool *cacheable)
{
	*cacheable = true;
	return &fz_sec;
}

/*
 * The text: rt_sigreturn trampolines (glibc's __restore_rt bytes) at every
 * PC of [VADDR, VADDR + 0x20000) whose low byte is 0x00 (aligned, looked at
 * before any rule) or 0x81 (looked at where no rule covers it), nops
 * elsewhere; outside, reads fault.  Stack words are made such PCs often
 * enough for the walk to step signal frames (their sigcontext is stack
 * words too).
 */
static int fz_read_code(struct sframe_walk *w, void *dst, u64 addr, u32 len)
{
	static const u8 tramp[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00,
				    0x0f, 0x05 };
	u8 *d = dst;
	u32 i;

	if (addr < VADDR || addr >= VADDR + 0x20000 || len > sizeof(tramp))
		return -EFAULT;
	for (i = 0; i < len; i++)
		d[i] = (addr & 0xff) == 0x00 || (addr & 0xff) == 0x81 ?
		       tramp[i] : 0x90;
	return 0;
}

static const struct sframe_walk_ops fz_ops = {
	.find_sec = fz_find,
	.read_code = fz_read_code,
};

/* The stack and registers: input bytes, wrapped. */
static void fz_stack(const uint8_t *data, size_t size, u64 *stack, u64 *gpr)
{
	size_t i;

	for (i = 0; i < 64; i++) {
		u64 v = 0;

		if (size)
			memcpy(&v, data + (i * 8) % (size >= 8 ? size - 7 : 1),
			       size >= 8 ? 8 : 0);
		/*
		 * make some words plausible stack addresses and PCs, some
		 * of them signal trampolines (see fz_read_code())
		 */
		if (i % 3 == 0)
			v = (u64)(unsigned long)&stack[(v % 64)];
		else if (i % 3 == 1 && (v & 0x700) == 0x500)
			v = VADDR + (v % 0x200) * 0x100 + (v & 0x80 ? 0x81 : 0);
		else if (i % 3 == 1)
			v = VADDR + (v % 0x20000);
		stack[i] = v;
	}
	for (i = 0; i < SFRAME_NR_REGS; i++)
		gpr[i] = stack[i * 3 % 64];
}


/* The walk over fz_stack()'s stack, from its word 1 (IP) and 3 (FP). */
static void fz_walk_init(struct sframe_walk *w, u64 *stack, const u64 *gpr,
			 u64 *ips, u8 *methods, u32 max)
{
	memset(w, 0, sizeof(*w));
	w->st.ip = stack[1];
	w->st.sp = (u64)(unsigned long)stack;
	w->st.fp = stack[3];
	w->st.gpr = gpr;
	w->st.stack_lo = w->st.sp;
	w->st.stack_hi = w->st.sp + 64 * sizeof(u64);
	w->ops = &fz_ops;
	w->ips = ips;
	w->methods = methods;
	w->max_frames = max;
}

#endif /* FZ_WALK_H */
