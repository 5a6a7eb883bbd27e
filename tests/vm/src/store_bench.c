// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel self-walk (SFRAME_IOC_SELF_STACK) per frame over a 64-frame
 * stack, its SFrame found through the system-wide store (store_bench: no
 * SFrame, no frame pointers; the caller adds its store entry first) or
 * through ELF discovery in user memory (store_bench_sf: gas --gsframe).
 * With the module's rule_cache=0 every frame is looked up; otherwise the
 * walks after the first two take their rules from the rule cache.
 *   store_bench NAME   "bench kwalk_NAME_per_frame X ns"; fails unless
 *                      every frame but the first is SFrame's
 * A NAME ending in "_turns": on CPU 1 with a copy of itself (forked, its
 * own mm) that walks the same chain, the two taking turns walk by walk
 * (sched_yield()), so that each walk follows the other process's.
 */
#include "sframe_common.h"
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#define DEPTH 64
#define REPS 1000

static double t_k1, t_kn;
static uint8_t methods[DEPTH + 16];
static int nk, turns;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static NOINLINE void measure(void)
{
	uint64_t ips[DEPTH + 16];
	unsigned int end;
	double t;
	int i;

	t_k1 = 0;
	t_kn = 0;
	for (i = 0; i < REPS; i++) {
		if (turns)
			sched_yield();
		t = now();
		self_stack(ips, NULL, 1, &end);
		t_k1 += now() - t;
	}
	for (i = 0; i < REPS; i++) {
		if (turns)
			sched_yield();
		t = now();
		nk = self_stack(ips, methods, DEPTH + 16, &end);
		t_kn += now() - t;
	}
	t_k1 /= REPS;
	t_kn /= REPS;
}

static NOINLINE int chain(int d)
{
	volatile char pad[32];

	pad[0] = (char)d;
	if (d > 0)
		return chain(d - 1) + pad[0] - (char)d;
	measure();
	return 0;
}

int main(int argc, char **argv)
{
	int i;

	size_t n;
	pid_t peer = 0;
	cpu_set_t one;

	if (argc != 2)
		die("usage: store_bench NAME");
	sf_open();
	n = strlen(argv[1]);
	turns = n > 6 && !strcmp(argv[1] + n - 6, "_turns");
	if (turns) {
		CPU_ZERO(&one);
		CPU_SET(1, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			die("CPU 1");
		peer = fork();
		if (peer < 0)
			die("fork");
		if (!peer)
			for (;;)
				chain(DEPTH);
	}
	chain(DEPTH);
	if (peer)
		kill(peer, SIGKILL);
	if (nk < DEPTH)
		die("%d frames", nk);
	for (i = 1; i < DEPTH; i++)
		if (methods[i] != USTACK_METHOD_SFRAME)
			die("frame %d: method %u", i, methods[i]);
	printf("frames: %d\n", nk);
	printf("bench kwalk_%s_per_frame %.1f ns\n", argv[1],
	       (t_kn - t_k1) / (nk - 1));
	return 0;
}
