// SPDX-License-Identifier: GPL-2.0
/*
 * first-sample's shared library (libfirst.so), built without frame
 * pointers: first_prog's hot loop runs through it, so that its stacks
 * cross a library ustackd has never seen as well as the program.
 */
#define NOINLINE __attribute__((noinline))

typedef long (*first_cb)(long);

/* Work after the call: no sibling call drops this frame. */
NOINLINE static long lib_step(first_cb cb, long n, int i)
{
	long r = cb(n * 8 + i);

	return r ^ (r >> 3);
}

NOINLINE long first_lib_work(first_cb cb, long n)
{
	long s = 0;

	for (int i = 0; i < 8; i++)
		s += lib_step(cb, n, i);
	return s;
}
