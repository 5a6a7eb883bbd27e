/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generated-program walk test, compiled by several sframe_walk_*.c with
 * different -O levels, with and without frame pointers and SFrame.
 *
 *   PROG MODE ITERS SEED [LIB]
 *   MODE: reg (register our own .sframe), disc (ELF discovery), none,
 *         regfork (register, then run the chains in a forked child)
 *
 * Random call chains over functions with different frame sizes (fixed
 * pads, alloca), optionally through a dlopen'ed library and through signal
 * handlers (normal and alternate stack), compare the kernel's self-stack
 * (SFRAME_IOC_SELF_STACK) with glibc's backtrace() frame for frame, from
 * the caller of check() down to the first frame outside our objects (the
 * return address into libc below main, or libc's signal trampoline is
 * crossed).  Prints: ok chains=N frames=N sframe=N fp=N signal=N.
 */
#include "sframe_common.h"
#include <alloca.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <sys/wait.h>

#define MAXF 256
#define NF 12

typedef int (*fn_t)(int, unsigned int);

static fn_t fns[NF];
static struct obj self, lib;
static volatile int sigmode;
static long chains, frames, n_sframe, n_fp, n_signal, ends[USTACK_END_MAX + 1], tail;
static int (*lib_call)(fn_t cb, int d, unsigned int s);
static pid_t mypid;

static int known(uintptr_t a)
{
	return (a >= self.text_lo && a < self.text_hi) ||
	       (a >= lib.text_lo && a < lib.text_hi);
}

static NOINLINE int check(void)
{
	void *bt[MAXF];
	uint64_t ips[MAXF + 2];
	uint8_t m[MAXF + 2];
	unsigned int end = 99;
	int nb, nu, i, j;

	nb = backtrace(bt, MAXF);
	nu = self_stack(ips, m, MAXF + 2, &end);
	if (nu < 0)
		die("self_stack: %s", strerror(-nu));
	for (i = 0; 1 + i < nb; i++) {
		uintptr_t want = (uintptr_t)bt[1 + i];

		if (2 + i >= nu || ips[2 + i] != want) {
			printf("mismatch at frame %d (end=%u)\n", i, end);
			for (j = 0; j < nb || j + 1 < nu; j++)
				printf("  bt %18p  ustack 0x%016llx %s\n",
				       j < nb ? bt[j] : NULL,
				       j + 1 < nu ? (unsigned long long)ips[j + 1] : 0ULL,
				       j + 1 < nu ? method_name(m[j + 1]) : "");
			die("walk differs from backtrace() at frame %d", i);
		}
		frames++;
		n_sframe += m[2 + i] == USTACK_METHOD_SFRAME;
		n_fp += m[2 + i] == USTACK_METHOD_FP;
		n_signal += m[2 + i] == USTACK_METHOD_SIGNAL;
		if (!known(want) &&
		    !(3 + i < nu && m[3 + i] == USTACK_METHOD_SIGNAL))
			break;	/* first frame outside: compared, then stop */
	}
	chains++;
	ends[end < USTACK_END_MAX ? end : USTACK_END_MAX]++;
	tail += nu > 3 + i ? nu - 3 - i : 0;	/* below the last compared */
	return 1;
}

static inline __attribute__((always_inline)) long raw_kill(int sig)
{
	long r;

	asm volatile("syscall" : "=a"(r) : "0"((long)SYS_kill), "D"((long)mypid),
		     "S"((long)sig) : "rcx", "r11", "memory");
	return r;
}

static inline __attribute__((always_inline)) int next(int d, unsigned int s)
{
	s = s * 1103515245u + 12345u;
	if (d <= 0) {
		if (sigmode) {
			int sig = sigmode == 1 ? SIGUSR1 : SIGUSR2;

			sigmode = 0;
			return (int)raw_kill(sig) + 1;
		}
		return check();
	}
	if (lib_call && ((s >> 9) % 5) == 0)
		return lib_call(fns[(s >> 16) % NF], d - 1, s);
	return fns[(s >> 16) % NF](d - 1, s);
}

#define PADFN(N, PAD)							\
static NOINLINE int f##N(int d, unsigned int s)				\
{									\
	volatile char pad[PAD];						\
	int r;								\
	pad[0] = (char)d;						\
	pad[PAD - 1] = (char)s;						\
	r = next(d, s);							\
	return r + pad[0] + pad[PAD - 1] - (char)d - (char)s;		\
}

