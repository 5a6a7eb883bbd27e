// SPDX-License-Identifier: GPL-2.0
/*
 * A program that spends its time signalling itself, for sigreturn: kill()
 * of its own pid at the end of a call chain main > level1 > signal_loop,
 * a handler doing a little work, so that ticks land in rt_sigreturn (the
 * system call that ends every handler) as in any program whose handlers
 * run often: a profiler's, a runtime's.  Its own .sframe (discovery).
 *   sig_return SECONDS
 * Prints the signals handled.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t handled;
static volatile unsigned long sink;

static void on_usr1(int sig)
{
	for (int i = 0; i < 64; i++)
		sink += (unsigned long)i * sig;
	handled++;
}

/* Returns whether @end (CLOCK_MONOTONIC seconds) has passed. */
__attribute__((noinline)) static int signal_loop(time_t end, pid_t self)
{
	struct timespec ts;

	for (int i = 0; i < 256; i++)
		kill(self, SIGUSR1);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec >= end;
}

__attribute__((noinline)) static void level1(time_t end)
{
	pid_t self = getpid();

	while (!signal_loop(end, self))
		sink++;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct timespec ts;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	level1(ts.tv_sec + (argc > 1 ? atoi(argv[1]) : 2));
	printf("handled %d\n", (int)handled);
	return 0;
}
