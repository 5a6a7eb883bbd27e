// SPDX-License-Identifier: GPL-2.0
/*
 * A program that spends its time in the vDSO, for sframe-store-vdso:
 * clock_gettime(), gettimeofday(), getcpu() and time() in a loop at the end
 * of a call chain main > level1 > level2 > level3 > vdso_calls, built
 * without frame pointers and without SFrame.  Some vDSO functions keep a
 * frame pointer, others (getcpu, time: leaves) do not.
 *   vdso_loop SECONDS
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static volatile unsigned long sink;

/* Returns whether @end (CLOCK_MONOTONIC seconds) has passed. */
__attribute__((noinline)) static int vdso_calls(time_t end)
{
	struct timespec ts;
	struct timeval tv;
	unsigned int cpu;

	for (int i = 0; i < 256; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		gettimeofday(&tv, NULL);
		getcpu(&cpu, NULL);
		sink += ts.tv_nsec + tv.tv_usec + cpu + time(NULL);
	}
	return ts.tv_sec >= end;
}

__attribute__((noinline)) static int level3(time_t end)
{
	int r = vdso_calls(end);

	sink++;
	return r;
}

__attribute__((noinline)) static int level2(time_t end)
{
	int r = level3(end);

	sink++;
	return r;
}

__attribute__((noinline)) static int level1(time_t end)
{
	int r = level2(end);

	sink++;
	return r;
}

int main(int argc, char **argv)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += argc > 1 ? atol(argv[1]) : 10;
	while (!level1(ts.tv_sec))
		;
	return 0;
}
