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
 */
#include "sframe_common.h"
#include <time.h>

#define DEPTH 64
#define REPS 1000

static double t_k1, t_kn;
static uint8_t methods[DEPTH + 16];
static int nk;

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

	t = now();
	for (i = 0; i < REPS; i++)
		self_stack(ips, NULL, 1, &end);
	t_k1 = (now() - t) / REPS;
	t = now();
	for (i = 0; i < REPS; i++)
		nk = self_stack(ips, methods, DEPTH + 16, &end);
	t_kn = (now() - t) / REPS;
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

	if (argc != 2)
		die("usage: store_bench NAME");
	sf_open();
	chain(DEPTH);
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
