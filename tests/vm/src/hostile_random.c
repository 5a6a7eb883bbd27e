// SPDX-License-Identifier: GPL-2.0
/*
 * A random hostile user, for the VM tests (hostile-random.sh, issue 14):
 * as uid 65534, NPROC processes call random /dev/sframe ioctls (valid,
 * half-valid and garbage), map, unmap, protect and scribble over the
 * memory those ioctls name, fork, exec and start threads, for SECS
 * seconds from SEED, while root samples the whole machine.  The kernel
 * must stay clean (the harness checks the log) and every call must come
 * back: the program prints its operations and errno counts and exits 0.
 *
 *   hostile_random SECS SEED [NPROC]
 *   hostile_random child SEED          (after exec: a short burst)
 *
 * It scribbles only over memory it mapped for that, and over a copy of
 * its own .sframe section it registered: never its own stack or heap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <uapi/ustack.h>

#define DIE(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); exit(1); } while (0)

#define NREG	16		/* regions a process plays with */
#define PAGE	4096UL

enum op { OP_MMAP, OP_MUNMAP, OP_MPROTECT, OP_SCRIBBLE, OP_REGISTER,
	  OP_UNREGISTER, OP_SELF, OP_COOP, OP_STORE, OP_IOCTL, OP_FORK,
	  OP_EXEC, OP_THREAD, OP_MAX };
static const char *const op_name[OP_MAX] = {
	"mmap", "munmap", "mprotect", "scribble", "register", "unregister",
	"self", "coop", "store", "ioctl", "fork", "exec", "thread",
};

struct region { unsigned long addr, len; int prot; };

static __thread uint64_t rng;
static __thread int depth;	/* children and threads start none */
static struct region reg[NREG];
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static int sf;
static const char *self_exe;
static unsigned long text_lo, text_hi, sframe_lo, sframe_len;
/* Shared by the processes (MAP_SHARED): the report sums them all. */
static struct counts { long ops[OP_MAX], errs[OP_MAX][134]; } *cnt;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static unsigned long pick(unsigned long n) { return n ? rnd() % n : 0; }

static void count(enum op op, long ret)
{
	__atomic_add_fetch(&cnt->ops[op], 1, __ATOMIC_RELAXED);
	if (ret >= 0)
		__atomic_add_fetch(&cnt->errs[op][0], 1, __ATOMIC_RELAXED);
	else if (errno > 0 && errno < 134)
		__atomic_add_fetch(&cnt->errs[op][errno], 1, __ATOMIC_RELAXED);
}

/* The executable's own text and PT_GNU_SFRAME: a valid section to abuse. */
static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size; (void)data;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0;	/* the main program comes first, unnamed */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];

		if (p->p_type == PT_LOAD && (p->p_flags & PF_X)) {
			text_lo = info->dlpi_addr + p->p_vaddr;
			text_hi = text_lo + p->p_memsz;
		}
		if (p->p_type == 0x6474e554) {	/* PT_GNU_SFRAME */
			sframe_lo = info->dlpi_addr + p->p_vaddr;
			sframe_len = p->p_memsz;
		}
	}
	return 1;
}

/* An address worth passing: in a region, in the text, or anything. */
static unsigned long some_addr(void)
{
	struct region r = reg[pick(NREG)];

	switch (pick(6)) {
	case 0: return text_lo + pick(text_hi - text_lo + 1);
	case 1: return sframe_lo + pick(sframe_len + 1);
	case 2: return rnd();
	case 3: return rnd() & 0x7ffffffff000UL;
	default: return r.addr ? r.addr + pick(r.len + 1) : text_lo;
	}
}

/*
 * An address the kernel may be asked to write to: never memory of ours
 * that is writable (a write past a region's end would land in libc's).
 */
static unsigned long bad_addr(void)
{
	switch (pick(4)) {
	case 0: return text_lo + pick(text_hi - text_lo + 1);
	case 1: return sframe_lo + pick(sframe_len + 1);
	case 2: return 0xffff800000000000UL | rnd();
	default: return pick(2) ? 0 : pick(PAGE);
	}
}

static unsigned long some_len(void)
{
	switch (pick(4)) {
	case 0: return rnd();
	case 1: return sframe_len;
	case 2: return pick(64 * PAGE);
	default: return pick(64);
	}
}

static void op_mmap(void)
{
	unsigned long len = (1 + pick(32)) * PAGE;
	int prot = pick(8), i = pick(NREG);
	void *p;

	p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	count(OP_MMAP, p == MAP_FAILED ? -1 : 0);
	if (p == MAP_FAILED)
		return;
	pthread_mutex_lock(&reg_lock);
	if (reg[i].addr)
		munmap((void *)reg[i].addr, reg[i].len);
	reg[i] = (struct region){ (unsigned long)p, len, prot };
	/* Sometimes a copy of the real section, to register and then spoil. */
	if ((prot & PROT_WRITE) && sframe_len && sframe_len <= len && !pick(2))
		memcpy(p, (void *)sframe_lo, sframe_len);
	pthread_mutex_unlock(&reg_lock);
}

