// SPDX-License-Identifier: GPL-2.0
/* SFrame corpus: frame shapes gas must describe (built at several -O levels). */
#include <alloca.h>
#include <ctype.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE static int big_frame(int n)
{
	volatile char buf[100000];

	buf[n % sizeof(buf)] = (char)n;
	buf[(n * 7) % sizeof(buf)] = 1;
	return buf[n % sizeof(buf)] + buf[0];
}

NOINLINE static int huge_frame(int n)
{
	volatile char buf[3 << 20];

	buf[n % sizeof(buf)] = (char)n;
	return buf[(n * 13) % sizeof(buf)];
}

NOINLINE static int use_alloca(int n)
{
	char *p = alloca((size_t)n + 16);

	memset(p, n, (size_t)n + 16);
	sink = p[n];
	return p[n / 2];
}

NOINLINE static int use_vla(int n)
{
	int v[n + 1];

	for (int i = 0; i <= n; i++)
		v[i] = i * n;
	sink = v[n / 2];
	return v[n];
}

NOINLINE static int vla_nested(int n)
{
	double d[n + 2][n + 3];

	for (int i = 0; i < n + 2; i++)
		for (int j = 0; j < n + 3; j++)
			d[i][j] = i + j;
	return (int)d[n][n] + use_vla(n);
}

__attribute__((noreturn)) NOINLINE static void die(const char *m, int code)
{
	fprintf(stderr, "%s\n", m);
	exit(code);
}

NOINLINE static int may_die(int n)
{
	if (n < 0)
		die("negative", 3);
	if (n > 1000000)
		abort();
	return n + 1;
}

NOINLINE static int tail_b(int n);

NOINLINE static int tail_a(int n)
{
	if (n <= 0)
		return sink;
	return tail_b(n - 1);
}

NOINLINE static int tail_b(int n)
{
	sink += n;
	return tail_a(n - 2);
}

NOINLINE static int tail_libc(const char *s)
{
	return (int)strlen(s);
}

/* Many distinct PLT calls. */
NOINLINE static long plt_heavy(const char *s)
{
	char buf[256];
	long r = 0;

	snprintf(buf, sizeof(buf), "%s-%d", s, getpid());
	r += (long)strlen(buf) + strtol("42", NULL, 10) + atoi("7");
	r += toupper(buf[0]) + isdigit(buf[1]) + abs(-3) + labs(-4L);
	r += (long)(sqrt((double)r) + floor(1.5) + ceil(2.5) + fabs(-1.0));
	r += (long)strspn(buf, "abc") + (long)strcspn(buf, "-");
	r += strncmp(buf, s, 3) + memcmp(buf, s, 1) + (strchr(buf, '-') != NULL);
	r += (strrchr(buf, '-') != NULL) + (strstr(buf, s) != NULL);
	r += (long)time(NULL) % 2 + rand() % 2 + (long)clock() % 2;
	memmove(buf + 1, buf, 10);
	r += (long)strnlen(buf, 5) + (getenv("HOME") != NULL);
	puts(buf + 200 > buf ? "" : buf);
	fflush(stdout);
	return r;
}

static jmp_buf jb;

NOINLINE static void jumper(int n)
{
	if (n > 2)
		longjmp(jb, n);
	jumper(n + 1);
}

NOINLINE static int recurse(int n, int acc)
{
	if (!n)
		return acc;
	return recurse(n - 1, acc * 3 + n) + 1;
}

NOINLINE static double fp_math(double x, int n)
{
	double a[8];

	for (int i = 0; i < 8; i++)
		a[i] = x * i + sin(x + i);
	return a[n & 7] + pow(x, 1.5);
}

int main(int argc, char **argv)
{
	int r = 0;

	r += big_frame(argc) + use_alloca(argc + 20) + vla_nested(argc + 3);
	r += may_die(argc) + tail_a(10) + tail_libc(argv[0]) + recurse(10, 1);
	r += (int)plt_heavy(argv[0]) + (int)fp_math(argc, argc);
	if (argc > 5)
		r += huge_frame(argc);
	if (!setjmp(jb))
		jumper(0);
	if (argc > 10)
		die("too many", 4);
	return r & 1;
}
