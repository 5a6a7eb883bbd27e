// SPDX-License-Identifier: GPL-2.0
/*
 * helperwait fork LIB: a thread dlopen()s LIB (whose cache entry the
 * shim's helper takes seconds to make) while the main thread, 0.5 s
 * later, forks.  Prints how long fork() and the dlopen() took, in ms.
 *
 * helperwait eintr LIB: dlopen(LIB) under a 20 ms interval timer (a
 * profiler's SIGALRM), whose helper hangs.  Prints how long the dlopen()
 * took and how many signals came meanwhile.
 *
 * helperwait open LIB: dlopen(LIB) by path; prints "opened" or "failed".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/time.h>
#include <sys/wait.h>

static volatile sig_atomic_t ticks;

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *opener(void *lib)
{
	return dlopen(lib, RTLD_NOW);
}

static void tick(int sig)
{
	ticks++;
}

int main(int argc, char **argv)
{
	long t0, t1, t2;

	if (argc != 3)
		return 2;
	if (!strcmp(argv[1], "fork")) {
		pthread_t th;
		void *h;
		pid_t pid;

		t0 = now_ms();
		pthread_create(&th, NULL, opener, argv[2]);
		usleep(500000);
		t1 = now_ms();
		pid = fork();
		if (pid == 0)
			_exit(0);
		t2 = now_ms();
		waitpid(pid, NULL, 0);
		pthread_join(th, &h);
		printf("fork %ld ms, dlopen %ld ms%s\n", t2 - t1, now_ms() - t0,
		       h ? "" : " (failed)");
		return 0;
	}
	if (!strcmp(argv[1], "eintr")) {
		struct itimerval it = { { 0, 20000 }, { 0, 20000 } };
		struct sigaction sa;
		void *h;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = tick;
		sigaction(SIGALRM, &sa, NULL);
		setitimer(ITIMER_REAL, &it, NULL);
		t0 = now_ms();
		h = dlopen(argv[2], RTLD_NOW);
		t1 = now_ms();
		memset(&it, 0, sizeof(it));
		setitimer(ITIMER_REAL, &it, NULL);
		printf("dlopen %ld ms, %d signals%s\n", t1 - t0, (int)ticks,
		       h ? "" : " (failed)");
		return 0;
	}
	if (!strcmp(argv[1], "open")) {
		puts(dlopen(argv[2], RTLD_NOW) ? "opened" : "failed");
		return 0;
	}
	return 2;
}