static void op_munmap(void)
{
	int i = pick(NREG);
	unsigned long off, len;

	pthread_mutex_lock(&reg_lock);
	if (reg[i].addr) {
		/* A hole in the middle or all of it. */
		off = pick(reg[i].len / PAGE) * PAGE;
		len = pick(2) ? reg[i].len : PAGE;
		if (len == reg[i].len)
			off = 0;
		if (len == reg[i].len) {
			count(OP_MUNMAP, munmap((void *)reg[i].addr, len));
			reg[i].addr = 0;
		} else {
			/*
			 * A hole, made by mapping over one page: a real
			 * unmapping of what was there (registrations on it
			 * die) that keeps the address ours, so that no later
			 * mmap lands in it and is unmapped with this region.
			 */
			count(OP_MUNMAP, mmap((void *)(reg[i].addr + off), len,
					      PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
					      MAP_FIXED, -1, 0) == MAP_FAILED ? -1 : 0);
			reg[i].prot = 0;	/* never written again */
		}
	}
	pthread_mutex_unlock(&reg_lock);
}

static void op_mprotect(void)
{
	int i = pick(NREG), prot = pick(8);

	pthread_mutex_lock(&reg_lock);
	if (reg[i].addr && reg[i].prot) {
		count(OP_MPROTECT, mprotect((void *)reg[i].addr, reg[i].len, prot));
		reg[i].prot = prot;
	}
	pthread_mutex_unlock(&reg_lock);
}

static void op_scribble(void)
{
	int i = pick(NREG), n = 1 + pick(16);

	pthread_mutex_lock(&reg_lock);
	if (reg[i].addr && (reg[i].prot & PROT_WRITE) && (reg[i].prot & PROT_READ)) {
		unsigned char *p = (unsigned char *)reg[i].addr;

		while (n--)
			p[pick(reg[i].len)] = rnd();
		count(OP_SCRIBBLE, 0);
	}
	pthread_mutex_unlock(&reg_lock);
}

static void op_register(bool un)
{
	int i = pick(NREG);
	struct sframe_reg r = {
		.size = pick(16) ? sizeof(r) : pick(64),
		.flags = pick(16) ? 0 : rnd(),
		.sframe_start = reg[i].addr && pick(2) ? reg[i].addr : some_addr(),
		.sframe_len = some_len(),
		.text_start = pick(2) ? text_lo : some_addr(),
		.text_end = pick(2) ? text_hi : some_addr(),
	};

	if (!pick(3)) {		/* the real section, valid */
		r.sframe_start = sframe_lo;
		r.sframe_len = sframe_len;
	}
	count(un ? OP_UNREGISTER : OP_REGISTER,
	      ioctl(sf, un ? SFRAME_IOC_UNREGISTER : SFRAME_IOC_REGISTER, &r));
}

static void op_self(void)
{
	static __thread uint64_t ips[1100];
	static __thread uint8_t methods[1100];
	struct ustack_self s = {
		.size = pick(16) ? sizeof(s) : pick(128),
		.ips = pick(8) ? (uintptr_t)ips : bad_addr(),
		.methods = pick(2) ? (uintptr_t)methods : pick(2) ? 0 : bad_addr(),
		.max_frames = pick(4) ? pick(1100) : rnd(),
		.reserved = pick(16) ? 0 : 1,
	};

	if (s.max_frames > 1100 && (s.ips == (uintptr_t)ips))
		s.max_frames = 1100;
	count(OP_SELF, ioctl(sf, SFRAME_IOC_SELF_STACK, &s));
}

static void op_coop(void)
{
	struct ustack_coop c = {
		.size = sizeof(c), .signo = SIGRTMIN + pick(4),
		.reserved = pick(16) ? 0 : 1,
	};
	struct ustack_coop_frame fr[4] = { { 0 } };
	char strtab[64] = "f\0file.py";
	struct ustack_coop_answer a = {
		.size = sizeof(a), .cookie = rnd(),
		.frames = pick(4) ? (uintptr_t)fr : some_addr(),
		.strtab = (uintptr_t)strtab, .nr_frames = pick(6),
		.strtab_len = pick(80), .lang = "random",
	};

	fr[0].file = 2;
	fr[1].function = pick(100);
	switch (pick(3)) {
	case 0: count(OP_COOP, ioctl(sf, SFRAME_IOC_COOP_ON, &c)); break;
	case 1: count(OP_COOP, ioctl(sf, SFRAME_IOC_COOP_OFF, &c)); break;
	default: count(OP_COOP, ioctl(sf, SFRAME_IOC_COOP_ANSWER, &a)); break;
	}
}

