// SPDX-License-Identifier: GPL-2.0
#include <dlfcn.h>

/* A bare name: found only through this library's DT_RUNPATH. */
int a_load(void)
{
	void *h = dlopen("libb.so", RTLD_NOW);
	int (*fn)(int);
	int r;

	if (!h)
		return -1;
	fn = (int (*)(int))dlsym(h, "b_func");
	r = fn ? fn(20) : -2;
	dlclose(h);
	return r;
}
