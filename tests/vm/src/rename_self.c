// SPDX-License-Identifier: GPL-2.0
/*
 * A program whose file changes its name while it runs, for stream-rename:
 * it spins in spin_before() for SECONDS, renames PATH (its own file) to
 * NEW, or deletes it if NEW is "-", then spins in spin_after() as long.
 * Every sample in spin_after() must name the file as it is by then,
 * whatever the samples before named it.
 *   rename_self SECONDS PATH NEW|-
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cpu_loop.h"

/* No calls in the loops: a sample's first frame is the loop itself. */
__attribute__((noinline)) static void spin_before(double secs)
{
	cpu_done = 0;
	cpu_alarm(secs);
	while (!cpu_done)
		sink = sink * 7 + 1;
}

__attribute__((noinline)) static void spin_after(double secs)
{
	cpu_done = 0;
	cpu_alarm(secs);
	while (!cpu_done)
		sink = sink * 5 + 3;
}

int main(int argc, char **argv)
{
	double secs;

	if (argc != 4) {
		fprintf(stderr, "usage: rename_self SECONDS PATH NEW|-\n");
		return 2;
	}
	secs = atof(argv[1]);
	spin_before(secs);
	if (strcmp(argv[3], "-") ? rename(argv[2], argv[3]) : unlink(argv[2])) {
		perror(argv[2]);
		return 1;
	}
	spin_after(secs);
	return 0;
}
