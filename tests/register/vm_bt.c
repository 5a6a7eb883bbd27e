// SPDX-License-Identifier: GPL-2.0
/*
 * vm_bt LIBCB: for the VM tests (needs ustack.ko).  Run under the shim:
 *   sframe-register run -- ./vm_bt ./libcb.so
 * From inside a qsort() comparator (frames in libc) called by a dlopen'd
 * library called from an -O2 chain without frame pointers, compares
 * ustack_backtrace() with glibc's backtrace() frame for frame (frame 0: both
 * are return addresses into cmp(), of two different calls).  Prints
 *   bt: backtrace N ustack M differ K
 *   api: <results of ustack_register/unregister on bad input>
 * and exits 0 iff the stacks are equal.  With USTACK_SHIM_OFF=1 (nothing
 * registered) the stacks are expected to differ (the kernel falls back to
 * frame pointers, which this program does not keep).
 */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*cmp_fn)(const void *, const void *);

static int (*ubt)(void **, int);
static int done, result = 2;

static int cmp(const void *a, const void *b)
{
	if (!done) {
		void *bt[64], *us[64];
		int n = backtrace(bt, 64);
		int m = ubt(us, 64);
		int bad = 0;

		done = 1;
		if (m < 0) {
			printf("bt: ustack_backtrace failed: %s\n",
			       strerror(errno));
			result = 2;
			return 0;
		}
		for (int i = 0; i < n; i++)
			if (i >= m || (i && bt[i] != us[i]) ||
			    (!i && (uintptr_t)bt[0] - (uintptr_t)us[0] + 64 > 128))
				bad++;
		printf("bt: backtrace %d ustack %d differ %d\n", n, m, bad);
		for (int i = 0; (bad || m != n) && i < 64 && (i < n || i < m); i++)
			printf("  %2d %p %p\n", i, i < n ? bt[i] : NULL,
			       i < m ? us[i] : NULL);
		result = bad || m != n;
	}
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) int level2(int (*run)(cmp_fn))
{
	return run(cmp) + 1;
}

__attribute__((noinline)) int level1(int (*run)(cmp_fn))
{
	return level2(run) * 2;
}

int main(int argc, char **argv)
{
	void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
	int (*run)(cmp_fn) = h ? (int (*)(cmp_fn))dlsym(h, "cb_run") : NULL;
	int (*reg)(const void *, size_t, const void *, const void *);
	int (*unreg)(const void *);
	static char junk[64] = "not an sframe section";

	ubt = (int (*)(void **, int))dlsym(RTLD_DEFAULT, "ustack_backtrace");
	reg = (int (*)(const void *, size_t, const void *, const void *))
	      dlsym(RTLD_DEFAULT, "ustack_register");
	unreg = (int (*)(const void *))dlsym(RTLD_DEFAULT, "ustack_unregister");
	if (!ubt || !run || !reg || !unreg) {
		printf("setup failed (preload libsframe-register.so)\n");
		return 2;
	}
	level1(run);
	printf("api: register(junk)=%d unregister(junk)=%d\n",
	       reg(junk, sizeof(junk), (void *)main, (char *)main + 64),
	       unreg(junk));
	return result;
}
