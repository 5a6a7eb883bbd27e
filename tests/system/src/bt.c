// SPDX-License-Identifier: GPL-2.0
/*
 * ustack_backtrace() as a user would call it (built in the guest against
 * the installed ustack.h and -lsframe-register): its frames are glibc's
 * backtrace(3)'s, from the caller up through main to libc's start.
 */
#include <execinfo.h>
#include <stdio.h>
#include <ustack.h>

#define MAX 64

static int __attribute__((noinline)) leaf(int d)
{
	void *k[MAX], *g[MAX];
	int n = ustack_backtrace(k, MAX), m = backtrace(g, MAX), i;

	if (n < 0) {
		perror("ustack_backtrace");
		return 1;
	}
	printf("ustack_backtrace: %d frames, backtrace(3): %d\n", n, m);
	for (i = 0; i < n && i < m; i++)
		if (k[i] != g[i])
			break;
	printf("the first %d agree\n", i);
	return (i >= 3 && i >= m - 1) ? 0 : 1;
}

static int __attribute__((noinline)) mid(int d)
{
	return d ? mid(d - 1) + 0 * d : leaf(d);
}

int main(void)
{
	return mid(3);
}
