// SPDX-License-Identifier: GPL-2.0
/*
 * ustack_backtrace() is async-signal-safe.
 *
 * asyncsafe altstack: call it from a SIGUSR1 handler running on an 8 KiB
 * alternate signal stack (SIGSTKSZ) with an inaccessible page below it;
 * prints "altstack: N, M" (the two calls' results) if nothing faulted.
 *
 * asyncsafe nomalloc LIB: dlopen LIB by its bare name (the shim registers
 * such objects later, not in dlopen), then call ustack_backtrace() and
 * count the malloc family calls it makes: "nomalloc: K calls".  Markers on
 * stderr bracket the call for the shim's debug log.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "ustack.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static volatile int counting, calls;

void *malloc(size_t n)
{
	calls += counting;
	return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
	calls += counting;
	return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
	calls += counting;
	return __libc_realloc(p, n);
}

void free(void *p)
{
	__libc_free(p);
}

static void *big[1024];
static int r1, r2;

static void handler(int sig)
{
	void *small[16];

	r1 = ustack_backtrace(big, 1024);
	r2 = ustack_backtrace(small, 16);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "altstack")) {
		long pg = sysconf(_SC_PAGESIZE);
		char *m = mmap(NULL, pg + 8192, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		stack_t ss = { .ss_sp = m + pg, .ss_size = 8192 };
		struct sigaction sa;

		if (m == MAP_FAILED || mprotect(m, pg, PROT_NONE) ||
		    sigaltstack(&ss, NULL))
			return 2;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = handler;
		sa.sa_flags = SA_ONSTACK;
		sigaction(SIGUSR1, &sa, NULL);
		raise(SIGUSR1);
		printf("altstack: %d, %d\n", r1, r2);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "nomalloc")) {
		void *buf[16];

		if (!dlopen(argv[2], RTLD_NOW))
			return 2;
		fprintf(stderr, "marker: before\n");
		counting = 1;
		ustack_backtrace(buf, 16);
		counting = 0;
		fprintf(stderr, "marker: after\n");
		printf("nomalloc: %d calls\n", calls);
		return 0;
	}
	return 2;
}
