// SPDX-License-Identifier: GPL-2.0
/*
 * A workload with a known call structure for the stream tests:
 *   workload cpu SECONDS   main > run_cpu > cpu_outer > cpu_inner (spins)
 *   workload write N       main > run_write > write_one > write(2), N times
 *   workload block MS      a thread: block_thread > block_read > read(2) on
 *                          a pipe the main thread fills after MS ms
 *   workload work N        N units of work, timed (elapsed_ns=, benchmarks)
 *   workload group N K     K processes doing N units each at once, timed
 *                          as a whole (elapsed_ns=, benchmarks)
 * Built with frame pointers (workload_fp) and without, with SFrame from gas
 * (workload_sf).
 */
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

#define NOINLINE __attribute__((noinline))
#include "cpu_loop.h"

NOINLINE void write_one(int fd)
{
	if (write(fd, "x", 1) != 1)
		exit(3);
	sink++;
}

NOINLINE void run_write(long n)
{
	int fd = open("/dev/null", O_WRONLY);

	if (fd < 0)
		exit(2);
	for (long i = 0; i < n; i++)
		write_one(fd);
	close(fd);
}

static int pipefd[2];

NOINLINE void block_read(void)
{
	char c;

	if (read(pipefd[0], &c, 1) != 1)
		exit(4);
	sink++;
}

NOINLINE void *block_thread(void *arg)
{
	block_read();
	return arg;
}

NOINLINE void run_block(long ms)
{
	pthread_t t;

	if (pipe(pipefd) || pthread_create(&t, NULL, block_thread, NULL))
		exit(5);
	usleep(ms * 1000);
	if (write(pipefd[1], "x", 1) != 1)
		exit(6);
	pthread_join(t, NULL);
}

NOINLINE void work(long n)
{
	for (long i = 0; i < n; i++)
		cpu_outer(200000);
}

static struct timespec t0;

static void timer_start(void)
{
	clock_gettime(CLOCK_MONOTONIC, &t0);
}

static void timer_print(void)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(stderr, "elapsed_ns=%lld\n", (t1.tv_sec - t0.tv_sec) * 1000000000LL +
		t1.tv_nsec - t0.tv_nsec);
}

/* A fixed amount of work, timed: for benchmarks. */
NOINLINE void run_work(long n)
{
	timer_start();
	work(n);
	timer_print();
}

/* @k processes doing @n units each, started at once, timed until the last. */
NOINLINE void run_group(long n, long k)
{
	timer_start();
	for (long i = 0; i < k; i++) {
		pid_t pid = fork();

		if (pid < 0)
			exit(8);
		if (!pid) {
			work(n);
			_exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
	timer_print();
}

int main(int argc, char **argv)
{
	char go;

	/* WAIT_STDIN=1: start when a byte arrives (after a test set pid=). */
	if (getenv("WAIT_STDIN") && read(0, &go, 1) != 1)
		return 7;
	if (argc == 3 && !strcmp(argv[1], "cpu"))
		run_cpu(atof(argv[2]));
	else if (argc == 3 && !strcmp(argv[1], "write"))
		run_write(atol(argv[2]));
	else if (argc == 3 && !strcmp(argv[1], "work"))
		run_work(atol(argv[2]));
	else if (argc == 3 && !strcmp(argv[1], "block"))
		run_block(atol(argv[2]));
	else if (argc == 4 && !strcmp(argv[1], "group"))
		run_group(atol(argv[2]), atol(argv[3]));
	else {
		fprintf(stderr, "usage: workload cpu SECS | write N | block MS | work N | group N K\n");
		return 1;
	}
	return 0;
}
