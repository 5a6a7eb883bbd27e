// SPDX-License-Identifier: GPL-2.0
/*
 * The costliest SFrame sections the caps allow, registered and walked by
 * an unprivileged user (issue 14, "Unbounded work"):
 *
 *   one   a 64 MiB v2 section of one FDE (func_size 0xfffffff0) with as
 *         many FREs as fit: refused (EBADMSG) at once; where it was taken,
 *         every frame of a walk scanned them all
 *   many  the costliest one accepted: FDEs of 65535 FREs each up to the
 *         64 MiB cap, over a 4 GiB PROT_EXEC MAP_NORESERVE text
 *
 * Each is walked by SFRAME_IOC_SELF_STACK from code inside its text, on a
 * crafted stack of 1024 distinct return addresses past the last FRE of
 * their FDEs (no rule cache hit, a full FRE scan per frame).  The walk
 * must end within the budget (USTACK_END_BUDGET, well under a second),
 * and a child doing such walks in a loop must die at once on SIGKILL.
 * Prints the time per register and per ioctl, and the worst walk of the
 * costliest section as a `bench` line (tests/bench/hostile.sh).
 *
 * "sframe_hostile spin SECONDS": the costliest accepted section, and a
 * child spinning in its text on the crafted stack for SECONDS, for root's
 * sampling to walk (tests/vm/sframe-hostile-sample.sh); then SIGKILL, and
 * it must be gone within 2 s.
 *
 * "sframe_hostile badra": one FDE whose rule (CFA = SP + 16, RA at
 * CFA - 8) finds a return address of 0 on the crafted stack: the walk
 * ends on a bad frame (bad-return-address), after the interrupted frame.
 */
#include "sframe_common.h"
#include <signal.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/wait.h>

#define TEXT_SIZE	(4ULL << 30)
#define SEC_CAP		(64U << 20)
#define FDE_SPAN	(16U << 20)	/* text per FDE in "many" */
#define FRE_SIZE	6		/* ADDR4: start, info, one 1-byte word */
#define FRAMES		1024

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

/*
 * A v2 section at @b, for @nfdes FDEs of @span bytes of text each from
 * @text, with @nfres FREs each (starts 16 bytes apart, CFA = SP + 16).
 * Function starts are s32 offsets from the section: it must lie within
 * 2 GiB of every function (sec_at()).
 */
static uint8_t *build(uint8_t *b, uint64_t text, uint32_t nfdes,
		      uint32_t span, uint32_t nfres, size_t *len)
{
	size_t fre_bytes = (size_t)nfdes * nfres * FRE_SIZE;
	size_t n = 28 + (size_t)nfdes * 20 + fre_bytes;
	uint8_t *f;

	if (n > SEC_CAP)
		die("section of %zu bytes", n);
	memset(b, 0, 28);
	b[0] = 0xe2; b[1] = 0xde; b[2] = 2; b[3] = 1;	/* FDEs sorted */
	b[4] = 3; b[5] = 0; b[6] = (uint8_t)-8; b[7] = 0;
	put32(b + 8, nfdes);
	put32(b + 12, nfdes * nfres);
	put32(b + 16, (uint32_t)fre_bytes);
	put32(b + 20, 0);
	put32(b + 24, nfdes * 20);
	for (uint32_t i = 0; i < nfdes; i++) {
		f = b + 28 + i * 20;
		/* start relative to the section: it is registered at @b */
		put32(f, (uint32_t)(text + (uint64_t)i * span - (uintptr_t)b));
		put32(f + 4, span);
		put32(f + 8, i * nfres * FRE_SIZE);
		put32(f + 12, nfres);
		f[16] = 2;	/* ADDR4 */
		f[17] = 0;
	}
	f = b + 28 + nfdes * 20;
	for (size_t k = 0; k < (size_t)nfdes * nfres; k++, f += FRE_SIZE) {
		put32(f, (uint32_t)(k % nfres) * 16);
		f[4] = 1 | 1 << 1;	/* SP-based, one 1-byte word */
		f[5] = 16;
	}
	*len = n;
	return b;
}

/* Register the section @sec for [@text, @text + @text_len): 0 or errno. */
static int register_sec(struct sframe_reg *r, const uint8_t *sec, size_t len,
			const uint8_t *text, uint64_t text_len)
{
	*r = (struct sframe_reg) {
		.size = sizeof(*r),
		.sframe_start = (uintptr_t)sec, .sframe_len = len,
		.text_start = (uintptr_t)text,
		.text_end = (uintptr_t)text + text_len,
	};
	return ioctl(sf_fd, SFRAME_IOC_REGISTER, r) ? errno : 0;
}

