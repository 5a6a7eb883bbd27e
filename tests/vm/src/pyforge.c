// SPDX-License-Identifier: GPL-2.0
/*
 * pyforge SECS: a program that says it is CPython 3.11 (it exports
 * _PyRuntime, PyCode_Type and Py_Version, so ustackd registers the 3.11
 * layout for it) and forges the runtime state the kernel reads, a new
 * forgery every SECS/4 seconds while it spins on the CPU:
 *   tloop  a thread list that is a cycle, no thread of its id in it;
 *   floop  its own thread, whose frame chain is a cycle of one frame,
 *          whose code object's name is a str of 2^40 bytes and whose
 *          file name and line table point into the kernel;
 *   kptr   the interpreter list's head a kernel address;
 *   wild   every pointer to an unmapped page.
 * The kpython-hostile test counts what the kernel made of it.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

unsigned long Py_Version = 0x030b02f0;
uint64_t PyCode_Type[32];
uint64_t _PyRuntime[64];

static uint64_t interp[8], ts[2][32], cframe[4], frame[16], code[64], str[16];

#define KADDR	0xffffffff81000000ULL
#define WILD	0x10000ULL	/* below mmap_min_addr: never mapped */

static void forge(int mode)
{
	memset(_PyRuntime, 0, sizeof(_PyRuntime));
	_PyRuntime[40 / 8] = (uintptr_t)interp;
	interp[16 / 8] = (uintptr_t)ts[0];
	ts[0][8 / 8] = (uintptr_t)ts[1];
	ts[1][8 / 8] = (uintptr_t)ts[0];
	ts[0][160 / 8] = ts[1][160 / 8] = 1;	/* never our tid (pid 1's) */
	if (mode == 1) {
		ts[0][160 / 8] = gettid();
		ts[0][56 / 8] = (uintptr_t)cframe;
		cframe[8 / 8] = (uintptr_t)frame;
		frame[32 / 8] = (uintptr_t)code;
		frame[48 / 8] = (uintptr_t)frame;	/* previous: itself */
		frame[56 / 8] = (uintptr_t)code + 184;
		code[8 / 8] = (uintptr_t)PyCode_Type;
		code[128 / 8] = (uintptr_t)str;		/* qualname */
		code[112 / 8] = KADDR;			/* filename */
		code[136 / 8] = KADDR;			/* linetable */
		str[16 / 8] = 1ULL << 40;		/* length */
		str[32 / 8] = 1 << 5 | 1 << 6;		/* compact ASCII */
	} else if (mode == 2) {
		_PyRuntime[40 / 8] = KADDR;
	} else if (mode == 3) {
		_PyRuntime[40 / 8] = WILD;
	}
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 4;
	struct timespec t0, t;
	volatile uint64_t spin = 0;
	int mode = -1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		double d;

		clock_gettime(CLOCK_MONOTONIC, &t);
		d = t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9;
		if (d >= secs)
			break;
		if ((int)(d * 4 / secs) != mode) {
			mode = (int)(d * 4 / secs);
			forge(mode);
		}
		for (int i = 0; i < 100000; i++)
			spin += i;
	}
	printf("pyforge: done\n");
	return 0;
}
