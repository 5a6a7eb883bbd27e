// SPDX-License-Identifier: GPL-2.0
/*
 * The firstcover benchmark's program (tests/vm/_bench-firstcover.sh): how
 * long after its first mapping an object no one has seen is covered, as
 * the module sees it.  No SFrame, no frame pointers: only a store entry
 * gives this program's frames (and the library's, store_cache_lib) an
 * SFrame rule.  The walks are the kernel's own (SFRAME_IOC_SELF_STACK):
 * the first queues the object as a miss, as a first sample's walk would,
 * and the first that finds a return address out of the object by SFrame
 * marks its store entry there.
 *   first_cover exec PROG LIB   note the time, then exec PROG (a fresh
 *                               copy of this program) as "PROG cover T0 LIB"
 *   first_cover cover T0 LIB    walk every millisecond until this program
 *                               is covered, then note the time, dlopen LIB
 *                               (a fresh copy of store_cache_lib) and walk
 *                               through it until it is covered: prints
 *                               "first_cover exec_ms=X dlopen_ms=Y"
 * Either gives up after TIMEOUT_MS (prints "timeout" for the figure).
 */
#include "sframe_common.h"
#include <dlfcn.h>
#include <time.h>

#define MAXF 64
#define TIMEOUT_MS 30000

static uintptr_t main_lo, main_hi, lib_lo, lib_hi;
static int (*lib_call)(int (*)(int), int);
static int lib_covered;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int in_main(uint64_t ip)
{
	return ip >= main_lo && ip < main_hi;
}

/* Is the return address out of this walk's first frame (ours) SFrame's? */
static NOINLINE int main_covered(void)
{
	uint64_t ips[MAXF];
	uint8_t m[MAXF];
	int n = self_stack(ips, m, MAXF, NULL);

	__asm__ volatile("" ::: "memory");
	return n > 1 && in_main(ips[1]) && m[1] == USTACK_METHOD_SFRAME;
}

/* Called by the library: is the return address out of it SFrame's? */
static NOINLINE int cb(int d)
{
	uint64_t ips[MAXF];
	uint8_t m[MAXF];
	int i, n = self_stack(ips, m, MAXF, NULL);

	lib_covered = 0;
	for (i = 1; i + 1 < n; i++)
		if (ips[i] >= lib_lo && ips[i] < lib_hi) {
			lib_covered = in_main(ips[i + 1]) &&
				      m[i + 1] == USTACK_METHOD_SFRAME;
			break;
		}
	return d;
}

static NOINLINE int through_lib(void)
{
	lib_call(cb, 1);
	__asm__ volatile("" ::: "memory");
	return lib_covered;
}

/* Walk each millisecond until @covered(); ms since @t0, or -1. */
static double poll_until(int (*covered)(void), uint64_t t0)
{
	struct timespec ms = { 0, 1000000 };

	while (!covered()) {
		if (now_ns() - t0 > TIMEOUT_MS * 1000000ULL)
			return -1;
		nanosleep(&ms, NULL);
	}
	return (now_ns() - t0) / 1e6;
}

static void put(const char *name, double ms)
{
	if (ms < 0)
		printf(" %s=timeout", name);
	else
		printf(" %s=%.1f", name, ms);
}

int main(int argc, char **argv)
{
	char t0s[32];
	struct obj o;
	double e, d;
	uint64_t t1;
	void *lib;

	if (argc == 4 && !strcmp(argv[1], "exec")) {
		snprintf(t0s, sizeof(t0s), "%llu", (unsigned long long)now_ns());
		execl(argv[2], argv[2], "cover", t0s, argv[3], (char *)NULL);
		die("exec %s: %s", argv[2], strerror(errno));
	}
	if (argc != 4 || strcmp(argv[1], "cover"))
		die("usage: first_cover exec PROG LIB | cover T0 LIB");
	sf_open();
	if (find_obj("", &o), !o.found)
		die("no program");
	main_lo = o.text_lo;
	main_hi = o.text_hi;
	e = poll_until(main_covered, strtoull(argv[2], NULL, 10));
	t1 = now_ns();
	lib = dlopen(argv[3], RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		die("dlopen %s: %s", argv[3], dlerror());
	lib_call = (int (*)(int (*)(int), int))dlsym(lib, "store_cache_lib_call");
	find_obj(strrchr(argv[3], '/') + 1, &o);
	if (!lib_call || !o.found)
		die("%s: no store_cache_lib_call", argv[3]);
	lib_lo = o.text_lo;
	lib_hi = o.text_hi;
	d = e < 0 ? -1 : poll_until(through_lib, t1);
	printf("first_cover");
	put("exec_ms", e);
	put("dlopen_ms", d);
	printf("\n");
	return 0;
}
