// SPDX-License-Identifier: GPL-2.0
/*
 * The registry under an unprivileged user (issue 14):
 *
 *   churn SECONDS MAX_KB   one process per CPU holds 64 registrations and
 *                          registers and unregisters a 65th in a loop;
 *                          the memory in use (MemTotal - MemAvailable) and
 *                          the slab (replaced sets are kmalloc-8k objects)
 *                          are sampled from /proc/meminfo before, during
 *                          and after: the slab's growth must stay under
 *                          MAX_KB
 *   victim SECONDS         registers its own .sframe and asks for its own
 *                          stack in a loop; prints the count (the test reads
 *                          the rule cache flushes meanwhile)
 *   fork                   registers its own .sframe and forks; the child
 *                          unmaps the section's pages; the parent's
 *                          registration must still be there.  Then a
 *                          registered text page is unmapped, another mapped
 *                          in its place, and the process forks: the child
 *                          must not inherit the old registration (its
 *                          register of the new page must succeed)
 *   fork-time VMAS         the time of a first SFRAME_IOC_REGISTER in a
 *                          small process, then with VMAS extra mappings the
 *                          time of a fork (until the child's first
 *                          instruction, after it copied the registrations)
 *                          unregistered, of a first register (in a child)
 *                          and of a fork registered, and the child's CPU
 *                          time before its first instruction in either
 *                          fork; each the best of 5, taken in turns
 *                          (printed; the test compares them)
 */
#include "sframe_common.h"
#include <signal.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/wait.h>

#define HELD	64
#define PAGE	4096UL

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* A v2 section at @b: one FDE over the page at @text, one FRE. */
static size_t build(uint8_t *b, uint64_t text)
{
	memset(b, 0, 64);
	b[0] = 0xe2; b[1] = 0xde; b[2] = 2; b[3] = 1;	/* FDEs sorted */
	b[4] = 3; b[6] = (uint8_t)-8;
	put32(b + 8, 1);	/* FDEs */
	put32(b + 12, 1);	/* FREs */
	put32(b + 16, 6);	/* FRE bytes */
	put32(b + 24, 20);	/* FRE offset */
	put32(b + 28, (uint32_t)(text - (uintptr_t)b));
	put32(b + 32, PAGE);
	put32(b + 40, 1);	/* its FREs */
	b[44] = 2;		/* ADDR4 */
	b[48 + 4] = 1 | 1 << 1;	/* CFA = SP + 16 */
	b[48 + 5] = 16;
	return 54;
}

/* Kernel memory in use now: MemTotal - MemAvailable and Slab, in KiB. */
static void mem_kb(long *used, long *slab)
{
	char line[128];
	long v, total = 0, avail = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("/proc/meminfo: %s", strerror(errno));
	*slab = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "MemTotal: %ld", &v) == 1)
			total = v;
		else if (sscanf(line, "MemAvailable: %ld", &v) == 1)
			avail = v;
		else if (sscanf(line, "Slab: %ld", &v) == 1)
			*slab = v;
	}
	fclose(f);
	*used = total - avail;
}

