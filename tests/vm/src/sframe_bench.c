// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmarks of /dev/sframe, printed as `bench NAME VALUE UNIT` lines:
 *   - the kernel self-walk (SFRAME_IOC_SELF_STACK) per frame, next to the
 *     user-space walker (ustack_sframe_walk() of the same core) over the same
 *     stack and section, measured side by side in one run;
 *   - kernel memory per registration: the registry's own count of its
 *     live bytes (debugfs stats registry_bytes) before and after holder
 *     processes register 256 sections each, and back to where it was once
 *     they exit (no leak); MemFree's view, minus the same without
 *     registrations, is printed alongside (noisy: the page allocator's
 *     per-CPU lists and caches move it by megabytes);
 *   - built as sframe_bench_fp (frame pointers, no SFrame anywhere: the
 *     kernel walk falls back to frame pointers), `walkfp`: the same kernel
 *     self-walk over an equally deep stack, kwalk_fp_per_frame.
 *
 *   sframe_bench walk | mem NPROC      sframe_bench_fp walkfp
 */
#include "sframe_common.h"
#include "ustack_sframe.h"
#include <signal.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/wait.h>

#define DEPTH 64
#define REPS 2000

#ifndef SFRAME_BENCH_FP
#define SFRAME_BENCH_FP 0
#endif

static struct obj self;
static struct sframe_sec usec;
static double t_k1, t_k8, t_kn, t_u, t_fp;
static uint8_t fp_methods[DEPTH + 16];
static unsigned int fp_end;
static int nk, nu;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static const struct sframe_sec *find_sec(struct sframe_walk *w, u64 pc,
					  bool *cacheable)
{
	(void)w;
	*cacheable = true;
	return pc >= usec.text_lo && pc < usec.text_hi ? &usec : NULL;
}

static const struct sframe_walk_ops walk_ops = {
	.find_sec = find_sec,
	.read_code = ustack_sframe_read_local_code,
};

static NOINLINE void measure(void)
{
	uint64_t ips[DEPTH + 16];
	struct sframe_walk w;
	unsigned int end;
	double t;
	int i;
	u64 sp, fp;

	t = now();
	for (i = 0; i < REPS; i++)
		self_stack(ips, NULL, 1, &end);
	t_k1 = (now() - t) / REPS;
	t = now();
	for (i = 0; i < REPS; i++)
		nk = self_stack(ips, NULL, DEPTH + 16, &end);
	t_kn = (now() - t) / REPS;
	/* 8 frames: the same lookups as the whole walk, minus nk - 8 frames. */
	t = now();
	for (i = 0; i < REPS; i++)
		self_stack(ips, NULL, 8, &end);
	t_k8 = (now() - t) / REPS;
	if (SFRAME_BENCH_FP) {
		nk = self_stack(ips, fp_methods, DEPTH + 16, &fp_end);
		return;
	}

	t = now();
	for (i = 0; i < REPS; i++) {
		memset(&w, 0, sizeof(w));
		asm volatile("lea 0(%%rip), %0" : "=r"(w.st.ip));
		asm volatile("mov %%rsp, %0; mov %%rbp, %1" : "=r"(sp), "=r"(fp));
		w.st.sp = sp;
		w.st.fp = fp;
		w.ops = &walk_ops;
		w.ips = ips;
		w.max_frames = DEPTH + 16;
		nu = (int)ustack_sframe_walk(&w);
	}
	t_u = (now() - t) / REPS;
}

static NOINLINE int chain(int d)
{
	volatile char pad[32];

	pad[0] = (char)d;
	if (d > 0)
		return chain(d - 1) + pad[0] - (char)d;
	measure();
	return 0;
}

/* The number after the first line of @path that matches @fmt ("key %ld"). */
static long file_value(const char *path, const char *fmt)
{
	char line[128];
	long v = -1;
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &v) == 1)
			break;
	if (f)
		fclose(f);
	if (v < 0)
		die("%s: no line \"%s\"", path, fmt);
	return v;
}

static long memfree_kb(void)
{
	return file_value("/proc/meminfo", "MemFree: %ld kB");
}

static long registry_bytes(void)
{
	return file_value("/sys/kernel/debug/ustack/stats", "registry_bytes %ld");
}

/*
 * NPROC holders; each maps its ranges, then registers 256 or 0.  Returns
 * MemFree's drop in kB; *@reg_bytes: registry_bytes' rise.
 */