/*
 * mov %rsp,%r9; mov %rcx,%rsp; mov $16,%eax (ioctl); syscall;
 * mov %r9,%rsp; ret -- ioctl(fd, req, arg) on the stack at @sp.
 */
static const uint8_t stub_code[] = {
	0x49, 0x89, 0xe1, 0x48, 0x89, 0xcc, 0xb8, 0x10, 0x00, 0x00, 0x00,
	0x0f, 0x05, 0x4c, 0x89, 0xcc, 0xc3,
};
typedef long (*stub_fn)(long fd, long req, long arg, void *sp);

static uint64_t *stack;
static stub_fn stub;
static uint64_t ips[FRAMES];

/* One SELF_STACK from the stub on the crafted stack; its ms, end, nr. */
static double self_walk(uint32_t *end, uint32_t *nr)
{
	struct ustack_self s = {
		.size = sizeof(s), .ips = (uintptr_t)ips, .max_frames = FRAMES,
	};
	double t = now_ms();
	long r = stub(sf_fd, SFRAME_IOC_SELF_STACK, (long)(uintptr_t)&s, stack);

	t = now_ms() - t;
	if (r)
		die("SELF_STACK: %ld", r);
	*end = s.end_reason;
	*nr = s.nr_frames;
	return t;
}

/* A child walking in a loop dies within 2 s of SIGKILL. */
static void check_killable(const char *what)
{
	uint32_t end, nr;
	double t;
	pid_t p = fork();
	int st;

	if (p < 0)
		die("fork");
	if (!p) {
		for (;;)
			self_walk(&end, &nr);
	}
	usleep(500000);
	kill(p, SIGKILL);
	t = now_ms();
	while (waitpid(p, &st, WNOHANG) == 0) {
		if (now_ms() - t > 2000)
			die("%s: a walking child is still alive 2 s after SIGKILL",
			    what);
		usleep(10000);
	}
	printf("%s: killed in %.1f ms\n", what, now_ms() - t);
}

/*
 * Where the section is taken (before the bounds): one walk in a child,
 * given 10 s; then SIGKILL, and the time until it is gone.
 */
static void walk_unbounded(const char *what)
{
	uint32_t end, nr;
	double t0 = now_ms(), t;
	pid_t p = fork();
	int st;

	if (p < 0)
		die("fork");
	if (!p) {
		t = self_walk(&end, &nr);
		printf("%s: SELF_STACK %u frames, end %u, %.1f ms\n", what, nr,
		       end, t);
		exit(0);
	}
	while (waitpid(p, &st, WNOHANG) == 0) {
		if (now_ms() - t0 > 10000)
			break;
		usleep(10000);
	}
	if (now_ms() - t0 <= 10000)
		die("%s: accepted (the walk took %.1f ms)", what, now_ms() - t0);
	kill(p, SIGKILL);
	t = now_ms();
	while (waitpid(p, &st, WNOHANG) == 0 && now_ms() - t < 30000)
		usleep(10000);
	die("%s: accepted; a SELF_STACK ran over 10 s; %s %.1f ms after SIGKILL",
	    what, waitpid(p, &st, WNOHANG) ? "its task died" :
	    "its task still alive", now_ms() - t);
}

static void run(const char *what, uint8_t *text, uint32_t nfdes,
		uint32_t span, uint32_t nfres, uint64_t stub_off, int want_err)
{
	struct sframe_reg r;
	uint32_t end = 0, nr = 0;
	size_t len;
	/* inside the text, its last 64 MiB below 2 GiB */
	uint8_t *sec = build(text + (2U << 30) - SEC_CAP, (uintptr_t)text,
			     nfdes, span, nfres, &len);
	double t, worst = 0;
	int err;

	memcpy(text + stub_off, stub_code, sizeof(stub_code));
	stub = (stub_fn)(void *)(text + stub_off);
	/* return addresses past the last FRE, a different FDE each frame */
	for (uint32_t j = 0; j < FRAMES; j++)
		stack[1 + 2 * j] = (uintptr_t)text +
				   (uint64_t)((j + 1) % nfdes) * span +
				   stub_off + 0x1000 + 16 * (j / nfdes) + 1;
	t = now_ms();
	err = register_sec(&r, sec, len, text, TEXT_SIZE);
	printf("%s: %u FDEs x %u FREs, %zu bytes: register %s in %.1f ms\n",
	       what, nfdes, nfres, len, err ? strerror(err) : "ok",
	       now_ms() - t);
	if (!err && want_err)
		walk_unbounded(what);
	if (err != want_err)
		die("%s: register: %s, want %s", what, strerror(err),
		    strerror(want_err));
	if (err)
		return;
	for (int k = 0; k < 5; k++) {
		t = self_walk(&end, &nr);
		worst = t > worst ? t : worst;
	}
	printf("%s: SELF_STACK %u frames, end %u, worst %.1f ms\n", what, nr,
	       end, worst);
	printf("bench hostile_%s_worst_walk %.1f ms\n", what, worst);
	if (end != USTACK_END_BUDGET)
		die("%s: end reason %u, want %u (budget)", what, end,
		    USTACK_END_BUDGET);
	if (worst > 1000)
		die("%s: a walk took %.1f ms", what, worst);
	check_killable(what);
	if (ioctl(sf_fd, SFRAME_IOC_UNREGISTER, &r))
		die("%s: unregister: %s", what, strerror(errno));
}

