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
 *
 * Round 2 (issue 25) adds what a user can do to ustackd and the shared
 * tables: files of its own that it maps, runs code in and then touches,
 * renames and truncates (each change a new identity for ustackd); ELF
 * files crafted to cost a parser dearly (extended section numbering, a
 * gigabyte of empty notes, sparse); cooperative processes killed while
 * their threads owe answers; and counting perf events on the ustack
 * tracepoints (ids in USTACK_TP_IDS, "ID,ID") where the paranoia level
 * lets them open.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <uapi/ustack.h>

#define DIE(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); exit(1); } while (0)

#define NREG	16		/* regions a process plays with */
#define PAGE	4096UL

enum op { OP_MMAP, OP_MUNMAP, OP_MPROTECT, OP_SCRIBBLE, OP_REGISTER,
	  OP_UNREGISTER, OP_SELF, OP_COOP, OP_STORE, OP_IOCTL, OP_FORK,
	  OP_EXEC, OP_THREAD, OP_FILE, OP_ELF, OP_KILL, OP_PERF, OP_MAX };
static const char *const op_name[OP_MAX] = {
	"mmap", "munmap", "mprotect", "scribble", "register", "unregister",
	"self", "coop", "store", "ioctl", "fork", "exec", "thread",
	"file", "elf", "kill", "perf",
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

/* ---- files of the user's own (round 2) -------------------------------- */

#define NFILES	6		/* crafted files a process keeps */
#define CODE_OFF 0x1000UL	/* where a crafted file's code is */

/* ioctl(rdi, rsi, rdx) and return: code with no data, run from a file */
static const unsigned char leaf_code[] = {
	0x48, 0xc7, 0xc0, SYS_ioctl, 0, 0, 0,	/* mov $SYS_ioctl, %rax */
	0x0f, 0x05,				/* syscall */
	0xc3,					/* ret */
};

struct ufile { char path[64]; void *map; size_t len; };

static char dir[32];
static struct ufile ufiles[NFILES];
static pthread_mutex_t file_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread sigjmp_buf *fault_jmp;

/* SIGBUS or SIGSEGV in a call into a file truncated under it: undone. */
static void on_fault(int sig)
{
	if (!fault_jmp) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	siglongjmp(*fault_jmp, 1);
}

/*
 * SELF_STACK from code in @map: the walk meets a PC in a file of the
 * user's own, which the store has never seen (a miss for ustackd).
 */
static long self_from(void *map)
{
	long (*leaf)(long, long, long) = (long (*)(long, long, long))
		((char *)map + CODE_OFF);
	static __thread uint64_t ips[64];
	struct ustack_self s = {
		.size = sizeof(s), .ips = (uintptr_t)ips, .max_frames = 64,
	};
	sigjmp_buf jb;
	long ret = -1;

	if (!sigsetjmp(jb, 1)) {
		fault_jmp = &jb;
		ret = leaf(sf, SFRAME_IOC_SELF_STACK, (long)&s);
	} else {
		errno = EFAULT;
	}
	fault_jmp = NULL;
	return ret;
}

/* A crafted ELF into @fd: kind 0..2 (see op_elf). */
static void write_elf(int fd, int kind)
{
	static unsigned char page[2 * PAGE];
	Elf64_Ehdr *eh = (Elf64_Ehdr *)page;
	Elf64_Phdr *ph = (Elf64_Phdr *)(page + sizeof(*eh));
	Elf64_Shdr sh0 = { 0 };
	unsigned long big = 1UL << 30;

	memset(page, 0, sizeof(page));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_phnum = 2;
	ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X,
			      .p_offset = 0, .p_vaddr = 0,
			      .p_filesz = 2 * PAGE, .p_memsz = 2 * PAGE,
			      .p_align = PAGE };
	/* a gigabyte of notes with empty names and bodies (sparse zeros) */
	ph[1] = (Elf64_Phdr){ .p_type = PT_NOTE, .p_flags = PF_R,
			      .p_offset = 2 * PAGE, .p_filesz = big,
			      .p_align = 4 };
	if (kind == 0) {
		/* extended numbering: the count is section 0's size */
		eh->e_shnum = 0;
		eh->e_shstrndx = SHN_XINDEX;
		eh->e_shoff = big - sizeof(sh0);
		sh0.sh_size = 1000000;
		sh0.sh_link = 999999;
	} else if (kind == 1) {
		eh->e_shnum = 65535;
		eh->e_shoff = 2 * PAGE;
	}
	memcpy(page + CODE_OFF, leaf_code, sizeof(leaf_code));
	if (pwrite(fd, page, sizeof(page), 0) != sizeof(page))
		return;
	if (kind == 0)
		pwrite(fd, &sh0, sizeof(sh0), eh->e_shoff);
	if (ftruncate(fd, kind == 2 ? (off_t)pick(2 * PAGE) : (off_t)big))
		return;
}

static void ufile_unmap(struct ufile *f)
{
	if (f->map)
		munmap(f->map, f->len);
	f->map = NULL;
}

/*
 * A crafted ELF of the user's own, mapped as code, run (a miss for
 * ustackd to examine): extended section numbering over a sparse
 * gigabyte, 65,535 sections, or one cut short; sometimes truncated
 * while mapped.
 */
