// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target over the SFrame core: header init, full validation,
 * lookups at PCs around every FDE and at PCs taken from the input, steps of
 * the rules found on a stack made of input bytes, and whole walks with the
 * kernel's loop (signal trampolines, frame-pointer fallback; with the rule
 * cache, plain or through hooks, they must give the same frames as
 * without).  The
 * input is the section itself, at its exact size, so ASan sees any read
 * past it; stack reads are bounded by stack_lo/stack_hi.
 */
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

static struct sframe_cache fz_hcache;
static int fz_hopen;

static struct sframe_cache *fz_begin(struct sframe_walk *w,
				     enum sframe_cache_use use)
{
	if (fz_hopen)
		__builtin_trap();
	fz_hopen = 1;
	return &fz_hcache;
}

static void fz_end(struct sframe_walk *w, enum sframe_cache_use use)
{
	if (!fz_hopen)
		__builtin_trap();
	fz_hopen = 0;
}

static const struct sframe_walk_ops fz_ops = {
	.find_sec = fz_find,
	.read_code = fz_read_code,
};

static const struct sframe_walk_ops fz_hook_ops = {
	.find_sec = fz_find,
	.read_code = fz_read_code,
	.cache_begin = fz_begin,
	.cache_end = fz_end,
};

static void fz_step(const struct sframe_rule *r, const u64 *stack, size_t n,
		    u64 pc, const u64 *gpr)
{
	struct sframe_state st;

	memset(&st, 0, sizeof(st));
	st.ip = pc;
	st.sp = (u64)(unsigned long)stack;
	st.fp = st.sp + 8 * (pc % n);
	st.stack_lo = st.sp;
	st.stack_hi = st.sp + 8 * n;
	st.topmost = pc & 1;
	st.gpr = (pc & 2) ? gpr : NULL;
	(void)ustack_sframe_step(r, &st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sframe_rule r;
	struct sframe_fde fde;
	struct sframe_walk w;
	u64 stack[64], gpr[SFRAME_NR_REGS], ips[32];
	u8 methods[32];
	size_t i;
	u32 k, nf;

	if (ustack_sframe_sec_init(&fz_sec, (unsigned long)data, size, VADDR, 0, 0))
		return 0;
	(void)ustack_sframe_validate(&fz_sec);

	/* the stack and registers: input bytes, wrapped */
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

	nf = fz_sec.num_fdes < 64 ? fz_sec.num_fdes : 64;
	for (k = 0; k < nf; k++) {
		static const s64 d[] = { -1, 0, 1, 5, 11, 16 };
		u64 pcs[8];

		if (ustack_sframe_read_fde(&fz_sec, k, &fde))
			continue;
		for (i = 0; i < 6; i++)
			pcs[i] = fde.func_start + d[i];
		pcs[6] = fde.func_start + fde.func_size - 1;
		pcs[7] = fde.func_start + fde.func_size;
		for (i = 0; i < 8; i++)
			if (!ustack_sframe_find(&fz_sec, pcs[i], &r))
				fz_step(&r, stack, 64, pcs[i], gpr);
	}
	for (i = 0; i < 8; i++) {
		u64 pc = VADDR + (stack[i * 7 % 64] % 0x20000);

		if (!ustack_sframe_find(&fz_sec, pc, &r))
			fz_step(&r, stack, 64, pc, gpr);
	}

	memset(&w, 0, sizeof(w));
	w.st.ip = stack[1];
	w.st.sp = (u64)(unsigned long)stack;
	w.st.fp = stack[3];
	w.st.gpr = gpr;
	w.st.stack_lo = w.st.sp;
	w.st.stack_hi = w.st.sp + sizeof(stack);
	w.ops = &fz_ops;
	w.ips = ips;
	w.methods = methods;
	w.max_frames = 32;
	ustack_sframe_walk(&w);
	if (w.nr > w.max_frames || w.end >= USTACK_END_MAX)
		__builtin_trap();

	/* with the rule cache: twice (fill, then hit); same frames as without */
	{
		static struct sframe_cache cache;
		u64 ref[32];
		u32 ref_nr = w.nr;
		u8 ref_end = w.end;

		memcpy(ref, ips, sizeof(ref));
		ustack_sframe_cache_reset(&cache);
		w.cache = &cache;
		for (i = 0; i < 4; i++) {
			if (i == 3) {	/* the hooks, in short runs: fill */
				ustack_sframe_cache_reset(&fz_hcache);
				w.cache = NULL;
				w.ops = &fz_hook_ops;
				w.cache_burst = 1 + size % 5;
				ustack_sframe_walk(&w);
			}
			if (i == 2)	/* wrong next-entry guesses: only slower */
				for (k = 0; k < SFRAME_CACHE_SIZE; k++)
					cache.e[k].next =
						(struct sframe_cache_ent *)
						((uintptr_t)cache.e +
						 (k * 40503u + size) %
						 (sizeof(cache.e) + 64));
			ustack_sframe_walk(&w);
			if (w.nr != ref_nr || w.end != ref_end ||
			    memcmp(ips, ref, ref_nr * sizeof(u64)))
				__builtin_trap();
		}
	}
	return 0;
}
