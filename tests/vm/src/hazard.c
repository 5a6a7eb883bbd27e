// SPDX-License-Identifier: GPL-2.0
/*
 * Programs for the deferred engine's hazard tests; each makes system calls
 * that the test traces (syscalls=...), so that requests fall where the
 * hazard is:
 *   hazard exec            execve(2) of /bin/true: request before, walk after
 *   hazard exit            exit_group(2): the walk can never return to user
 *   hazard fork            getppid in the parent, fork, getppid in the child
 *   hazard threads N       N threads released at once, one getppid each
 *   hazard deep DEPTH N    N getppid calls from DEPTH frames down
 *   hazard migrate N       N rounds of sched_setaffinity to the next CPU
 *                          (migrating inside the syscall) and getppid
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static pthread_barrier_t barrier;

NOINLINE static void *thread_fn(void *arg)
{
	pthread_barrier_wait(&barrier);
	syscall(SYS_getppid);
	return arg;
}

static int threads(int n)
{
	pthread_t *t = calloc(n, sizeof(*t));

	pthread_barrier_init(&barrier, NULL, n + 1);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, thread_fn, NULL)) {
			fprintf(stderr, "thread %d\n", i);
			return 1;
		}
	pthread_barrier_wait(&barrier);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}

NOINLINE int deep(int depth, long n)
{
	volatile int pad[4] = { depth };

	if (depth > 1)
		return deep(depth - 1, n) + pad[0];
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	return 0;
}

static int migrate(long n)
{
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	for (long i = 0; i < n; i++) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(i % ncpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			return 1;
		syscall(SYS_getppid);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	if (!strcmp(m, "exec")) {
		execl("/bin/true", "true", (char *)NULL);
		return 1;
	}
	if (!strcmp(m, "exit"))
		exit(0);
	if (!strcmp(m, "fork")) {
		int status;
		pid_t pid;

		syscall(SYS_getppid);
		pid = fork();
		if (pid == 0) {
			syscall(SYS_getppid);
			_exit(0);
		}
		waitpid(pid, &status, 0);
		return WEXITSTATUS(status);
	}
	if (!strcmp(m, "threads") && argc == 3)
		return threads(atoi(argv[2]));
	if (!strcmp(m, "deep") && argc == 4) {
		deep(atoi(argv[2]), atol(argv[3]));
		return 0;
	}
	if (!strcmp(m, "migrate") && argc == 3)
		return migrate(atol(argv[2]));
	fprintf(stderr, "usage: see the source\n");
	return 2;
}
