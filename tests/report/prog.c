/* Test program for ustack-report: known functions, no frame pointers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int lib_func(int x);

__attribute__((noinline)) static int leaf(int x)
{
	volatile int v = x;

	for (int i = 0; i < 10; i++)
		v = v * 3 + i;
	return v;
}

__attribute__((noinline)) int middle(int x)
{
	return leaf(x + 1) + 1;
}

__attribute__((noinline)) int outer(int x)
{
	return middle(x * 2) + lib_func(x) + 2;
}

int main(int argc, char **argv)
{
	/* "wait": stay mapped for a test that reads /proc/PID/maps */
	if (argc == 2 && !strcmp(argv[1], "wait"))
		pause();
	/* "spin N": N calls, for a test that records it with perf */
	if (argc == 3 && !strcmp(argv[1], "spin")) {
		long n = atol(argv[2]), sum = 0;

		for (long i = 0; i < n; i++)
			sum += outer(i);
		printf("%ld\n", sum);
		return 0;
	}
	printf("%d\n", outer(argc));
	return 0;
}
