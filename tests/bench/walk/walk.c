// SPDX-License-Identifier: GPL-2.0
/*
 * Per-frame cost of walking the same 64-deep call stack (64 distinct
 * functions), in one process:
 *   sframe     the SFrame core's ustack_sframe_walk() over this program's own
 *              .sframe (gas --gsframe, v1), chain built without frame pointers
 *   sframe_indexed  the same, uncached, as if PCs found their FDE in O(1):
 *              each function's FDE in a section of its own, found through
 *              a table with an entry per text byte (the bound any
 *              PC-to-FDE index could reach: what is left is reading the
 *              FDE and its FREs, building the rule and the step)
 *   sframe_cached  the same with the optional rule cache, warm: every walk
 *              is of the same stack, so after the first one every rule
 *              and every next-entry guess is in the cache (the cold cost
 *              of a frame is the uncached one)
 *   fp         a frame-pointer walk of the chain built with frame pointers
 *              (fp_core: the core's FP fallback; fp: a bare FP loop)
 *   backtrace  glibc backtrace() (libgcc's .eh_frame unwinder)
 *   libunwind  libunwind's unw_backtrace(), dlopen'ed RTLD_LOCAL: linked in,
 *              its _Unwind_Backtrace and weak backtrace would replace
 *              libgcc's under glibc's backtrace() (measured: 20x faster)
 * Each method walks exactly 64 frames; rounds are interleaved and the best
 * round of each counts.  Prints `bench <name> <value> <unit>` lines.
 */
#define _GNU_SOURCE
#include <execinfo.h>
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ustack_sframe.h"
#include "uapi/ustack.h"

#define DEPTH	64

int rec_nofp(int (*leaf)(void));
int rec_fp(int (*leaf)(void));
int leaf_fp(void);
int fp_leaf_body(uint64_t ip, uint64_t sp, uint64_t fp);

static struct sframe_sec self_sec;
static struct sframe_sec *fn_sec;	/* sframe_indexed: one per FDE */
static u16 *fn_idx;			/* text byte -> fn_sec index + 1 */
static u8 *fn_bytes;
static struct sframe_cache cache;
static u64 stack_lo, stack_hi;
static int iters = 20000;
static double best[8];
static int failed;
enum { M_SFRAME, M_SFRAME_INDEXED, M_SFRAME_CACHED, M_FP_CORE, M_FP, M_BT,
       M_UNW, M_N };
static const char * const mname[M_N] = {
	"sframe", "sframe_indexed", "sframe_cached", "fp_core", "fp",
	"backtrace", "libunwind",
};
static int cur;			/* method measured by this descent */
static int (*unw_bt)(void **, int);
static u64 ref_ips[DEPTH];	/* backtrace()'s answer, for the check */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void record(int m, double t0, unsigned int frames)
{
	double per = (now_ns() - t0) / iters / DEPTH;

	if (frames != DEPTH) {
		fprintf(stderr, "walk: %s walked %u frames, not %d\n",
			mname[m], frames, DEPTH);
		failed = 1;
	}
	if (!best[m] || per < best[m])
		best[m] = per;
}

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
	u64 sf = 0, sflen = 0, lo = 0, hi = 0;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == 0x6474e554) {	/* PT_GNU_SFRAME */
			sf = info->dlpi_addr + ph->p_vaddr;
			sflen = ph->p_memsz;
		} else if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			lo = info->dlpi_addr + ph->p_vaddr;
			hi = lo + ph->p_memsz;
		}
	}
	if (!sf)
		return 0;
	*(int *)data = ustack_sframe_sec_init(&self_sec, sf, sflen, sf, lo, hi);
	return 1;		/* the first object is the program */
}

static const struct sframe_sec *find_sec(struct sframe_walk *w, u64 pc,
					  bool *cacheable)
{
	*cacheable = true;
	return (pc >= self_sec.text_lo && pc < self_sec.text_hi) ?
	       &self_sec : NULL;
}

static const struct sframe_walk_ops walk_ops = {
	.find_sec = find_sec,
	.read_code = ustack_sframe_read_local_code,
};

static const struct sframe_sec *find_fn(struct sframe_walk *w, u64 pc,
					 bool *cacheable)
{
	u64 k = pc - self_sec.text_lo;

	*cacheable = true;
	if (k >= self_sec.text_hi - self_sec.text_lo || !fn_idx[k])
		return NULL;
	return &fn_sec[fn_idx[k] - 1];
}