static void op_elf(void)
{
	struct ufile *f = &ufiles[pick(NFILES)];
	int fd;

	if (!dir[0])
		return;
	pthread_mutex_lock(&file_lock);
	ufile_unmap(f);
	snprintf(f->path, sizeof(f->path), "%s/elf%lu", dir, pick(1000));
	fd = open(f->path, O_RDWR | O_CREAT | O_TRUNC, 0755);
	if (fd >= 0) {
		write_elf(fd, pick(3));
		f->len = 2 * PAGE;
		f->map = mmap(NULL, f->len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		if (f->map == MAP_FAILED)
			f->map = NULL;
		close(fd);
	}
	count(OP_ELF, f->map ? self_from(f->map) : -1);
	if (f->map && !pick(4))
		truncate(f->path, pick(2 * PAGE));
	if (!pick(3))
		unlink(f->path);
	pthread_mutex_unlock(&file_lock);
}

/*
 * A file of the user's own, mapped and run, then changed under the
 * mapping: touched (a new ctime: a new identity), renamed, truncated, or
 * rewritten.
 */
static void op_file(void)
{
	struct ufile *f = &ufiles[pick(NFILES)];
	char other[80];
	int fd;

	if (!dir[0])
		return;
	pthread_mutex_lock(&file_lock);
	if (!f->map) {
		snprintf(f->path, sizeof(f->path), "%s/prog%lu", dir, pick(1000));
		fd = open(f->path, O_RDWR | O_CREAT | O_TRUNC, 0755);
		if (fd >= 0) {
			write_elf(fd, 1 + pick(1));
			f->len = 2 * PAGE;
			f->map = mmap(NULL, f->len, PROT_READ | PROT_EXEC,
				      MAP_PRIVATE, fd, 0);
			if (f->map == MAP_FAILED)
				f->map = NULL;
			close(fd);
		}
	}
	switch (pick(5)) {
	case 0:
		count(OP_FILE, utimensat(AT_FDCWD, f->path, NULL, 0));
		break;
	case 1:
		snprintf(other, sizeof(other), "%s.%lu", f->path, pick(4));
		count(OP_FILE, rename(f->path, other));
		rename(other, f->path);
		break;
	case 2:
		count(OP_FILE, truncate(f->path, pick(3 * PAGE)));
		break;
	case 3:
		count(OP_FILE, truncate(f->path, 2 * PAGE));
		break;
	default:
		count(OP_FILE, f->map ? self_from(f->map) : -1);
		break;
	}
	pthread_mutex_unlock(&file_lock);
}

/* ---- cooperative processes killed mid-request (round 2) --------------- */

static void never_answer(int sig)
{
	(void)sig;
	pause();	/* owes its answer until killed */
}

static void *owing_thread(void *arg)
{
	int *fds = arg;
	char c;

	rng = (uintptr_t)&c | 1;
	if (pick(2))
		read(fds[0], &c, 1);	/* a stay whose system call never ends */
	for (;;)
		op_self();
	return NULL;
}

/*
 * A child that opts in to cooperative unwinding with a handler that never
 * answers, with threads asleep in system calls or walking themselves,
 * killed (SIGKILL, sometimes SIGTERM) a few milliseconds later.
 */
static void op_kill(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct sigaction sa = { .sa_handler = never_answer };
		struct ustack_coop c = { .size = sizeof(c), .signo = SIGRTMIN + 1 };
		static int fds[2];
		pthread_t th;

		depth = 1;
		rng = rng * 2654435761u + 7;
		sigaction(SIGRTMIN + 1, &sa, NULL);
		ioctl(sf, SFRAME_IOC_COOP_ON, &c);
		if (pipe(fds))
			_exit(1);
		for (int i = 0; i < 1 + (int)pick(8); i++)
			pthread_create(&th, NULL, owing_thread, fds);
		owing_thread(fds);
		_exit(0);
	}
	if (pid < 0) {
		count(OP_KILL, -1);
		return;
	}
	usleep(pick(20000));
	count(OP_KILL, kill(pid, pick(4) ? SIGKILL : SIGTERM));
	waitpid(pid, NULL, 0);
}

/* ---- perf events on the ustack tracepoints (round 2) ------------------ */

static long tp_ids[4];
static int nr_tp_ids;

static void op_perf(void)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_TRACEPOINT, .size = sizeof(a),
		.config = nr_tp_ids ? (uint64_t)tp_ids[pick(nr_tp_ids)] : rnd(),
		.sample_period = pick(2), .disabled = pick(2),
	};
	long n, fd;

	if (!nr_tp_ids)
		return;
	/* this task, this task and its children, or a whole CPU; only user
	 * mode is what paranoia level 2 lets a user count */
	a.inherit = pick(2);
	a.exclude_kernel = pick(8) != 0;
	fd = syscall(SYS_perf_event_open, &a, pick(3) ? 0 : -1,
		     a.inherit ? -1 : (int)pick(2) - 1, -1, 0);
	count(OP_PERF, fd);
	if (fd < 0)
		return;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	burst(1 + pick(20));
	if (read(fd, &n, sizeof(n)) < 0)
		n = 0;
	close(fd);
}

static void files_setup(void)
{
	struct sigaction sa = { .sa_handler = on_fault, .sa_flags = SA_NODEFER };
	const char *ids = getenv("USTACK_TP_IDS");

	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	strcpy(dir, "/tmp/hrXXXXXX");
	if (!mkdtemp(dir))
		dir[0] = 0;
	for (nr_tp_ids = 0; ids && *ids && nr_tp_ids < 4; nr_tp_ids++) {
		tp_ids[nr_tp_ids] = strtol(ids, (char **)&ids, 10);
		if (*ids == ',')
			ids++;
	}
}

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
	switch (pick(24)) {
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
	case 19: op_file(); break;
	case 20: op_elf(); break;
	case 21: if (!depth && !pick(4)) op_kill(); break;
	case 22: if (!pick(4)) op_perf(); break;
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
			files_setup();
			/*
			 * The rare kinds once each first: on a slow kernel
			 * (the debug one) chance left exec out of a run.
			 */
			if (i == 0) {
				op_fork(false);
				op_fork(true);
				op_thread();
				op_kill();
			}
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
