// SPDX-License-Identifier: GPL-2.0
/* Corpus for tests/register: varied frames (SP- and FP-based CFA, alloca,
 * varargs, recursion, big frames, tail calls, PLT calls into libc). */
#include <alloca.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile int sink;

__attribute__((noinline)) int leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int recurse(int n)
{
	if (n <= 0)
		return leaf(n);
	return recurse(n - 1) + n;
}

__attribute__((noinline)) int with_alloca(int n)
{
	char *p = alloca(n + 16);

	memset(p, n, n + 16);
	return p[n / 2] + leaf(n);
}

__attribute__((noinline)) int sum_va(int n, ...)
{
	va_list ap;
	int s = 0;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}

__attribute__((noinline)) int big_frame(int n)
{
	volatile char buf[70000];

	buf[n] = (char)n;
	buf[69999] = 1;
	return buf[n] + buf[69999] + leaf(n);
}

__attribute__((noinline)) int many_regs(int a, int b, int c, int d)
{
	int r = 0;

	for (int i = 0; i < a; i++)
		r += recurse(b + i) * c - leaf(d + r);
	return r;
}

__attribute__((noinline, noreturn)) void die(const char *m)
{
	fprintf(stderr, "%s\n", m);
	exit(3);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5;
	char *s = malloc(64);

	if (!s)
		die("oom");
	snprintf(s, 64, "%d", n);
	sink = recurse(n) + with_alloca(n) + sum_va(3, 1, 2, n) +
	       big_frame(n) + many_regs(n, 2, 3, 4) + (int)strlen(s);
	printf("result %d\n", sink);
	free(s);
	return 0;
}
