// SPDX-License-Identifier: GPL-2.0
/*
 * thread_loop SECS: create a thread and join it, over and over, for SECS
 * seconds (clone-return: stacks sampled on the return from clone3, in the
 * creator and in the new thread).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void *noop(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 1);
	unsigned long n = 0;
	pthread_t t;

	while (time(NULL) < end)
		for (int i = 0; i < 64; i++, n++)
			if (pthread_create(&t, NULL, noop, NULL) ||
			    pthread_join(t, NULL))
				return 1;
	printf("%lu threads\n", n);
	return 0;
}
