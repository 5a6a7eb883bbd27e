// SPDX-License-Identifier: GPL-2.0
/*
 * store-cache: rules found through the SFrame store enter the rule cache,
 * and none is served once stale.  No SFrame, no frame pointers; the test
 * adds store entries for this program, LIB_A and libc.  Each line read
 * from stdin runs a phase and prints one result line:
 *   warm   walks REPS times through the library ("warm lib=M main=M
 *          frames=N")
 *   swap   dlclose(LIB_A), dlopen(LIB_B): the same bytes, another file,
 *          at the same address ("swap same=0|1")
 *   again  walks once through the library ("again lib=M main=M")
 * lib=M: how the return address into the library was found (by the rule
 * of this program's cb()); main=M: how the one out of it, into phase(),
 * was found (by the library's rule).
 */
#include "sframe_common.h"
#include <dlfcn.h>
#include <sched.h>

#define REPS 200
#define MAXF 64

static int (*lib_call)(int (*)(int), int);
static void *lib;
static uintptr_t lib_lo, lib_hi, main_lo, main_hi;
static int reps;
static uint8_t m_lib, m_main;
static int nframes;

static NOINLINE int cb(int d)
{
	uint64_t ips[MAXF];
	uint8_t m[MAXF];
	int i, n = 0;

	for (int r = 0; r < reps; r++)
		n = self_stack(ips, m, MAXF, NULL);
	nframes = n;
	m_lib = m_main = 0xff;
	for (i = 1; i < n; i++) {
		if (ips[i] >= lib_lo && ips[i] < lib_hi && m_lib == 0xff)
			m_lib = m[i];
		else if (ips[i] >= main_lo && ips[i] < main_hi &&
			 m_lib != 0xff && m_main == 0xff)
			m_main = m[i];
	}
	return d;
}

static const char *mname(uint8_t m)
{
	return m == 0xff ? "none" : method_name(m);
}

static uintptr_t open_lib(const char *path)
{
	struct obj o;

	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		die("dlopen %s: %s", path, dlerror());
	lib_call = (int (*)(int (*)(int), int))dlsym(lib, "store_cache_lib_call");
	find_obj(strrchr(path, '/') + 1, &o);	/* no .sframe: only its range */
	if (!lib_call || !o.found)
		die("%s: no store_cache_lib_call", path);
	lib_lo = o.text_lo;
	lib_hi = o.text_hi;
	return o.bias;
}

static NOINLINE void phase(int n)
{
	reps = n;
	lib_call(cb, 1);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	char line[64];
	cpu_set_t cpus;
	struct obj o;
	uintptr_t a;

	if (argc != 3)
		die("usage: store_cache LIB_A LIB_B");
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* one CPU: every walk meets the rule cache the last one filled */
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		die("sched_setaffinity");
	sf_open();
	if (find_obj("", &o), !o.found)
		die("no program");
	main_lo = o.text_lo;
	main_hi = o.text_hi;
	a = open_lib(argv[1]);
	while (fgets(line, sizeof(line), stdin)) {
		if (!strncmp(line, "warm", 4)) {
			phase(REPS);
			printf("warm lib=%s main=%s frames=%d\n", mname(m_lib),
			       mname(m_main), nframes);
		} else if (!strncmp(line, "swap", 4)) {
			dlclose(lib);
			printf("swap same=%d\n", open_lib(argv[2]) == a);
		} else if (!strncmp(line, "again", 5)) {
			phase(1);
			printf("again lib=%s main=%s\n", mname(m_lib),
			       mname(m_main));
		}
	}
	return 0;
}
