// SPDX-License-Identifier: GPL-2.0
/*
 * fakepy: a program that looks like CPython 3.11 to the shim (it exports
 * Py_Version, PyGILState_GetThisThreadState and PyCode_Type; build with
 * -rdynamic) and hands the unwinder a frame chain that another thread
 * tears all the time: pointers to nothing, to PROT_NONE pages, past the
 * end of a file mapping (SIGBUS), into a mapping being unmapped and
 * mapped again, to kernel and non-canonical addresses, misaligned, loops,
 * huge string and line table lengths.  Run under the shim with
 * USTACK_COOP_TEST_HZ: every answer must come (a short stack), none may
 * crash the program.
 *   fakepy hostile SECONDS   tear the chain; prints "answers: ok"
 *   fakepy chain SECONDS     also install a SIGSEGV handler of its own
 *                            after the shim's and fault on purpose,
 *                            before and after tearing: its handler runs
 *   fakepy default           fault with no handler of its own: the
 *                            program must die of SIGSEGV
 * The layout written is 3.11's (interp_pylayout.c's py311).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* What the shim looks up (dlsym in the executable: -rdynamic). */
#ifndef FAKE_VERSION
#define FAKE_VERSION 0x030b02f0	/* 3.11.2 final */
#endif
const unsigned long Py_Version = FAKE_VERSION;
char PyCode_Type[416];

#define NFRAMES	48
#define NCODES	6

static unsigned char tstate[128], cframe[32];
static unsigned char frames[NFRAMES][80];
static unsigned char codes[NCODES][256];
static unsigned char strs[2 * NCODES][96];
static unsigned char tables[NCODES][64];
static volatile uintptr_t tstate_ptr;

void *PyGILState_GetThisThreadState(void)
{
	return (void *)tstate_ptr;
}

static void put64(unsigned char *b, int off, uint64_t v)
{
	memcpy(b + off, &v, sizeof(v));
}

static void make_str(unsigned char *s, const char *text)
{
	memset(s, 0, 96);
	put64(s, 8, 1);			/* ob_type: anything */
	put64(s, 16, strlen(text));	/* length */
	put64(s, 24, (uint64_t)-1);	/* hash */
	put64(s, 32, 0x64);		/* compact, ascii, kind 1 */
	memcpy(s + 48, text, strlen(text));
}

/* A valid chain: frame i runs code i % NCODES, named fake_<i % NCODES>. */
static void build(void)
{
	char name[32];
	int i;

	for (i = 0; i < NCODES; i++) {
		memset(codes[i], 0, sizeof(codes[i]));
		put64(codes[i], 8, (uintptr_t)PyCode_Type);
		put64(codes[i], 72, 10 + i);			/* firstlineno */
		snprintf(name, sizeof(name), "fake_%d", i);
		make_str(strs[2 * i], name);
		make_str(strs[2 * i + 1], "fakepy.py");
		put64(codes[i], 112, (uintptr_t)strs[2 * i + 1]);
		put64(codes[i], 128, (uintptr_t)strs[2 * i]);
		put64(codes[i], 136, (uintptr_t)tables[i]);
		memset(tables[i], 0, sizeof(tables[i]));
		put64(tables[i], 16, 2);			/* ob_size */
		tables[i][32] = 0x80 | (13 << 3) | 7;		/* 8 units, line +1 */
		tables[i][33] = 2;
	}
	for (i = 0; i < NFRAMES; i++) {
		memset(frames[i], 0, sizeof(frames[i]));
		put64(frames[i], 32, (uintptr_t)codes[i % NCODES]);
		put64(frames[i], 48, i + 1 < NFRAMES ? (uintptr_t)frames[i + 1] : 0);
		put64(frames[i], 56, (uintptr_t)codes[i % NCODES] + 184 + 2);
		frames[i][68] = i % 7 == 0;
	}
	put64(cframe, 8, (uintptr_t)frames[0]);
	put64(tstate, 56, (uintptr_t)cframe);
	tstate_ptr = (uintptr_t)tstate;
}

/* ---- the hostile values ------------------------------------------------- */

static unsigned char *noaccess, *edge, *busfile;
static unsigned char *volatile flicker;
static volatile int stop;

