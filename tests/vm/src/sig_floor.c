// SPDX-License-Identifier: GPL-2.0
/*
 * sig_floor N: the least a cooperative answer can cost, for make bench's
 * coop figures.  An answer is a signal the kernel delivers at the return
 * to user space, a handler that makes one system call (the answer) and a
 * sigreturn.  Here raise() stands in for the kernel's send (one system
 * call more, measured apart and taken off): N signals whose handler makes
 * one getppid() each, against N bare getppid() calls, in the process's
 * CPU time.  Prints "syscall_ns=S signal_ns=T floor_ns=T-S".
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile long sink;

static void on_signal(int sig)
{
	sink += syscall(SYS_getppid) + sig;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 0;
	double t0, sys_ns, sig_ns;

	if (n <= 0) {
		fprintf(stderr, "usage: sig_floor N\n");
		return 2;
	}
	if (signal(SIGUSR1, on_signal) == SIG_ERR)
		return 1;
	t0 = now_ns();
	for (i = 0; i < n; i++)
		sink += syscall(SYS_getppid);
	sys_ns = (now_ns() - t0) / n;
	t0 = now_ns();
	for (i = 0; i < n; i++)
		raise(SIGUSR1);
	sig_ns = (now_ns() - t0) / n;
	printf("syscall_ns=%.0f signal_ns=%.0f floor_ns=%.0f\n", sys_ns, sig_ns, sig_ns - sys_ns);
	return 0;
}
