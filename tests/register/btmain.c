// SPDX-License-Identifier: GPL-2.0
/*
 * btmain: compare glibc's backtrace() with a walk over the shim's
 * registrations (fakedev_walk), frame for frame (frame 0: both in cmp()), from inside a qsort()
 * comparator (frames in libc) called from a dlopen'd library's function
 * (libcb.so, by path) called from an -O2 chain without frame pointers.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int (*walk)(uint64_t *, int, int *);
static int done, result = 2;

static int cmp(const void *a, const void *b)
{
	if (!done) {
		void *bt[64];
		uint64_t w[64];
		int end, n = backtrace(bt, 64);
		int m = walk(w, 64, &end);
		int bad = 0;

		done = 1;
		/* frame 0: the return addresses of two calls in cmp() */
		for (int i = 0; i < n; i++)
			if (i + 1 >= m ||
			    (i && (uint64_t)(uintptr_t)bt[i] != w[i + 1]) ||
			    (!i && (uint64_t)(uintptr_t)bt[0] - w[1] + 64 > 128))
				bad++;
		printf("backtrace %d frames, walk %d (end %d), %d differ%s\n", n,
		       m - 1, end, bad, m - 1 == n ? "" : ", length differs");
		if (bad || m - 1 != n)
			for (int i = 0; i < 64 && (i < n || i + 1 < m); i++)
				fprintf(stderr, "%2d %p %#lx\n", i,
					i < n ? bt[i] : NULL,
					i + 1 < m ? (unsigned long)w[i + 1] : 0ul);
		result = bad || m - 1 != n;
	}
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) int level2(int (*run)(int (*)(const void *, const void *)))
{
	return run(cmp) + 1;
}

__attribute__((noinline)) int level1(int (*run)(int (*)(const void *, const void *)))
{
	return level2(run) * 2;
}

int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW);
	int (*run)(int (*)(const void *, const void *));
	int (*count)(void);

	walk = (int (*)(uint64_t *, int, int *))dlsym(RTLD_DEFAULT, "fakedev_walk");
	count = (int (*)(void))dlsym(RTLD_DEFAULT, "fakedev_count");
	run = h ? (int (*)(int (*)(const void *, const void *)))dlsym(h, "cb_run") : NULL;
	if (!walk || !run || !count) {
		printf("setup failed\n");
		return 2;
	}
	printf("registrations %d\n", count());
	level1(run);
	return result;
}
