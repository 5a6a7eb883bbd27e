// SPDX-License-Identifier: GPL-2.0
/* dlopen by path, then through liba (DT_RUNPATH $ORIGIN/sub: a bare name
 * that only liba's RUNPATH finds), then dlclose; prints what happened. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>

int a_load(void);

int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW);
	int (*fn)(int);

	if (!h) {
		printf("dlopen %s failed\n", argv[1]);
		return 1;
	}
	fprintf(stderr, "marker: opened by path\n");
	fn = (int (*)(int))dlsym(h, "b_func");
	printf("b_func(2) = %d\n", fn ? fn(2) : -1);
	printf("dlclose = %d\n", dlclose(h));
	printf("a_load = %d\n", a_load());
	errno = 1234;
	h = dlopen("/nonexistent/libx.so", RTLD_NOW);
	printf("missing: %s errno-kept=%d\n", h ? "loaded?" : "NULL",
	       errno == 1234 || errno == ENOENT);
	return 0;
}