static long holders(int nproc, int reg, pid_t *pids, long *reg_bytes)
{
	int i, p[2], go[2];
	long before, after, rb;
	char c;

	if (pipe(p) || pipe(go))
		die("pipe");
	for (i = 0; i < nproc; i++) {
		pids[i] = fork();
		if (!pids[i]) {
			uint8_t *text = mmap(NULL, 4096 * 2, PROT_READ | PROT_EXEC,
					     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			uint8_t *sf = mmap(NULL, 256 * 32, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
			int k;

			for (k = 0; k < 256; k++) {
				uint8_t *q = sf + 32 * k;

				q[0] = 0xe2; q[1] = 0xde; q[2] = 2; q[3] = 1;
				q[4] = 3; q[6] = 0xf8;
			}
			if (write(p[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
				_exit(1);
			for (k = 0; reg && k < 256; k++)
				if (sf_reg((uintptr_t)sf + 32 * k, 28,
					   (uintptr_t)text + 16 * k,
					   (uintptr_t)text + 16 * k + 16))
					_exit(2);
			if (write(p[1], "d", 1) != 1)
				_exit(1);
			pause();
			_exit(0);
		}
	}
	for (i = 0; i < nproc; i++)
		if (read(p[0], &c, 1) != 1)
			die("holder");
	sleep(1);
	before = memfree_kb();
	rb = registry_bytes();
	for (i = 0; i < nproc; i++)
		if (write(go[1], "g", 1) != 1)
			die("go");
	for (i = 0; i < nproc; i++)
		if (read(p[0], &c, 1) != 1 || c != 'd')
			die("holder register");
	sleep(2);	/* RCU frees of the intermediate arrays */
	after = memfree_kb();
	*reg_bytes = registry_bytes() - rb;
	close(p[0]); close(p[1]); close(go[0]); close(go[1]);
	return before - after;
}

static void reap(int nproc, pid_t *pids)
{
	int i;

	for (i = 0; i < nproc; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2)
		die("usage: sframe_bench walk | mem NPROC");
	sf_open();
	if (!strcmp(argv[1], "walk")) {
		if (find_obj("", &self) || ustack_sframe_sec_init(&usec, self.sf, self.sf_len,
							   self.sf, self.text_lo,
							   self.text_hi))
			die("own .sframe");
		if (sf_reg(self.sf, self.sf_len, self.text_lo, self.text_hi))
			die("register");
		chain(DEPTH - 8);
		chain(DEPTH - 8);
		if (nk < DEPTH - 8 || nu < DEPTH - 8)
			die("short walks: kernel %d, user %d frames", nk, nu);
		printf("frames: kernel %d user %d\n", nk, nu);
		printf("marginal: %.1f ns per frame from 8 to %d frames\n",
		       (t_kn - t_k8) / (nk - 8), nk);
		printf("bench kwalk_ioctl_overhead %.0f ns\n", t_k1);
		printf("bench kwalk_sframe_per_frame %.1f ns\n", (t_kn - t_k1) / (nk - 1));
		printf("bench walk_sframe_per_frame %.1f ns\n", t_u / nu);
		printf("bench kwalk_vs_uwalk_per_frame %.2f x\n",
		       ((t_kn - t_k1) / (nk - 1)) / (t_u / nu));
		(void)t_fp;
		return 0;
	}
	if (!strcmp(argv[1], "walkfp") && SFRAME_BENCH_FP) {
		int i, nfp = 0;

		/* No SFrame here: every frame of ours must come from frame pointers. */
		if (!find_obj("", &self))
			die("sframe_bench_fp has an .sframe section");
		chain(DEPTH - 8);
		chain(DEPTH - 8);
		if (nk < DEPTH - 8)
			die("short walk: kernel %d frames", nk);
		for (i = 1; i < nk; i++)
			nfp += fp_methods[i] == USTACK_METHOD_FP;
		printf("frames: kernel %d (%d by frame pointers) end %u\n", nk, nfp, fp_end);
		if (nfp + 2 < nk)
			die("frames not walked by frame pointers: %d of %d", nfp, nk);
		printf("marginal: %.1f ns per frame from 8 to %d frames\n",
		       (t_kn - t_k8) / (nk - 8), nk);
		printf("bench kwalk_fp_ioctl_overhead %.0f ns\n", t_k1);
		printf("bench kwalk_fp_per_frame %.1f ns\n", (t_kn - t_k1) / (nk - 1));
		return 0;
	}
	if (!strcmp(argv[1], "mem") && argc > 2) {
		int i, n = atoi(argv[2]);
		pid_t *pids = calloc(n, sizeof(*pids));
		long base, with, rb0, rb, rb_none, rb_with;

		rb0 = registry_bytes();
		base = holders(n, 0, pids, &rb_none);
		reap(n, pids);
		sleep(1);
		with = holders(n, 1, pids, &rb_with);
		reap(n, pids);
		/* the registries go with their mms (mmu_notifier, RCU) */
		for (i = 0; i < 50 && (rb = registry_bytes()) != rb0; i++)
			usleep(100000);
		printf("registry_bytes: %ld before, +%ld without, +%ld with %d x 256 registrations, %ld after exit\n",
		       rb0, rb_none, rb_with, n, rb);
		printf("memfree: %ld kB without, %ld kB with (%.0f bytes per registration, noisy)\n",
		       base, with, (with - base) * 1024.0 / (n * 256.0));
		if (rb_none || rb_with <= 0)
			die("registry_bytes moved by %ld without registrations, %ld with",
			    rb_none, rb_with);
		if (rb != rb0)
			die("registry memory not freed: %ld bytes left after the holders exit",
			    rb - rb0);
		printf("bench kmem_per_registration %.0f bytes\n",
		       rb_with / (n * 256.0));
		return 0;
	}
	die("unknown command");
}
