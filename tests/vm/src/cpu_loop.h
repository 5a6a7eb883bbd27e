/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CPU-bound loop the sampling tests look for in stacks, shared by the
 * guest programs that include it (one .c file each):
 *   run_cpu(SECONDS) > cpu_outer > cpu_inner
 * run_cpu() spins until a SIGALRM that cpu_alarm(SECONDS) arms; there are
 * no clock reads in the loop, since under QEMU TCG they attract samples.
 */
#ifndef CPU_LOOP_H
#define CPU_LOOP_H

#include <signal.h>
#include <sys/time.h>

#ifndef NOINLINE
#define NOINLINE __attribute__((noinline))
#endif

static volatile unsigned long sink;
static volatile sig_atomic_t cpu_done;

NOINLINE void cpu_inner(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 7;
}

NOINLINE void cpu_outer(unsigned long n)
{
	cpu_inner(n);
	sink++;
}

static void cpu_on_alarm(int sig)
{
	cpu_done = sig;
}

/* cpu_done becomes nonzero SECONDS from now. */
static void cpu_alarm(double secs)
{
	struct itimerval it = { .it_value = {
		.tv_sec = (long)secs,
		.tv_usec = (long)((secs - (long)secs) * 1e6),
	} };

	signal(SIGALRM, cpu_on_alarm);
	setitimer(ITIMER_REAL, &it, NULL);
}

NOINLINE void run_cpu(double secs)
{
	cpu_alarm(secs);
	while (!cpu_done)
		cpu_outer(200000);
}

#endif /* CPU_LOOP_H */
