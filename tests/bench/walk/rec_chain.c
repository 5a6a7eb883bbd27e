// SPDX-License-Identifier: GPL-2.0
/*
 * The call chain walked by the benchmark: 64 distinct functions with
 * different frame sizes (distinct PCs, FDEs and rules), built twice by
 * walk.sh: without frame pointers (rec_nofp) and with them (-DREC_FP:
 * rec_fp, whose leaf is rec_fp.c's).
 */
#ifdef REC_FP
#define NAME(i)		rec_fp_##i
#define ENTRY		rec_fp
#else
#define NAME(i)		rec_nofp_##i
#define ENTRY		rec_nofp
#endif

int ENTRY(int (*leaf)(void));

#define DEF(i, next, pad)						\
__attribute__((noinline)) static int NAME(i)(int (*leaf)(void))	\
{									\
	volatile char buf[pad];						\
	int r;								\
									\
	buf[0] = (char)i;						\
	r = next(leaf);							\
	__asm__ volatile("" : "+r"(r) : : "memory");			\
	return r + buf[0];						\
}

static int call_leaf(int (*leaf)(void))
{
	return leaf();
}

#define D8(a, b, c, d, e, f, g, h, next)				\
	DEF(h, next, 8 * (h % 5 + 1))					\
	DEF(g, NAME(h), 8 * (g % 7 + 1))				\
	DEF(f, NAME(g), 8 * (f % 3 + 1))				\
	DEF(e, NAME(f), 8 * (e % 5 + 1))				\
	DEF(d, NAME(e), 8 * (d % 7 + 1))				\
	DEF(c, NAME(d), 8 * (c % 3 + 1))				\
	DEF(b, NAME(c), 8 * (b % 5 + 1))				\
	DEF(a, NAME(b), 8 * (a % 7 + 1))

D8(56, 57, 58, 59, 60, 61, 62, 63, call_leaf)
D8(48, 49, 50, 51, 52, 53, 54, 55, NAME(56))
D8(40, 41, 42, 43, 44, 45, 46, 47, NAME(48))
D8(32, 33, 34, 35, 36, 37, 38, 39, NAME(40))
D8(24, 25, 26, 27, 28, 29, 30, 31, NAME(32))
D8(16, 17, 18, 19, 20, 21, 22, 23, NAME(24))
D8(8, 9, 10, 11, 12, 13, 14, 15, NAME(16))
D8(0, 1, 2, 3, 4, 5, 6, 7, NAME(8))

__attribute__((noinline)) int ENTRY(int (*leaf)(void))
{
	return NAME(0)(leaf);
}
