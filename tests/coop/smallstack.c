// SPDX-License-Identifier: GPL-2.0
/*
 * smallstack SECONDS: a coroutine on a 12 KB stack (a guard page below
 * it), as green threads and coroutine libraries run them, spins while the
 * shim answers requests (USTACK_COOP_TEST_HZ) with an unwinder of one
 * frame.  The answer's ~11 KB must not go on that stack: the kernel's
 * signal frame and the handler's own frames are all it has room for.
 * Prints "answers: ok" when the coroutine ran its course.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

struct ustack_interp;
typedef int (*unwinder_fn)(void *ctx, struct ustack_interp *ans);
typedef int (*add_fn)(struct ustack_interp *, const char *, const char *,
		      unsigned int);

#define STACK	(STACK_KB * 1024)
#ifndef STACK_KB
#define STACK_KB 12
#endif

static ucontext_t main_uc, co_uc;
static add_fn add;
static double seconds;
static volatile unsigned long sink;

static int one_frame(void *ctx, struct ustack_interp *ans)
{
	(void)ctx;
	return add(ans, "coroutine", "smallstack.c", 1);
}

static void coroutine(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		unsigned long i;

		for (i = 0; i < 100000; i++)
			sink += i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}

int main(int argc, char **argv)
{
	int (*reg)(const char *, unwinder_fn, void *);
	long page = sysconf(_SC_PAGESIZE);
	char *m;

	seconds = argc > 1 ? atof(argv[1]) : 1;
	reg = (int (*)(const char *, unwinder_fn, void *))
		dlsym(RTLD_DEFAULT, "ustack_register_unwinder");
	add = (add_fn)dlsym(RTLD_DEFAULT, "ustack_interp_add");
	if (!reg || !add) {
		printf("no shim\n");
		return 1;
	}
	/* -ENOSYS: no module here; the test mode asks all the same */
	reg("test", one_frame, NULL);
	m = mmap(NULL, STACK + page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || mprotect(m, page, PROT_NONE))
		return 1;
	getcontext(&co_uc);
	co_uc.uc_stack.ss_sp = m + page;
	co_uc.uc_stack.ss_size = STACK;
	co_uc.uc_link = &main_uc;
	makecontext(&co_uc, coroutine, 0);
	if (swapcontext(&main_uc, &co_uc))
		return 1;
	printf("answers: ok\n");
	return 0;
}
