// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target over the SFrame core: header init, full validation,
 * lookups at PCs around every FDE and at PCs taken from the input, steps of
 * the rules found on a stack made of input bytes, and whole walks with the
 * kernel's loop (signal trampolines, frame-pointer fallback; with the rule
 * cache, plain or through hooks, they must give the same frames as
 * without), and with the stack scan, whose call decoder also reads
 * every window of the input.  The
 * input is the section itself, at its exact size, so ASan sees any read
 * past it; stack reads are bounded by stack_lo/stack_hi.
 */
#include <stdint.h>
#include <string.h>
#include "ustack_sframe.h"
#include "uapi/ustack.h"

#include "fz_walk.h"

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

/*
 * The stack scan: text is [VADDR, VADDR + 0x20000) as for fz_read_code(),
 * but its bytes are the input's (wrapped), so that E8 and FF /2 calls
 * appear before the stack's PCs often enough.
 */
static const uint8_t *fz_data;
static size_t fz_size;

static bool fz_is_text(struct sframe_walk *w, u64 addr)
{
	return addr >= VADDR && addr < VADDR + 0x20000;
}

static int fz_guess_code(struct sframe_walk *w, void *dst, u64 addr, u32 len)
{
	u8 *d = dst;
	u32 i;

	if (addr < VADDR || addr + len > VADDR + 0x20000 || !fz_size)
		return -EFAULT;
	for (i = 0; i < len; i++)
		d[i] = fz_data[(addr - VADDR + i) % fz_size];
	return 0;
}

static const struct sframe_walk_ops fz_guess_ops = {
	.find_sec = fz_find,
	.read_code = fz_guess_code,
	.is_text = fz_is_text,
};

/* The call decoder over every 7-byte window of the input (at most 512). */
static void fz_calls(const uint8_t *data, size_t size)
{
	size_t i;

	for (i = 0; i + SFRAME_CALL_MAX_LEN <= size && i < 512; i++) {
		u64 t = 0, ret = VADDR + i + SFRAME_CALL_MAX_LEN;
		u32 len = ustack_sframe_call_before(data + i, ret, &t);

		if (len == 1 || len > SFRAME_CALL_MAX_LEN ||
		    (len && data[i + SFRAME_CALL_MAX_LEN - len] !=
		     (len == 5 ? 0xe8 : 0xff)) ||
		    (len == 5 && t != ret + (u64)(s64)(s32)
		     (data[i + 3] | data[i + 4] << 8 | data[i + 5] << 16 |
		      (u32)data[i + 6] << 24)))
			__builtin_trap();
	}
}

/* A walk with the scan: bounded, and no rule's method after a guess. */
static void fz_guess_walk(struct sframe_walk *w, const uint8_t *data,
			  size_t size)
{
	u32 i;
	bool guessed = false;

	fz_data = data;
	fz_size = size;
	w->ops = &fz_guess_ops;
	w->cache = NULL;
	w->flags = SFRAME_WALK_GUESS | (size & 1 ? SFRAME_WALK_NO_FP : 0);
	ustack_sframe_walk(w);
	if (w->nr > w->max_frames || w->end >= USTACK_END_MAX ||
	    w->scanned > USTACK_GUESS_WALK_WORDS)
		__builtin_trap();
	for (i = 1; i < w->nr; i++) {
		if (guessed && w->methods[i] != USTACK_METHOD_GUESS)
			__builtin_trap();
		guessed |= w->methods[i] == USTACK_METHOD_GUESS;
	}
	if (guessed != (w->scanned > 0 && w->nr > 1 &&
			w->methods[w->nr - 1] == USTACK_METHOD_GUESS))
		__builtin_trap();
}

/* Lookups around every FDE (at most 64) and at PCs from the stack; steps. */
static void fz_lookups(const u64 *stack, const u64 *gpr)
{
	static const s64 d[] = { -1, 0, 1, 5, 11, 16 };
	struct sframe_rule r;
	struct sframe_fde fde;
	size_t i;
	u32 k, nf;

	nf = fz_sec.num_fdes < 64 ? fz_sec.num_fdes : 64;
	for (k = 0; k < nf; k++) {
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
}

/*
 * @w walked once without a cache: again with the rule cache, four times
 * (fill, hit, with wrong next-entry guesses, through the hooks in short
 * runs); every walk must give the frames of the first.
 */
static void fz_cache_walks(struct sframe_walk *w, size_t size)
{
	static struct sframe_cache cache;
	u64 ref[32];
	u32 ref_nr = w->nr, k;
	u8 ref_end = w->end;
	size_t i;

	memcpy(ref, w->ips, sizeof(ref));
	ustack_sframe_cache_reset(&cache);
	w->cache = &cache;
	for (i = 0; i < 4; i++) {
		if (i == 3) {	/* the hooks, in short runs: fill */
			ustack_sframe_cache_reset(&fz_hcache);
			w->cache = NULL;
			w->ops = &fz_hook_ops;
			w->cache_burst = 1 + size % 5;
			ustack_sframe_walk(w);
		}
		if (i == 2)	/* wrong next-entry guesses: only slower */
			for (k = 0; k < SFRAME_CACHE_SIZE; k++)
				cache.e[k].next =
					(struct sframe_cache_ent *)
					((uintptr_t)cache.e +
					 (k * 40503u + size) %
					 (sizeof(cache.e) + 64));
		ustack_sframe_walk(w);
		if (w->nr != ref_nr || w->end != ref_end ||
		    memcmp(w->ips, ref, ref_nr * sizeof(u64)))
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sframe_walk w;
	u64 stack[64], gpr[SFRAME_NR_REGS], ips[32];
	u8 methods[32];

	if (ustack_sframe_sec_init(&fz_sec, (unsigned long)data, size, VADDR, 0, 0))
		return 0;
	(void)ustack_sframe_validate(&fz_sec);

	fz_stack(data, size, stack, gpr);
	fz_lookups(stack, gpr);

	fz_walk_init(&w, stack, gpr, ips, methods, 32);
	ustack_sframe_walk(&w);
	if (w.nr > w.max_frames || w.end >= USTACK_END_MAX)
		__builtin_trap();
	fz_cache_walks(&w, size);
	fz_calls(data, size);
	fz_guess_walk(&w, data, size);
	return 0;
}
