// SPDX-License-Identifier: GPL-2.0
/*
 * An unprivileged user attacking shared resources, for the VM tests
 * (hostile-*.sh).  Drops to uid/gid 65534 first.
 *   hostile flood SECS       SFRAME_IOC_SELF_STACK in a loop on every CPU:
 *                            prints how many it made
 *   hostile pool N SECS      N threads each ask for their own stack once,
 *                            then sleep for SECS (the pool attack); prints
 *                            "holding" once all have asked
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <uapi/ustack.h>

#define DIE(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); exit(1); } while (0)

static int sf;
static atomic_long asked;
static double secs;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int self_stack(void)
{
	__u64 ips[64];
	struct ustack_self s = {
		.size = sizeof(s), .ips = (__u64)(unsigned long)ips,
		.max_frames = 64,
	};

	if (ioctl(sf, SFRAME_IOC_SELF_STACK, &s))
		return -errno;
	if (!s.cookie)
		DIE("SELF_STACK gave cookie 0");
	return 0;
}

static void *flooder(void *arg __attribute__((unused)))
{
	double end = now() + secs;

	while (now() < end) {
		if (self_stack())
			DIE("SELF_STACK: %s", strerror(errno));
		atomic_fetch_add(&asked, 1);
	}
	return NULL;
}

static void *sleeper(void *arg __attribute__((unused)))
{
	struct timespec ts = { (time_t)secs, 0 };

	if (self_stack())
		DIE("SELF_STACK: %s", strerror(errno));
	atomic_fetch_add(&asked, 1);
	nanosleep(&ts, NULL);
	return NULL;
}

static void run(int n, void *(*fn)(void *))
{
	pthread_t *th = calloc(n, sizeof(*th));
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], &attr, fn, NULL))
			DIE("pthread_create %d", i);
	if (fn == sleeper) {
		while (atomic_load(&asked) < n)
			usleep(10000);
		printf("holding: %d threads asked\n", n);
		fflush(stdout);
	}
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
}

int main(int argc, char **argv)
{
	if (argc < 3)
		DIE("usage: hostile flood SECS | pool N SECS");
	if (setgid(65534) || setuid(65534))
		DIE("setuid: %s", strerror(errno));
	sf = open("/dev/sframe", O_RDWR);
	if (sf < 0)
		DIE("open /dev/sframe: %s", strerror(errno));
	if (!strcmp(argv[1], "flood")) {
		secs = atof(argv[2]);
		run(sysconf(_SC_NPROCESSORS_ONLN), flooder);
		printf("self requests: %ld\n", atomic_load(&asked));
	} else if (!strcmp(argv[1], "pool") && argc > 3) {
		secs = atof(argv[3]);
		run(atoi(argv[2]), sleeper);
	} else {
		DIE("unknown mode %s", argv[1]);
	}
	return 0;
}