static uintptr_t hostile(unsigned int r)
{
	switch (r % 14) {
	case 0: return 0;
	case 1: return 0xdead;
	case 2: return (uintptr_t)noaccess + (r >> 8) % 4096;
	case 3: return (uintptr_t)edge + 4096 - 8;		/* then PROT_NONE */
	case 4: return (uintptr_t)busfile + 4096 + 16;		/* past EOF */
	case 5: return (uintptr_t)flicker;			/* unmapped at times */
	case 6: return 0xffffffff81000000ul;
	case 7: return 0x8000000000000000ul;
	case 8: return (uintptr_t)frames[r % NFRAMES] + 3;	/* misaligned */
	case 9: return (uintptr_t)frames[0];			/* a loop */
	case 10: return (1ul << 40) + r;
	case 11: return (uintptr_t)-1;
	case 12: return (uintptr_t)codes[r % NCODES] + 100;	/* inside one */
	default: return ((uint64_t)r << 20) ^ 0x7f0000000000ul;
	}
}

/* Slots to tear: any 8-byte word of the chain's objects. */
static uint64_t *slot(unsigned int r)
{
	switch (r % 6) {
	case 0: return (uint64_t *)(frames[r / 6 % NFRAMES] + 8 * (r / 7 % 10));
	case 1: return (uint64_t *)(codes[r / 6 % NCODES] + 8 * (r / 7 % 32));
	case 2: return (uint64_t *)(strs[r / 6 % (2 * NCODES)] + 8 * (r / 7 % 12));
	case 3: return (uint64_t *)(tables[r / 6 % NCODES] + 8 * (r / 7 % 8));
	case 4: return (uint64_t *)(cframe + 8);
	default: return (uint64_t *)(tstate + 56);
	}
}

static void *tear(void *arg)
{
	unsigned int r = 12345;

	(void)arg;
	while (!stop) {
		int k, n = 1 + r % 4;
		uint64_t *s[4], old[4];

		for (k = 0; k < n; k++) {
			r = r * 1103515245 + 12345;
			s[k] = slot(r >> 4);
			old[k] = *s[k];
			r = r * 1103515245 + 12345;
			*s[k] = r % 3 ? hostile(r >> 3) : (r >> 5) * 0x9e3779b97f4a7c15ull;
		}
		if (r % 11 == 0)
			tstate_ptr = hostile(r >> 7);
		for (volatile int spin = 0; spin < 2000; spin++)
			;
		for (k = n - 1; k >= 0; k--)
			*s[k] = old[k];
		tstate_ptr = (uintptr_t)tstate;
	}
	return NULL;
}

/* A mapping that comes and goes, pointed to by the chain at times. */
static void *flick(void *arg)
{
	(void)arg;
	while (!stop) {
		unsigned char *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			continue;
		memcpy(m, frames[0], 80);
		flicker = m;
		usleep(100);
		flicker = (unsigned char *)0x10;
		munmap(m, 8192);
	}
	return NULL;
}

static void maps(void)
{
	char path[] = "/tmp/fakepy.XXXXXX";
	int fd = mkstemp(path);

	noaccess = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	edge = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mprotect(edge + 4096, 4096, PROT_NONE);
	/* A file of one page mapped as two: the second gives SIGBUS. */
	if (fd < 0 || ftruncate(fd, 4096))
		exit(2);
	busfile = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
	unlink(path);
	close(fd);
	if (noaccess == MAP_FAILED || edge == MAP_FAILED || busfile == MAP_FAILED)
		exit(2);
}

/* ---- faults of the program's own ---------------------------------------- */

static sigjmp_buf own_jmp;
static volatile int own_ran;

static void own_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	own_ran++;
	siglongjmp(own_jmp, 1);
}

/* Fault on purpose; 1 when the program's own handler caught it. */
static int own_fault(void)
{
	int before = own_ran;

	if (!sigsetjmp(own_jmp, 1))
		*(volatile int *)0x10 = 1;
	return own_ran == before + 1;
}

static void burn(double secs)
{
	struct timespec t0, t;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			x += i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
}

int main(int argc, char **argv)
{
	double secs = argc > 2 ? atof(argv[2]) : 2;
	pthread_t a, b;

	if (argc < 2)
		return 2;
	setvbuf(stdout, NULL, _IONBF, 0);
	build();
	maps();
	if (!strcmp(argv[1], "default")) {
		burn(0.2);
		*(volatile int *)0x10 = 1;
		return 0;	/* not reached */
	}
	if (!strcmp(argv[1], "chain")) {
		struct sigaction sa;

		burn(secs / 4);		/* answers with the guard alone */
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = own_handler;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGSEGV, &sa, NULL);
		printf("own handler before: %s\n", own_fault() ? "ran" : "did not run");
	}
	pthread_create(&a, NULL, tear, NULL);
	pthread_create(&b, NULL, flick, NULL);
	burn(secs);
	stop = 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	if (!strcmp(argv[1], "chain"))
		printf("own handler after: %s\n", own_fault() ? "ran" : "did not run");
	printf("answers: ok\n");
	return 0;
}