/* mov %rcx,%rsp; 1: jmp 1b -- spin on the stack at @sp. */
static const uint8_t spin_code[] = { 0x48, 0x89, 0xcc, 0xeb, 0xfe };

/*
 * The costliest accepted section (as "many"), and a child spinning inside
 * its text on the crafted stack: each sample's walk is the worst case.
 */
static void spin(uint8_t *text, uint32_t nfdes, uint32_t per, double secs)
{
	uint64_t stub_off = 0xf00000;
	struct sframe_reg r;
	uint8_t *sec;
	size_t len;
	double t;
	pid_t p;
	int st;

	sec = build(text + (2U << 30) - SEC_CAP, (uintptr_t)text, nfdes,
		    FDE_SPAN, per, &len);
	memcpy(text + stub_off, spin_code, sizeof(spin_code));
	for (uint32_t j = 0; j < FRAMES; j++)
		stack[1 + 2 * j] = (uintptr_t)text +
				   (uint64_t)((j + 1) % nfdes) * FDE_SPAN +
				   stub_off + 0x1000 + 16 * (j / nfdes) + 1;
	errno = register_sec(&r, sec, len, text, TEXT_SIZE);
	if (errno)
		die("spin: register: %s", strerror(errno));
	p = fork();
	if (p < 0)
		die("fork");
	if (!p)
		((stub_fn)(void *)(text + stub_off))(0, 0, 0, stack);
	usleep((useconds_t)(secs * 1e6));
	kill(p, SIGKILL);
	t = now_ms();
	while (waitpid(p, &st, WNOHANG) == 0) {
		if (now_ms() - t > 2000)
			die("spin: the sampled child is alive 2 s after SIGKILL");
		usleep(10000);
	}
	printf("spin: %.1f s sampled, killed in %.1f ms\n", secs, now_ms() - t);
}

static void badra(uint8_t *text)
{
	struct sframe_reg r;
	uint64_t stub_off = 0x1000;
	uint32_t end, nr;
	size_t len;
	uint8_t *sec = build(text + (2U << 30) - SEC_CAP, (uintptr_t)text, 1,
			     FDE_SPAN, 1, &len);

	memcpy(text + stub_off, stub_code, sizeof(stub_code));
	stub = (stub_fn)(void *)(text + stub_off);
	stack[1] = 0;
	errno = register_sec(&r, sec, len, text, FDE_SPAN);
	if (errno)
		die("badra: register: %s", strerror(errno));
	self_walk(&end, &nr);
	printf("badra: SELF_STACK %u frames, end %u\n", nr, end);
	if (end != USTACK_END_BAD_FRAME || nr != 1)
		die("badra: end %u after %u frames, want %u after 1", end, nr,
		    USTACK_END_BAD_FRAME);
}

int main(int argc, char **argv)
{
	uint32_t per = 65535, nfdes = (SEC_CAP - 28) / (20 + per * FRE_SIZE);
	uint32_t one = (SEC_CAP - 28 - 20) / FRE_SIZE;
	uint8_t *text;

	(void)self_stack;	/* sframe_common.h's; this walk is the stub's */
	sf_open();
	text = mmap(NULL, TEXT_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (text == MAP_FAILED)
		die("mmap 4 GiB text: %s", strerror(errno));
	stack = calloc(2 * FRAMES + 64, sizeof(*stack));
	if (!stack)
		die("calloc");
	printf("uid %d\n", getuid());
	if (argc == 3 && !strcmp(argv[1], "spin")) {
		spin(text, nfdes, per, atof(argv[2]));
		printf("ok\n");
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "badra")) {
		badra(text);
		printf("ok\n");
		return 0;
	}
	/* one FDE of every FRE the cap allows: no longer accepted */
	run("one", text, 1, 0xfffffff0, one, 0xf0000000ULL, EBADMSG);
	/* the costliest accepted; code past the last FRE of FDE 0 */
	run("many", text, nfdes, FDE_SPAN, per, 0xf00000, 0);
	printf("ok\n");
	return 0;
}
