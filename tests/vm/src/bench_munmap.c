// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of unmapping, which the registry's kprobes on unmap_vmas() and
 * move_page_tables() add to every process once ustack is loaded
 * (tests/vm/_bench-registry.sh compares it unloaded and loaded):
 *
 *   bench_munmap N [reg]   times N rounds of mmap+munmap of one untouched
 *                          anonymous page, and N of mmap and mremap of
 *                          that page onto a fixed page (unmap_vmas() of
 *                          the page there, move_page_tables(), unmap_vmas()
 *                          of the old range); prints "munmap NS" and
 *                          "mremap NS", ns per round.  With reg, it first registers its own
 *                          .sframe: its unmappings are then looked up in
 *                          the registry and checked against its entries
 *   bench_munmap hold      registers its own .sframe, prints "ready" and
 *                          waits for stdin to close: a registered process
 *                          elsewhere
 *
 * The page is never touched: no fault, no page freed, only the system
 * calls, so that the probes' share is as large as it gets.
 */
#include "sframe_common.h"
#include <time.h>
#include <sys/mman.h>

#define PAGE	4096UL

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void reg_self(void)
{
	struct obj self;
	int rc;

	if (find_obj("", &self) || !self.sf_len || !self.text_hi)
		die("no .sframe in the program");
	sf_open();
	rc = sf_reg(self.sf, self.sf_len, self.text_lo, self.text_hi);
	if (rc)
		die("register own .sframe: %s", strerror(-rc));
}

static double bench_munmap(long n)
{
	double t0 = now_ns();
	long i;
	void *p;

	for (i = 0; i < n; i++) {
		p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			die("mmap: %s", strerror(errno));
		if (munmap(p, PAGE))
			die("munmap: %s", strerror(errno));
	}
	return (now_ns() - t0) / n;
}

/*
 * @dst: a mapped page between two PROT_NONE guards, so that no new mapping
 * lands there or merges with it; each round's page replaces the last.
 */
static double bench_mremap(long n, void *dst)
{
	double t0 = now_ns();
	long i;
	void *p;

	for (i = 0; i < n; i++) {
		p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			die("mmap: %s", strerror(errno));
		if (mremap(p, PAGE, PAGE, MREMAP_MAYMOVE | MREMAP_FIXED,
			   dst) != dst)
			die("mremap: %s", strerror(errno));
	}
	return (now_ns() - t0) / n;
}

int main(int argc, char **argv)
{
	char c, *guard;
	long n;

	if (argc == 2 && !strcmp(argv[1], "hold")) {
		reg_self();
		printf("ready\n");
		fflush(stdout);
		while (read(0, &c, 1) > 0)
			;
		return 0;
	}
	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "reg")))
		die("usage: bench_munmap N [reg] | bench_munmap hold");
	n = strtol(argv[1], NULL, 10);
	if (n < 1 || n > 100000000)
		die("N out of range: %s", argv[1]);
	if (argc == 3)
		reg_self();
	guard = mmap(NULL, 3 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	if (guard == MAP_FAILED)
		die("reserve: %s", strerror(errno));
	printf("munmap %.1f\n", bench_munmap(n));
	printf("mremap %.1f\n", bench_mremap(n, guard + PAGE));
	return 0;
}
