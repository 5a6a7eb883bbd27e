// SPDX-License-Identifier: GPL-2.0
/*
 * The hidden-truth corpus of the stack-scan benchmark (guess.c): call
 * chains of 12 functions chosen by a seed among four shapes, ending in
 * guess_measure().  Built with .eh_frame (backtrace() gives the truth)
 * and without frame pointers; the scan never reads the unwind info.
 *   plain     a direct call
 *   buffer    a 256-byte local buffer of data around the call
 *   pointers  locals holding function pointers and stale return
 *             addresses of earlier calls (what makes false positives)
 *   indirect  a call through a function pointer (FF /2)
 */
#include <stdint.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

void guess_measure(unsigned int seed);
static void next(int depth, unsigned int seed);

volatile uintptr_t corpus_sink;
static volatile uintptr_t stale[4];

NOINLINE void note(int i)
{
	stale[i & 3] = (uintptr_t)__builtin_return_address(0);
}

NOINLINE void corpus_prime(void)
{
	note(0); note(1); note(2); note(3);
}

NOINLINE void s_plain(int depth, unsigned int seed)
{
	next(depth - 1, seed >> 2);
	corpus_sink++;
}

NOINLINE void s_buffer(int depth, unsigned int seed)
{
	volatile char buf[256];

	memset((char *)buf, (int)seed, sizeof(buf));
	next(depth - 1, seed >> 2);
	corpus_sink += buf[seed & 255];
}

NOINLINE void s_pointers(int depth, unsigned int seed)
{
	volatile uintptr_t p[6];

	p[0] = (uintptr_t)s_plain;
	p[1] = stale[seed & 3];
	p[2] = (uintptr_t)s_buffer;
	p[3] = stale[(seed >> 1) & 3];
	p[4] = (uintptr_t)&corpus_sink;
	p[5] = seed;
	next(depth - 1, seed >> 2);
	corpus_sink += p[seed % 6] & 1;
}

static void (*volatile indirect_to)(int, unsigned int);

NOINLINE void s_indirect(int depth, unsigned int seed)
{
	indirect_to(depth - 1, seed >> 2);
	corpus_sink++;
}

static void next(int depth, unsigned int seed)
{
	if (depth <= 0) {
		guess_measure(seed);
		return;
	}
	switch (seed & 3) {
	case 0: s_plain(depth, seed); break;
	case 1: s_buffer(depth, seed); break;
	case 2: s_pointers(depth, seed); break;
	default: s_indirect(depth, seed); break;
	}
}

/* An indirect call lands on the next shape through a tiny trampoline. */
NOINLINE static void via(int depth, unsigned int seed)
{
	next(depth, seed);
}

NOINLINE void corpus_run(int depth, unsigned int seed)
{
	indirect_to = via;
	next(depth, seed);
}
