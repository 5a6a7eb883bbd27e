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

/*
 * Both from one call site, at each level: each puts its caller's return
 * address first, and two calls from leaf() would return to two
 * addresses.  The barrier after the call keeps it from being a tail
 * call; the volatile count keeps leaf()'s loop from being unrolled into
 * two calls.
 */
static int __attribute__((noinline)) take(int (*fn)(void **, int), void **b)
{
	int n = fn(b, MAX);

	__asm__ volatile("" ::: "memory");
	return n;
}

static int __attribute__((noinline)) leaf(void)
{
	void *k[MAX], *g[MAX], **bufs[2] = { k, g };
	int (*const fns[2])(void **, int) = { ustack_backtrace, backtrace };
	int got[2], n, m, i;

	for (volatile int j = 0; j < 2; j++)
		got[j] = take(fns[j], bufs[j]);
	n = got[0];
	m = got[1];
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
	return d ? mid(d - 1) + 0 * d : leaf();
}

int main(void)
{
	return mid(3);
}
