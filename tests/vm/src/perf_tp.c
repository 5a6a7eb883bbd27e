// SPDX-License-Identifier: GPL-2.0
/*
 * perf_tp ID SECONDS [cpu]: open a counting perf event on the tracepoint
 * of ID (its events/.../id), user space only (exclude_kernel, as
 * perf_event_paranoid 2 requires of an unprivileged user), for this task
 * (or, with "cpu", CPU-wide on CPU 0), print "opened", hold it SECONDS,
 * then print its count.  Exit 1 if perf_event_open fails.
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct perf_event_attr a;
	int cpu_wide, fd;
	uint64_t n = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: perf_tp ID SECONDS [cpu]\n");
		return 2;
	}
	cpu_wide = argc > 3 && !strcmp(argv[3], "cpu");
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = strtoull(argv[1], NULL, 0);
	a.exclude_kernel = !cpu_wide;
	fd = syscall(SYS_perf_event_open, &a, cpu_wide ? -1 : 0,
		     cpu_wide ? 0 : -1, -1, 0);
	if (fd < 0) {
		perror("perf_tp: perf_event_open");
		return 1;
	}
	printf("opened\n");
	fflush(stdout);
	sleep(atoi(argv[2]));
	if (read(fd, &n, sizeof(n)) != sizeof(n))
		perror("perf_tp: read");
	printf("count %llu\n", (unsigned long long)n);
	return 0;
}
