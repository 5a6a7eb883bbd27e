// SPDX-License-Identifier: GPL-2.0
/*
 * A workload with a known call structure for the stream tests:
 *   workload cpu SECONDS   main > run_cpu > cpu_outer > cpu_inner (spins)
 *   workload write N       main > run_write > write_one > write(2), N times
 *   workload block MS      a thread: block_thread > block_read > read(2) on
 *                          a pipe the main thread fills after MS ms
 * Built with frame pointers (workload_fp) and without, with SFrame from gas
 * (workload_sf).
 */
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
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

/* A fixed amount of work, timed: for benchmarks. */
NOINLINE void run_work(long n)
{
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++)
		cpu_outer(200000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(stderr, "elapsed_ns=%lld\n", (t1.tv_sec - t0.tv_sec) * 1000000000LL +
		t1.tv_nsec - t0.tv_nsec);
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
	else {
		fprintf(stderr, "usage: workload cpu SECS | write N | block MS\n");
		return 1;
	}
	return 0;
}
