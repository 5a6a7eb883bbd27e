// SPDX-License-Identifier: GPL-2.0
/*
 * spawnbench N PROG -- ENV1 -- ENV2 ...: start PROG N times under each
 * environment variant (lists of NAME=VALUE added to the current
 * environment; "-" for none), interleaved, and print the median wall time
 * of one start per variant in microseconds, one line each.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>

extern char **environ;

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0, nv = 0;
	char **envs[16];
	size_t ne = 0;
	double *t[16];

	if (n <= 0 || argc < 4)
		return 2;
	for (char **e = environ; *e; e++)
		ne++;
	for (int i = 3; i < argc && nv < 16; i++) {
		char **env;
		size_t k = 0;

		if (strcmp(argv[i], "--"))
			continue;
		env = calloc(ne + argc, sizeof(*env));
		for (i++; i < argc && strcmp(argv[i], "--"); i++)
			if (strcmp(argv[i], "-"))
				env[k++] = argv[i];
		i--;
		for (char **e = environ; *e; e++)
			env[k++] = *e;
		envs[nv] = env;
		t[nv++] = calloc(n, sizeof(double));
	}
	for (int r = 0; r < n; r++)
		for (int v = 0; v < nv; v++) {
			struct timespec a, b;
			char *av[] = { argv[2], NULL };
			pid_t pid;
			int st;

			clock_gettime(CLOCK_MONOTONIC, &a);
			if (posix_spawn(&pid, argv[2], NULL, NULL, av, envs[v]))
				return 1;
			waitpid(pid, &st, 0);
			clock_gettime(CLOCK_MONOTONIC, &b);
			t[v][r] = (b.tv_sec - a.tv_sec) * 1e6 +
				  (b.tv_nsec - a.tv_nsec) / 1e3;
		}
	for (int v = 0; v < nv; v++) {
		qsort(t[v], n, sizeof(double), cmp);
		printf("%.0f\n", t[v][n / 2]);
	}
	return 0;
}
