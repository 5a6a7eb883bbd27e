/* SPDX-License-Identifier: GPL-2.0 */
/*
 * interp_times.h - where an answer's time goes, for make bench's coop
 * figures (interp_times.c).  USTACK_COOP_TIMES=1 in the environment turns
 * the stamps on; off, each site costs one load and a branch.
 */
#ifndef SHIM_INTERP_TIMES_H
#define SHIM_INTERP_TIMES_H

#include <stdint.h>

/* The stages; a stage's time includes the reads made inside it. */
enum coop_stage {
	COOP_T_HANDLER,		/* the request's handler, whole */
	COOP_T_UNWIND,		/* the unwinders */
	COOP_T_SEND,		/* the answer's ioctl */
	COOP_T_READ,		/* ustack_read_mem(), every read */
	COOP_T_CACHE,		/* code-object cache: look-up and check */
	COOP_T_NAMES,		/* a code object read and its strings decoded */
	COOP_T_LINES,		/* line-table decoding */
	COOP_T_ADD,		/* a frame and its strings into the answer */
	COOP_T_NR
};

/* Counted events beside the stages. */
enum coop_count {
	COOP_C_HIT,		/* code object found in the cache, still good */
	COOP_C_MISS,		/* read and decoded */
	COOP_C_SAME,		/* seen earlier in the same answer */
	COOP_C_LINE_HIT,	/* the cached line of the same instruction */
	COOP_C_FRAMES,		/* frames answered */
	COOP_C_NR
};

extern int coop_times_on __attribute__((visibility("hidden")));

/* A cheap clock: the TSC where there is one (converted at exit). */
#if defined(__x86_64__)
static inline uint64_t coop_ticks(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}
#else
#include <time.h>
static inline uint64_t coop_ticks(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}
#endif

static inline uint64_t coop_stamp(void)
{
	if (!__builtin_expect(coop_times_on, 0))
		return 0;
	return coop_ticks();
}

/*
 * Add the time since @t0 (a coop_stamp()) to @stage; count @n events.
 * Async-signal-safe (atomic adds), any thread.
 */
void coop_times_add(enum coop_stage stage, uint64_t t0)
	__attribute__((visibility("hidden")));
void coop_times_count(enum coop_count c, uint64_t n)
	__attribute__((visibility("hidden")));
/* Read USTACK_COOP_TIMES, outside any handler; the totals at exit. */
void coop_times_init(void) __attribute__((visibility("hidden")));

#endif
