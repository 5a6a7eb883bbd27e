// SPDX-License-Identifier: GPL-2.0
/*
 * The stack scan's guest program (guess-*.sh), built with no unwind
 * tables and no frame pointers, and its .eh_frame stripped (Makefile):
 * no rule covers any of its PCs, so only a scan finds its callers.
 *   guess_prog chain SECONDS   main > g_top > g_mid > g_leaf, spinning
 *   guess_prog stale SECONDS   main > s_top > s_leaf > s_spin, s_leaf
 *                              holding real return addresses of s_decoy's
 *                              calls of s_leaf, stale, in a dead local
 *                              array
 * rbp is 0 from main on (the psABI's outermost mark), as code without
 * frame pointers may leave it, so that no frame-pointer walk of garbage
 * makes frames of its own.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_loop.h"

#define NSTALE	8

static volatile uintptr_t stale[NSTALE];
static int nstale;

NOINLINE void g_leaf(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 7;
}

NOINLINE void g_mid(unsigned long n)
{
	while (!cpu_done)
		g_leaf(n);
	sink++;
}

NOINLINE void g_top(unsigned long n)
{
	g_mid(n);
	sink++;
}

NOINLINE void s_spin(unsigned long n)
{
	while (!cpu_done)
		for (unsigned long i = 0; i < n; i++)
			sink += i * 7;
}

/*
 * Not a leaf: its locals lie above the stack pointer, not in the red
 * zone.  With n 0 it only notes where it returns to: s_decoy's calls of
 * it, as real as s_top's and of the same target, so that the scan cannot
 * tell the stale ones from the live one.
 */
NOINLINE void s_leaf(unsigned long n)
{
	volatile uintptr_t dead[NSTALE];

	if (!n) {
		if (nstale < NSTALE)
			stale[nstale++] = (uintptr_t)__builtin_return_address(0);
		return;
	}
	for (int i = 0; i < NSTALE; i++)
		dead[i] = stale[i];
	s_spin(n);
	sink += dead[0] & 0;
}

/* After s_leaf: its calls of s_leaf also fit a frame in s_decoy. */
NOINLINE void s_decoy(void)
{
	s_leaf(0); s_leaf(0); s_leaf(0); s_leaf(0);
	s_leaf(0); s_leaf(0); s_leaf(0); s_leaf(0);
}

NOINLINE void s_top(unsigned long n)
{
	s_leaf(n);
	sink++;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	cpu_alarm(atof(argv[2]));
	/* saved and restored around main's body: callers see their own */
	__asm__ volatile("xor %%ebp, %%ebp" ::: "rbp");
	if (!strcmp(argv[1], "chain"))
		g_top(100000);
	else if (!strcmp(argv[1], "stale")) {
		s_decoy();
		s_top(100000);
	} else {
		return 2;
	}
	return 0;
}