static void churn_one(double secs)
{
	uint8_t *text, *sf;
	double end = now_ms() + secs * 1e3;
	long ops = 0;
	int i, err;

	text = mmap(NULL, (HELD + 1) * PAGE, PROT_READ | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sf = mmap(NULL, (HELD + 1) * 64, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (text == MAP_FAILED || sf == MAP_FAILED)
		die("mmap");
	sf_open();
	for (i = 0; i <= HELD; i++) {
		size_t len = build(sf + i * 64, (uintptr_t)text + i * PAGE);

		if (i == HELD)
			break;
		err = sf_reg((uintptr_t)sf + i * 64, len,
			     (uintptr_t)text + i * PAGE,
			     (uintptr_t)text + (i + 1) * PAGE);
		if (err)
			die("register %d: %s", i, strerror(-err));
	}
	while (now_ms() < end) {
		for (i = 0; i < 100; i++, ops++) {
			err = sf_reg((uintptr_t)sf + HELD * 64, 54,
				     (uintptr_t)text + HELD * PAGE,
				     (uintptr_t)text + (HELD + 1) * PAGE);
			if (!err)
				err = sf_unreg((uintptr_t)sf + HELD * 64);
			if (err)
				die("churn: %s", strerror(-err));
		}
	}
	printf("churn %d: %ld register/unregister pairs\n", getpid(), ops);
	exit(0);
}

static void churn(double secs, long max_kb)
{
	int i, st, n = (int)sysconf(_SC_NPROCESSORS_ONLN);
	long used0, slab0, used, slab, grow = 0, sgrow = 0;
	double end;

	sync();
	sleep(1);
	mem_kb(&used0, &slab0);
	for (i = 0; i < n; i++) {
		pid_t p = fork();

		if (p < 0)
			die("fork");
		if (!p)
			churn_one(secs);
	}
	end = now_ms() + secs * 1e3;
	while (now_ms() < end) {
		usleep(100000);
		mem_kb(&used, &slab);
		grow = used - used0 > grow ? used - used0 : grow;
		sgrow = slab - slab0 > sgrow ? slab - slab0 : sgrow;
	}
	for (i = 0; i < n; i++) {
		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			die("a churning child failed");
	}
	sleep(2);
	mem_kb(&used, &slab);
	printf("churn on %d CPUs, %.0f s: memory in use grew by at most %ld KiB (slab %ld KiB), %ld KiB after\n",
	       n, secs, grow, sgrow, used - used0);
	if (sgrow > max_kb)
		die("the slab grew by %ld KiB, over %ld KiB", sgrow, max_kb);
}

static void victim(double secs)
{
	uint64_t ips[64];
	uint8_t m[64];
	unsigned int endr;
	double end = now_ms() + secs * 1e3;
	struct obj o;
	long n = 0, sf = 0;
	int err, nr, i;

	sf_open();
	if (find_obj("", &o))
		die("no .sframe in the program");
	err = sf_reg(o.sf, o.sf_len, o.text_lo, o.text_hi);
	if (err)
		die("register: %s", strerror(-err));
	while (now_ms() < end) {
		nr = self_stack(ips, m, 64, &endr);
		if (nr < 2)
			die("self stack: %d", nr);
		for (i = 1; i < nr; i++)
			sf += m[i] == USTACK_METHOD_SFRAME;
		n++;
	}
	printf("victim: %ld walks, %ld frames by sframe\n", n, sf);
}

static void fork_unmap(void)
{
	uintptr_t lo, hi;
	uint8_t *text, *sf;
	struct obj o;
	size_t len;
	int err, st;
	pid_t p;

	sf_open();
	if (find_obj("", &o))
		die("no .sframe in the program");
	err = sf_reg(o.sf, o.sf_len, o.text_lo, o.text_hi);
	if (err)
		die("register: %s", strerror(-err));
	lo = o.sf & ~(PAGE - 1);
	hi = (o.sf + o.sf_len + PAGE - 1) & ~(PAGE - 1);
	p = fork();
	if (p < 0)
		die("fork");
	if (!p) {
		/* the child's copy goes; nothing of the section is used */
		syscall(SYS_munmap, lo, hi - lo);
		syscall(SYS_exit_group, 0);
	}
	if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st))
		die("child failed");
	/* unregister finds only live entries */
	err = sf_unreg(o.sf);
	if (err)
		die("the child's munmap hid the parent's registration: unregister: %s",
		    strerror(-err));
	printf("fork: the parent's registration survived the child's munmap\n");

	text = mmap(NULL, PAGE, PROT_READ | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sf = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (text == MAP_FAILED || sf == MAP_FAILED)
		die("mmap");
	len = build(sf, (uintptr_t)text);
	err = sf_reg((uintptr_t)sf, len, (uintptr_t)text, (uintptr_t)text + PAGE);
	if (err)
		die("register: %s", strerror(-err));
	munmap(text, PAGE);
	if (mmap(text, PAGE, PROT_READ | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != text)
		die("mmap again");
	p = fork();
	if (p < 0)
		die("fork");
	if (!p) {
		err = sf_reg((uintptr_t)sf + 64, build(sf + 64, (uintptr_t)text),
			     (uintptr_t)text, (uintptr_t)text + PAGE);
		if (err)
			printf("FAIL: the child inherited a registration unmapped before the fork: register: %s\n",
			       strerror(-err));
		_exit(!!err);
	}
	if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st))
		die("the child inherited a stale registration");
	printf("fork: a registration unmapped before the fork is not inherited\n");
}

static void least(double *best, double t)
{
	if (t < *best)
		*best = t;
}

