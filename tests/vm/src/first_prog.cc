// SPDX-License-Identifier: GPL-2.0
/*
 * first-sample's program: C++ built without frame pointers (-O2
 * -fomit-frame-pointer, no SFrame), as Debian builds C++ services, its
 * hot loop through its own library (libfirst.so, found by $ORIGIN).
 *   first_prog SECONDS   main > run > first_lib_work > lib_step > price
 *                        (std::sort, std::map, snprintf) for SECONDS of
 *                        the process's CPU time
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#define NOINLINE __attribute__((noinline))

extern "C" long first_lib_work(long (*cb)(long), long n);

static std::map<std::string, long> book;

NOINLINE static long price(long seed)
{
	std::vector<long> v(64);
	char sym[16];

	snprintf(sym, sizeof(sym), "S%04ld", seed % 500);
	for (size_t i = 0; i < v.size(); i++)
		v[i] = (long)((seed * 2654435761UL + i * 40503UL) % 10007);
	std::sort(v.begin(), v.end());
	return book[sym] += v[seed % 64];
}

static double cpu_seconds()
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

NOINLINE static long run(double seconds)
{
	double end = cpu_seconds() + seconds;
	long total = 0, n = 0;

	while (cpu_seconds() < end)
		total += first_lib_work(price, n++);
	return total;
}

int main(int argc, char **argv)
{
	double s = argc > 1 ? atof(argv[1]) : 0.7;

	printf("first_prog: %ld\n", run(s) & 0xffff);
	return 0;
}