#define ALLOCAFN(N)							\
static NOINLINE int f##N(int d, unsigned int s)				\
{									\
	volatile char *p = alloca(8 + ((s >> 4) & 511));		\
	int r;								\
	p[0] = (char)d;							\
	r = next(d, s);							\
	return r + p[0] - (char)d;					\
}

#define ARGSFN(N)							\
static NOINLINE int f##N(int d, unsigned int s)				\
{									\
	long a = d, b = s, c = d * 3, e = s ^ 7;			\
	int r;								\
	asm volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(e));		\
	r = next(d, s);							\
	asm volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(e));		\
	return r + (int)(a + b + c + e - d - s - d * 3 - (s ^ 7));	\
}

PADFN(0, 1)
PADFN(1, 8)
PADFN(2, 17)
PADFN(3, 64)
PADFN(4, 200)
PADFN(5, 1000)
PADFN(6, 4096)
PADFN(7, 10000)
ALLOCAFN(8)
ALLOCAFN(9)
ARGSFN(10)
ARGSFN(11)

static void handler(int sig)
{
	static unsigned int hs = 1;

	hs = hs * 2654435761u + (unsigned int)sig;
	fns[(hs >> 16) % NF]((int)((hs >> 8) % 12), hs);
}

int main(int argc, char **argv)
{
	static char altstack[1 << 16];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa;
	const char *mode;
	unsigned int seed, s;
	int iters, i, err;

	if (argc < 4)
		die("usage: %s reg|disc|none ITERS SEED [LIB]", argv[0]);
	mode = argv[1];
	iters = atoi(argv[2]);
	seed = (unsigned int)strtoul(argv[3], NULL, 0);
	mypid = getpid();
	sf_open();
	err = find_obj("", &self);
	if (!self.found || !self.text_hi)
		die("no text range of the program");
	if (argc > 4) {
		void *h = dlopen(argv[4], RTLD_NOW);

		if (!h)
			die("dlopen %s: %s", argv[4], dlerror());
		lib_call = (int (*)(fn_t, int, unsigned int))dlsym(h, "sframe_lib_call");
		if (!lib_call || find_obj("sframe_lib", &lib) || !lib.text_hi)
			die("library: no sframe_lib_call or no .sframe");
	}
	if (!strcmp(mode, "reg") || !strcmp(mode, "regfork")) {
		if (err)
			die("no .sframe in the program");
		err = sf_reg(self.sf, self.sf_len, self.text_lo, self.text_hi);
		if (err)
			die("register: %s", strerror(-err));
		if (lib_call) {
			err = sf_reg(lib.sf, lib.sf_len, lib.text_lo, lib.text_hi);
			if (err)
				die("register lib: %s", strerror(-err));
		}
	}
	fns[0] = f0; fns[1] = f1; fns[2] = f2; fns[3] = f3;
	fns[4] = f4; fns[5] = f5; fns[6] = f6; fns[7] = f7;
	fns[8] = f8; fns[9] = f9; fns[10] = f10; fns[11] = f11;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR2, &sa, NULL);
	if (sigaltstack(&ss, NULL))
		die("sigaltstack");

	if (!strcmp(mode, "regfork")) {
		pid_t pid = fork();
		int st;

		if (pid < 0)
			die("fork");
		if (pid) {
			if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
				die("child died (status 0x%x)", st);
			return WEXITSTATUS(st);
		}
		mypid = getpid();
	}
	s = seed;
	for (i = 0; i < iters; i++) {
		s = s * 1103515245u + 12345u;
		fns[(s >> 16) % NF]((int)((s >> 4) % 40), s);
	}
	for (i = 0; i < iters / 2; i++) {
		s = s * 1103515245u + 12345u;
		sigmode = 1 + (i & 1);
		fns[(s >> 16) % NF]((int)((s >> 4) % 20), s);
	}
	if (chains != iters + iters / 2)
		die("%ld chains checked, want %d", chains, iters + iters / 2);
	printf("ok chains=%ld frames=%ld sframe=%ld fp=%ld signal=%ld "
	       "(below: %ld frames; end outermost=%ld fault=%ld bad=%ld)\n",
	       chains, frames, n_sframe, n_fp, n_signal, tail,
	       ends[USTACK_END_OUTERMOST], ends[USTACK_END_FAULT],
	       ends[USTACK_END_BAD_FRAME]);
	return 0;
}
