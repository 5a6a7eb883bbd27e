// SPDX-License-Identifier: GPL-2.0
/* A user's program: spins for argv[1] seconds in a few nested calls. */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static void __attribute__((noinline)) inner(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

static void __attribute__((noinline)) outer(int k)
{
	for (int i = 0; i < k; i++)
		inner(100000 + i);
}

int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 5);

	while (time(NULL) < end)
		outer(50);
	return 0;
}