static void op_store(void)
{
	struct sframe_store_reg r = {
		.size = sizeof(r), .object_fd = 0, .sframe_fd = 0,
		.sframe_len = some_len(),
	};

	if (ioctl(sf, pick(2) ? SFRAME_IOC_STORE_ADD : SFRAME_IOC_STORE_FLUSH,
		  &r) == 0)
		DIE("an unprivileged store ioctl succeeded");
	count(OP_STORE, -1);
}

static void op_ioctl(void)
{
	unsigned long cmd = pick(2) ? _IOC(pick(4), USTACK_IOC_MAGIC, pick(32),
					   pick(256)) : rnd();

	count(OP_IOCTL, ioctl(sf, cmd, bad_addr()));
}

static void burst(int n);

static void op_fork(bool exec)
{
	char seed[32];
	pid_t pid = fork();

	if (pid == 0) {
		rng = rng * 2654435761u + 1;
		depth = 1;
		if (exec) {
			snprintf(seed, sizeof(seed), "%llu", (unsigned long long)rnd());
			execl(self_exe, "hostile_random", "child", seed, (char *)NULL);
			_exit(127);
		}
		burst(50);
		_exit(0);
	}
	count(exec ? OP_EXEC : OP_FORK, pid < 0 ? -1 : 0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static void *thread_fn(void *arg)
{
	rng = (uintptr_t)arg | 1;
	depth = 1;
	burst(100);
	return NULL;
}

static void op_thread(void)
{
	pthread_t th;

	if (!pthread_create(&th, NULL, thread_fn, (void *)(uintptr_t)rnd())) {
		pthread_join(th, NULL);
		count(OP_THREAD, 0);
	}
}

static void one(void)
{
	switch (pick(20)) {
	case 0: case 1: op_mmap(); break;
	case 2: op_munmap(); break;
	case 3: op_mprotect(); break;
	case 4: case 5: op_scribble(); break;
	case 6: case 7: case 8: op_register(false); break;
	case 9: op_register(true); break;
	case 10: case 11: case 12: op_self(); break;
	case 13: op_coop(); break;
	case 14: op_store(); break;
	case 15: op_ioctl(); break;
	case 16: if (!depth && !pick(4)) op_fork(false); break;
	case 17: if (!depth && !pick(8)) op_fork(true); break;
	case 18: if (!depth && !pick(4)) op_thread(); break;
	default: sched_yield(); break;
	}
}

static void burst(int n)
{
	while (n--)
		one();
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void setup(uint64_t seed)
{
	struct sigaction sa = { .sa_handler = SIG_IGN };

	rng = seed | 1;
	/* No handler for the cooperative signals: the kernel must not send. */
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		sigaction(s, &sa, NULL);
	sf = open("/dev/sframe", O_RDWR);
	if (sf < 0)
		DIE("open /dev/sframe: %s", strerror(errno));
	dl_iterate_phdr(find_self, NULL);
	if (!text_lo)
		DIE("no executable segment");
}

static void report(void)
{
	for (int op = 0; op < OP_MAX; op++) {
		printf("%s=%ld ok:%ld", op_name[op], cnt->ops[op], cnt->errs[op][0]);
		for (int e = 1; e < 134; e++)
			if (cnt->errs[op][e])
				printf(" %s:%ld", strerrorname_np(e), cnt->errs[op][e]);
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	double end;
	int nproc, st, bad = 0;

	self_exe = "/proc/self/exe";
	cnt = mmap(NULL, sizeof(*cnt), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (cnt == MAP_FAILED)
		DIE("mmap: %s", strerror(errno));
	if (argc == 3 && !strcmp(argv[1], "child")) {
		setup(strtoull(argv[2], NULL, 0));
		depth = 1;
		burst(50);
		return 0;
	}
	if (argc < 3)
		DIE("usage: hostile_random SECS SEED [NPROC]");
	if (setgid(65534) || setuid(65534))
		DIE("setuid: %s", strerror(errno));
	end = now() + atof(argv[1]);
	nproc = argc > 3 ? atoi(argv[3]) : 4;
	printf("seed %s, %d processes\n", argv[2], nproc);
	fflush(stdout);
	for (int i = 0; i < nproc; i++) {
		if (fork() == 0) {
			setup(strtoull(argv[2], NULL, 0) + i * 0x9e3779b97f4a7c15ULL);
			while (now() < end)
				burst(100);
			_exit(0);
		}
	}
	while (wait(&st) > 0) {
		if (WIFEXITED(st) && !WEXITSTATUS(st))
			continue;
		bad++;
		printf("a process ended with %s %d\n",
		       WIFSIGNALED(st) ? "signal" : "exit",
		       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	}
	report();
	if (bad)
		DIE("%d of %d processes did not exit 0", bad, nproc);
	printf("done\n");
	return 0;
}
