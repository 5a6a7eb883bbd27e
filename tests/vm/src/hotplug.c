// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers of stream-hotplug.sh:
 *   hotplug now          print CLOCK_MONOTONIC in ns (the clock of the
 *                        records' time=), to mark the test's phases
 *   hotplug spin CPU S   pin to CPU (-1: no pinning), then spin for S seconds
 *                        in main > run_cpu > cpu_outer > cpu_inner
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "cpu_loop.h"

int main(int argc, char **argv)
{
	struct timespec ts;

	if (argc == 2 && !strcmp(argv[1], "now")) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		printf("%lld\n", ts.tv_sec * 1000000000LL + ts.tv_nsec);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "spin")) {
		int cpu = atoi(argv[2]);

		if (cpu >= 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set)) {
				perror("sched_setaffinity");
				return 1;
			}
		}
		run_cpu(atof(argv[3]));
		return 0;
	}
	fprintf(stderr, "usage: hotplug now | spin CPU SECONDS\n");
	return 2;
}