static const struct sframe_walk_ops fn_ops = {
	.find_sec = find_fn,
	.read_code = ustack_sframe_read_local_code,
};

/*
 * sframe_indexed's sections: copies of the program's section, each with
 * one FDE (num_fdes 1, the FDE offset moved to it; every other byte where
 * it was, so that its FREs and start resolve as before).
 */
static int index_fns(u64 sf, u32 len)
{
	u32 n = self_sec.num_fdes, fde_rel, i;
	u64 span = self_sec.text_hi - self_sec.text_lo;
	const u8 *h = (const u8 *)(unsigned long)sf;
	struct sframe_fde f;
	int err;

	fn_sec = calloc(n, sizeof(*fn_sec));
	fn_idx = calloc(span, sizeof(*fn_idx));
	fn_bytes = malloc((size_t)n * len);
	if (!fn_sec || !fn_idx || !fn_bytes)
		return SFRAME_E_FAULT;
	memcpy(&fde_rel, h + 20, 4);
	for (i = 0; i < n; i++) {
		u8 *b = fn_bytes + (size_t)i * len;
		u32 one = 1, rel = fde_rel + i * self_sec.fde_size;

		err = ustack_sframe_read_fde(&self_sec, i, &f);
		if (err)
			return err;
		if (f.func_start < self_sec.text_lo ||
		    f.func_start + f.func_size > self_sec.text_hi)
			return SFRAME_E_FUNC_RANGE;
		memcpy(b, h, len);
		memcpy(b + 8, &one, 4);
		memcpy(b + 20, &rel, 4);
		err = ustack_sframe_sec_init(&fn_sec[i], (unsigned long)b, len,
					     sf, f.func_start,
					     f.func_start + f.func_size);
		if (err)
			return err;
		for (u64 a = f.func_start; a < f.func_start + f.func_size; a++)
			fn_idx[a - self_sec.text_lo] = (u16)(i + 1);
	}
	return 0;
}

static unsigned int fp_bare(u64 fp, u64 *ips, unsigned int max)
{
	unsigned int n = 0;

	while (n < max) {
		const u64 *f = (const u64 *)fp;

		if (fp < stack_lo || fp > stack_hi - 16 || (fp & 7) || !f[1])
			break;
		ips[n++] = f[1];
		if (f[0] <= fp)
			break;
		fp = f[0];
	}
	return n;
}

static unsigned int core_walk(u64 ip, u64 sp, u64 fp, u64 *ips,
			      const struct sframe_walk_ops *ops, bool cached)
{
	struct sframe_walk w;

	memset(&w, 0, sizeof(w));
	w.st.ip = ip;
	w.st.sp = sp;
	w.st.fp = fp;
	w.st.stack_lo = stack_lo;
	w.st.stack_hi = stack_hi;
	w.ops = ops;
	w.cache = cached ? &cache : NULL;
	w.ips = ips;
	w.max_frames = DEPTH;
	return ustack_sframe_walk(&w);
}

/* Leaf of the frame-pointer chain. */
int fp_leaf_body(uint64_t ip, uint64_t sp, uint64_t fp)
{
	u64 ips[DEPTH];
	unsigned int n = 0;
	double t0 = now_ns();

	for (int i = 0; i < iters; i++) {
		if (cur == M_FP_CORE)
			n = core_walk(ip, sp, fp, ips, NULL, false);
		else
			n = fp_bare(fp, ips, DEPTH);
		__asm__ volatile("" : : "r"(ips) : "memory");
	}
	record(cur, t0, n);
	return (int)n;
}

