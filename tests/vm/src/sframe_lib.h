/* SPDX-License-Identifier: GPL-2.0 */
/* The dlopen'ed library of the walk test (built with -shared). */
#include <stdint.h>

__attribute__((visibility("default"), noinline))
int sframe_lib_call(int (*cb)(int, unsigned int), int d, unsigned int s)
{
	volatile char pad[40];
	int r;

	pad[0] = (char)d;
	r = cb(d, s);
	return r + pad[0] - (char)d;
}
