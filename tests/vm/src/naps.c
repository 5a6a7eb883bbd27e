// SPDX-License-Identifier: GPL-2.0
/*
 * naps THREADS SECONDS: THREADS threads that each go off CPU again and
 * again, for naps of 1, 7, 60 and 400 ms in turn, with a little work in
 * between, for SECONDS (0: until killed).  Under offcpu=1 each nap is a
 * request whose walk waits for the wake-up: at any moment some of the
 * threads owe a walk, and some will wake only after whatever the kernel
 * does meanwhile (an unload, say).  The threads start when a byte arrives
 * on standard input (after a test set pid=).  Prints "naps=N" at the end.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static const long nap_ns[] = { 1000000, 7000000, 60000000, 400000000 };
static volatile unsigned long sink;
static unsigned long naps[256];
static time_t until;

static void *napper(void *arg)
{
	unsigned long id = (unsigned long)arg, i;
	struct timespec ts;

	/* at least one nap each: a thread started late (a loaded host) too */
	i = id;
	do {
		unsigned long j;

		for (j = 0; j < 20000; j++)
			sink += j ^ i;
		ts.tv_sec = 0;
		ts.tv_nsec = nap_ns[i % 4];
		nanosleep(&ts, NULL);
		naps[id]++;
		i++;
	} while (!until || time(NULL) < until);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[256];
	unsigned long i, n, total = 0;
	long secs;
	char go;

	if (argc != 3) {
		fprintf(stderr, "usage: naps THREADS SECONDS\n");
		return 2;
	}
	n = strtoul(argv[1], NULL, 0);
	secs = strtol(argv[2], NULL, 0);
	if (n < 1 || n > 256 || secs < 0)
		return 2;
	if (read(0, &go, 1) != 1)
		return 1;
	if (secs)
		until = time(NULL) + secs;
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, napper, (void *)i))
			return 1;
	for (i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		total += naps[i];
	}
	printf("naps=%lu\n", total);
	return 0;
}