/* Leaf of the chain without frame pointers. */
__attribute__((noinline)) static int leaf_nofp(void)
{
	u64 ip, sp, fp, ips[DEPTH];
	void *bt[DEPTH];
	unsigned int n = 0;
	double t0;

	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(ip), "=r"(sp), "=r"(fp));
	t0 = now_ns();
	for (int i = 0; i < iters; i++) {
		switch (cur) {
		case M_SFRAME:
			n = core_walk(ip, sp, fp, ips, &walk_ops, false);
			break;
		case M_SFRAME_INDEXED:
			n = core_walk(ip, sp, fp, ips, &fn_ops, false);
			break;
		case M_SFRAME_CACHED:
			n = core_walk(ip, sp, fp, ips, &walk_ops, true);
			break;
		case M_BT:
			n = (unsigned int)backtrace(bt, DEPTH);
			break;
		default:
			n = (unsigned int)unw_bt(bt, DEPTH);
			break;
		}
		__asm__ volatile("" : : "r"(ips), "r"(bt) : "memory");
	}
	record(cur, t0, n);
	/* the walks agree with backtrace() on every caller frame */
	if (cur == M_BT)
		for (int i = 1; i < DEPTH; i++)
			ref_ips[i] = (u64)(unsigned long)bt[i];
	if ((cur == M_SFRAME || cur == M_SFRAME_INDEXED ||
	     cur == M_SFRAME_CACHED) && ref_ips[1])
		for (int i = 1; i < DEPTH; i++)
			if (ips[i] != ref_ips[i]) {
				fprintf(stderr, "walk: %s frame %d: %#llx, backtrace %#llx\n",
					mname[cur], i, (unsigned long long)ips[i],
					(unsigned long long)ref_ips[i]);
				failed = 1;
				break;
			}
	return (int)n;
}

int main(int argc, char **argv)
{
	pthread_attr_t a;
	void *addr;
	size_t size;
	int err = -1, rounds = 7;
	const char *only;
	static const int order[] = { M_BT, M_SFRAME, M_SFRAME_INDEXED,
				     M_SFRAME_CACHED, M_FP_CORE, M_FP, M_UNW };

	if (argc > 1)
		iters = atoi(argv[1]);
	if (argc > 2)
		rounds = atoi(argv[2]);
	if (pthread_getattr_np(pthread_self(), &a) ||
	    pthread_attr_getstack(&a, &addr, &size))
		return 1;
	stack_lo = (u64)(unsigned long)addr;
	stack_hi = stack_lo + size;
	dl_iterate_phdr(find_self, &err);
	if (!err)
		err = index_fns(self_sec.base, self_sec.len);
	if (err) {
		fprintf(stderr, "walk: no usable PT_GNU_SFRAME: %s\n",
			ustack_sframe_strerror(err));
		return 1;
	}
	ustack_sframe_cache_reset(&cache);
	void *lu = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);

	unw_bt = lu ? (int (*)(void **, int))dlsym(lu, "unw_backtrace") : NULL;
	if (!unw_bt) {
		fprintf(stderr, "walk: no libunwind.so.8: %s\n", dlerror());
		return 1;
	}
	only = getenv("WALK_ONLY");
	for (int r = 0; r < rounds; r++) {
		for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
			cur = order[k];
			if (only && strcmp(only, mname[cur]))
				continue;
			if (cur == M_FP || cur == M_FP_CORE)
				rec_fp(leaf_fp);
			else
				rec_nofp(leaf_nofp);
		}
	}
	for (int m = 0; m < M_N; m++)
		printf("bench walk_%s_per_frame %.2f ns\n", mname[m], best[m]);
	printf("bench walk_sframe_vs_fp %.2f ratio\n", best[M_SFRAME] / best[M_FP]);
	printf("bench walk_sframe_indexed_vs_fp %.2f ratio\n",
	       best[M_SFRAME_INDEXED] / best[M_FP]);
	printf("bench walk_sframe_cached_vs_fp %.2f ratio\n",
	       best[M_SFRAME_CACHED] / best[M_FP]);
	printf("bench walk_sframe_vs_fp_core %.2f ratio\n",
	       best[M_SFRAME] / best[M_FP_CORE]);
	printf("bench walk_sframe_cached_vs_fp_core %.2f ratio\n",
	       best[M_SFRAME_CACHED] / best[M_FP_CORE]);
	printf("bench walk_backtrace_vs_sframe %.1f ratio\n",
	       best[M_BT] / best[M_SFRAME]);
	printf("bench walk_libunwind_vs_sframe %.1f ratio\n",
	       best[M_UNW] / best[M_SFRAME]);
	printf("bench walk_backtrace_vs_sframe_cached %.1f ratio\n",
	       best[M_BT] / best[M_SFRAME_CACHED]);
	printf("# walk: frames checked against backtrace(): %s\n",
	       failed ? "MISMATCH" : "identical");
	return failed;
}