/*
 * A fork: the time from fork() until the child's first instruction, and
 * the CPU time the child spent before it (in the kernel, where a copy of
 * the registrations is made; the copy of the address space is the
 * parent's).  The latter is what a registration adds to a fork, apart
 * from the noise of copying 60000 VMAs under an emulator.  Each kept if
 * less than the best so far.
 */
static void fork_start(double *wall, double *child_cpu)
{
	struct timespec ts;
	double t0, t[2];
	int fd[2], st;
	pid_t p;

	if (pipe(fd))
		die("pipe: %s", strerror(errno));
	t0 = now_ms();
	p = fork();
	if (p < 0)
		die("fork: %s", strerror(errno));
	if (!p) {
		t[0] = now_ms();
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		t[1] = ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
		_exit(write(fd[1], t, sizeof(t)) != sizeof(t));
	}
	if (read(fd[0], t, sizeof(t)) != sizeof(t))
		die("the child did not report");
	waitpid(p, &st, 0);
	close(fd[0]);
	close(fd[1]);
	least(wall, t[0] - t0);
	least(child_cpu, t[1]);
}

static void reg(const struct obj *o)
{
	int err = sf_reg(o->sf, o->sf_len, o->text_lo, o->text_hi);

	if (err)
		die("register: %s", strerror(-err));
}

/*
 * The time of a first SFRAME_IOC_REGISTER in a new address space: a child
 * of this (unregistered) process, with all its mappings, registers once.
 */
static double first_register_ms(const struct obj *o)
{
	double t;
	int fd[2], st;
	pid_t p;

	if (pipe(fd))
		die("pipe: %s", strerror(errno));
	p = fork();
	if (p < 0)
		die("fork: %s", strerror(errno));
	if (!p) {
		t = now_ms();
		reg(o);
		t = now_ms() - t;
		_exit(write(fd[1], &t, sizeof(t)) != sizeof(t));
	}
	if (read(fd[0], &t, sizeof(t)) != sizeof(t))
		die("the child did not register");
	if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st))
		die("the registering child failed");
	close(fd[0]);
	close(fd[1]);
	return t;
}

static void fork_time(long vmas)
{
	double small = 1e12, first = 1e12;
	double unreg = 1e12, regd = 1e12, unreg_cpu = 1e12, regd_cpu = 1e12;
	struct obj o;
	long i;
	int err;

	sf_open();
	if (find_obj("", &o))
		die("no .sframe in the program");
	for (i = 0; i < 5; i++)
		least(&small, first_register_ms(&o));

	/* alternating protections: no two neighbours merge */
	for (i = 0; i < vmas; i++)
		if (mmap(NULL, PAGE, i & 1 ? PROT_READ : PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
			die("mmap %ld: %s", i, strerror(errno));
	/*
	 * Every figure the best of 5, taken in turns: a busy host (make check
	 * runs other work beside the guest) slows one of two runs taken
	 * minutes apart, not both, and a single run by tens of milliseconds.
	 */
	for (i = 0; i < 5; i++) {
		fork_start(&unreg, &unreg_cpu);
		least(&first, first_register_ms(&o));
		reg(&o);
		fork_start(&regd, &regd_cpu);
		err = sf_unreg(o.sf);
		if (err)
			die("unregister: %s", strerror(-err));
	}
	printf("fork-time: %ld VMAs: small first register %.2f ms\n", vmas, small);
	printf("fork-time: %ld VMAs: fork unregistered %.2f ms\n", vmas, unreg);
	printf("fork-time: %ld VMAs: first register %.2f ms\n", vmas, first);
	printf("fork-time: %ld VMAs: fork registered %.2f ms\n", vmas, regd);
	printf("fork-time: %ld VMAs: child before start unregistered %.2f ms\n",
	       vmas, unreg_cpu);
	printf("fork-time: %ld VMAs: child before start registered %.2f ms\n",
	       vmas, regd_cpu);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "churn"))
		churn(atof(argv[2]), atol(argv[3]));
	else if (argc == 3 && !strcmp(argv[1], "victim"))
		victim(atof(argv[2]));
	else if (argc == 2 && !strcmp(argv[1], "fork"))
		fork_unmap();
	else if (argc == 3 && !strcmp(argv[1], "fork-time"))
		fork_time(atol(argv[2]));
	else
		die("usage: churn SECONDS MAX_KB | victim SECONDS | fork | fork-time VMAS");
	printf("ok\n");
	return 0;
}
