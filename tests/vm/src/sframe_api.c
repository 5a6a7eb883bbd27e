// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/sframe registration semantics and bad input.
 *
 *   sframe_api args|bad|cap|unmap LIB|fork|exec|mutate N SEED
 *
 * Each subcommand prints "ok ..." and exits 0, or "FAIL: ..." and exits 1.
 */
#include "sframe_common.h"
#include <dlfcn.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#define PAGE 4096UL

static struct obj self;

#define EXPECT(call, want) do {						\
	int _r = (call);						\
	if (_r != (want))						\
		die("%s:%d: %s = %d (%s), want %d (%s)", __func__,	\
		    __LINE__, #call, _r, strerror(-_r), (want),		\
		    strerror(-(want)));					\
} while (0)

/* A valid SFrame v2 section without FDEs (28 bytes). */
static void empty_section(uint8_t *p)
{
	memset(p, 0, 28);
	p[0] = 0xe2;
	p[1] = 0xde;
	p[2] = 2;	/* version */
	p[3] = 1;	/* sorted */
	p[4] = 3;	/* AMD64 LE */
	p[6] = 0xf8;	/* RA at CFA-8 */
}

static void *map(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	return p;
}

static void self_setup(void)
{
	sf_open();
	if (find_obj("", &self) || !self.sf_len || !self.text_hi)
		die("no .sframe or text in the program");
}

static int cmd_args(void)
{
	struct sframe_reg r = { .size = sizeof(r) };
	struct ustack_self s;
	uint64_t ips[8];

	r.sframe_start = self.sf;
	r.sframe_len = self.sf_len;
	r.text_start = self.text_lo;
	r.text_end = self.text_hi;
	r.flags = 1;
	EXPECT(ioctl(sf_fd, SFRAME_IOC_REGISTER, &r) ? -errno : 0, -EINVAL);
	r.flags = 0;
	r.size = 8;
	EXPECT(ioctl(sf_fd, SFRAME_IOC_REGISTER, &r) ? -errno : 0, -EINVAL);
	EXPECT(ioctl(sf_fd, SFRAME_IOC_REGISTER, NULL) ? -errno : 0, -EFAULT);
	EXPECT(ioctl(sf_fd, _IOW(USTACK_IOC_MAGIC, 99, int), &r) ? -errno : 0,
	       -ENOTTY);
	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.ips = (uintptr_t)ips;
	s.max_frames = 8;
	s.reserved = 1;
	EXPECT(ioctl(sf_fd, SFRAME_IOC_SELF_STACK, &s) ? -errno : 0, -EINVAL);
	s.reserved = 0;
	s.flags = 2;
	EXPECT(ioctl(sf_fd, SFRAME_IOC_SELF_STACK, &s) ? -errno : 0, -EINVAL);
	s.flags = 0;
	s.ips = 0xffff888000000000ULL;
	EXPECT(ioctl(sf_fd, SFRAME_IOC_SELF_STACK, &s) ? -errno : 0, -EFAULT);
	s.ips = (uintptr_t)ips;
	s.max_frames = 0;
	EXPECT(ioctl(sf_fd, SFRAME_IOC_SELF_STACK, &s) ? -errno : 0, 0);
	if (s.nr_frames != 0 || s.end_reason != USTACK_END_DEPTH)
		die("max_frames 0: %u frames, end %u", s.nr_frames, s.end_reason);
	s.max_frames = 1;
	EXPECT(ioctl(sf_fd, SFRAME_IOC_SELF_STACK, &s) ? -errno : 0, 0);
	if (s.nr_frames != 1 || s.end_reason != USTACK_END_DEPTH)
		die("max_frames 1: %u frames, end %u", s.nr_frames, s.end_reason);
	printf("ok args\n");
	return 0;
}

static int cmd_bad(void)
{
	uint8_t *buf = map(4 * PAGE, PROT_READ | PROT_WRITE);
	uint8_t *text = map(2 * PAGE, PROT_READ | PROT_EXEC);
	uint8_t *hole = text + PAGE;
	uintptr_t lo = (uintptr_t)text, hi = lo + 256;
	unsigned int i;

	munmap(hole, PAGE);
	/* garbage */
	srand(1);
	for (i = 0; i < 4 * PAGE; i++)
		buf[i] = (uint8_t)rand();
	buf[0] = 0;
	EXPECT(sf_reg((uintptr_t)buf, 4 * PAGE, lo, hi), -EBADMSG);
	/* truncated: shorter than the header, and cut inside the FDEs */
	memcpy(buf, (void *)self.sf, self.sf_len < 4 * PAGE ? self.sf_len : 4 * PAGE);
	EXPECT(sf_reg((uintptr_t)buf, 10, lo, hi), -EBADMSG);
	EXPECT(sf_reg((uintptr_t)buf, 40, lo, hi), -EBADMSG);
	EXPECT(sf_reg((uintptr_t)buf, self.sf_len - 1, lo, hi), -EBADMSG);
	/* inconsistent: FDE count beyond the section, FRE count too big */
	buf[8] = 0xff;
	EXPECT(sf_reg((uintptr_t)buf, self.sf_len, lo, hi), -EBADMSG);
	memcpy(buf, (void *)self.sf, self.sf_len);
	buf[12] += 1;
	EXPECT(sf_reg((uintptr_t)buf, self.sf_len, lo, hi), -EBADMSG);
	/* unsupported version and ABI */
	empty_section(buf);
	buf[2] = 9;
	EXPECT(sf_reg((uintptr_t)buf, 28, lo, hi), -EOPNOTSUPP);
	empty_section(buf);
	buf[4] = 1;
	EXPECT(sf_reg((uintptr_t)buf, 28, lo, hi), -EOPNOTSUPP);
	/* ranges: not mapped, not executable, not readable, empty, wrapping */
	empty_section(buf);
	EXPECT(sf_reg((uintptr_t)buf, 28, (uintptr_t)hole, (uintptr_t)hole + 16), -ENXIO);
	EXPECT(sf_reg((uintptr_t)hole, 28, lo, hi), -ENXIO);
	EXPECT(sf_reg((uintptr_t)buf, 28, lo, lo + 2 * PAGE), -ENXIO);
	EXPECT(sf_reg((uintptr_t)buf, 28, (uintptr_t)buf, (uintptr_t)buf + 64), -EACCES);
	mprotect(buf + PAGE, PAGE, PROT_NONE);
	EXPECT(sf_reg((uintptr_t)buf + PAGE, 28, lo, hi), -EACCES);
	mprotect(buf + PAGE, PAGE, PROT_READ | PROT_WRITE);
	EXPECT(sf_reg((uintptr_t)buf, 28, hi, lo), -EINVAL);
	EXPECT(sf_reg((uintptr_t)buf, 0, lo, hi), -EINVAL);
	EXPECT(sf_reg(UINTPTR_MAX - 8, 28, lo, hi), -EINVAL);
	/* kernel addresses */
	EXPECT(sf_reg(0xffff888000000000UL, 28, lo, hi), -EFAULT);
	EXPECT(sf_reg((uintptr_t)buf, 28, 0xffffffff81000000UL,
		      0xffffffff81001000UL), -EFAULT);
	/* another process's addresses: mapped only in a child */
	{
		int p[2];
		pid_t pid;
		char c;

		if (pipe(p))
			die("pipe");
		pid = fork();
		if (!pid) {
			void *x = mmap(hole, PAGE, PROT_READ | PROT_EXEC,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

			c = x == hole ? 'y' : 'n';
			if (write(p[1], &c, 1) != 1)
				_exit(1);
			pause();
			_exit(0);
		}
		if (read(p[0], &c, 1) != 1 || c != 'y')
			die("child mapping");
		EXPECT(sf_reg((uintptr_t)buf, 28, (uintptr_t)hole,
			      (uintptr_t)hole + 16), -ENXIO);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	/* overlap and duplicates */
	EXPECT(sf_reg(self.sf, self.sf_len, self.text_lo, self.text_hi), 0);
	EXPECT(sf_reg(self.sf, self.sf_len, self.text_lo, self.text_hi), -EEXIST);
	EXPECT(sf_reg((uintptr_t)buf, 28, self.text_lo + 16, self.text_lo + 32), -EEXIST);
	EXPECT(sf_reg(self.sf, self.sf_len, lo, hi), -EEXIST);
	empty_section(buf + 32);
	EXPECT(sf_reg((uintptr_t)buf, 64, lo, lo + 16), 0);
	EXPECT(sf_reg((uintptr_t)buf + 32, 28, lo + 16, lo + 32), -EEXIST);
	EXPECT(sf_unreg((uintptr_t)buf), 0);
	EXPECT(sf_reg((uintptr_t)buf, 28, lo, hi), 0);
	EXPECT(sf_unreg((uintptr_t)buf), 0);
	EXPECT(sf_unreg((uintptr_t)buf), -ENOENT);
	EXPECT(sf_unreg(self.sf), 0);
	EXPECT(sf_unreg(self.sf), -ENOENT);
	EXPECT(sf_unreg(0), -ENOENT);
	printf("ok bad\n");
	return 0;
}

static int cmd_cap(void)
{
	unsigned int n = 300, i, ok = 0;
	uint8_t *text = map(2 * PAGE, PROT_READ | PROT_EXEC);
	uint8_t *sf = map(n * 32, PROT_READ | PROT_WRITE);
	uint8_t *big;
	int r, e = 0;

	for (i = 0; i < n; i++)
		empty_section(sf + 32 * i);
	for (i = 0; i < n; i++) {
		r = sf_reg((uintptr_t)sf + 32 * i, 28, (uintptr_t)text + 16 * i,
			   (uintptr_t)text + 16 * i + 16);
		if (!r)
			ok++;
		else if (!e)
			e = r;
	}
	if (ok != 256 || e != -ENOSPC)
		die("count cap: %u registered, first refusal %d, want 256, %d",
		    ok, e, -ENOSPC);
	for (i = 0; i < n; i++)
		EXPECT(sf_unreg((uintptr_t)sf + 32 * i), i < ok ? 0 : -ENOENT);
	/* byte cap: 64 MiB per process */
	big = mmap(NULL, (65UL << 20), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (big == MAP_FAILED)
		die("mmap 65M");
	empty_section(big);
	EXPECT(sf_reg((uintptr_t)big, 65UL << 20, (uintptr_t)text,
		      (uintptr_t)text + 16), -EDQUOT);
	printf("ok cap\n");
	return 0;
}

/* Registrations go away with their text or SFrame mapping, and only then. */
static int cmd_unmap(const char *libpath)
{
	uint8_t *text = map(PAGE, PROT_READ | PROT_EXEC);
	uint8_t *sf = map(PAGE, PROT_READ | PROT_WRITE);
	struct obj lib;
	void *h, *again;
	uintptr_t old_lo, old_hi, old_sf;

	empty_section(sf);
	/* mprotect, madvise: not an unmap */
	EXPECT(sf_reg((uintptr_t)sf, 28, (uintptr_t)text, (uintptr_t)text + 64), 0);
	mprotect(text, PAGE, PROT_READ);
	mprotect(text, PAGE, PROT_READ | PROT_EXEC);
	madvise(sf, PAGE, MADV_DONTNEED);
	empty_section(sf);
	EXPECT(sf_reg((uintptr_t)sf, 28, (uintptr_t)text, (uintptr_t)text + 64), -EEXIST);
	/* munmap of the text */
	munmap(text, PAGE);
	EXPECT(sf_unreg((uintptr_t)sf), -ENOENT);
	/* munmap of the SFrame range */
	text = map(PAGE, PROT_READ | PROT_EXEC);
	EXPECT(sf_reg((uintptr_t)sf, 28, (uintptr_t)text, (uintptr_t)text + 64), 0);
	munmap(sf, PAGE);
	EXPECT(sf_unreg((uintptr_t)sf), -ENOENT);
	/* mremap moves the text away */
	sf = map(PAGE, PROT_READ | PROT_WRITE);
	empty_section(sf);
	EXPECT(sf_reg((uintptr_t)sf, 28, (uintptr_t)text, (uintptr_t)text + 64), 0);
	again = mremap(text, PAGE, PAGE, MREMAP_MAYMOVE | MREMAP_FIXED,
		       map(PAGE, PROT_NONE));
	if (again == MAP_FAILED)
		die("mremap: %s", strerror(errno));
	EXPECT(sf_unreg((uintptr_t)sf), -ENOENT);
	/* mremap moves the pages away, the old range stays mapped but empty */
	text = map(PAGE, PROT_READ | PROT_EXEC);
	EXPECT(sf_reg((uintptr_t)sf, 28, (uintptr_t)text, (uintptr_t)text + 64), 0);
	again = mremap(text, PAGE, PAGE,
		       MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP,
		       map(PAGE, PROT_NONE));
	if (again == MAP_FAILED)
		die("mremap dontunmap: %s", strerror(errno));
	EXPECT(sf_unreg((uintptr_t)sf), -ENOENT);
	/* MAP_FIXED over the text */
	text = map(PAGE, PROT_READ | PROT_EXEC);
	EXPECT(sf_reg((uintptr_t)sf, 28, (uintptr_t)text, (uintptr_t)text + 64), 0);
	if (mmap(text, PAGE, PROT_READ | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != text)
		die("mmap fixed");
	EXPECT(sf_unreg((uintptr_t)sf), -ENOENT);

	/* dlclose, then a new mapping at the same address */
	h = dlopen(libpath, RTLD_NOW);
	if (!h || find_obj("sframe_lib", &lib))
		die("dlopen %s: %s", libpath, dlerror());
	EXPECT(sf_reg(lib.sf, lib.sf_len, lib.text_lo, lib.text_hi), 0);
	old_lo = lib.text_lo;
	old_hi = lib.text_hi;
	old_sf = lib.sf;
	dlclose(h);
	EXPECT(sf_unreg(old_sf), -ENOENT);
	again = mmap((void *)(old_lo & ~(PAGE - 1)), PAGE, PROT_READ | PROT_EXEC,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (again == MAP_FAILED)
		die("map at the old address: %s", strerror(errno));
	EXPECT(sf_reg((uintptr_t)sf, 28, old_lo,
		      old_hi < (uintptr_t)again + PAGE ? old_hi : (uintptr_t)again + PAGE), 0);
	EXPECT(sf_unreg((uintptr_t)sf), 0);
	printf("ok unmap\n");
	return 0;
}

/* A forked child starts with the parent's registrations, its own copy. */
static int cmd_fork(void)
{
	uint64_t ips[64];
	unsigned int end;
	pid_t pid;
	int st, n;

	EXPECT(sf_reg(self.sf, self.sf_len, self.text_lo, self.text_hi), 0);
	pid = fork();
	if (!pid) {
		/* inherited: duplicate refused, walk works, unregister ours */
		EXPECT(sf_reg(self.sf, self.sf_len, self.text_lo, self.text_hi), -EEXIST);
		n = self_stack(ips, NULL, 64, &end);
		if (n < 3)
			die("child walk: %d frames", n);
		EXPECT(sf_unreg(self.sf), 0);
		EXPECT(sf_unreg(self.sf), -ENOENT);
		/* grandchild of an empty registry: nothing */
		pid = fork();
		if (!pid) {
			EXPECT(sf_unreg(self.sf), -ENOENT);
			_exit(0);
		}
		waitpid(pid, &st, 0);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 2);
	}
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		die("child failed (status 0x%x)", st);
	/* a burst of forks: every child inherits */
	{
		pid_t kids[48];
		int i, bad = 0;

		for (i = 0; i < 48; i++) {
			kids[i] = fork();
			if (!kids[i])
				_exit(sf_unreg(self.sf) == 0 ? 0 : 4);
		}
		for (i = 0; i < 48; i++) {
			waitpid(kids[i], &st, 0);
			bad += !WIFEXITED(st) || WEXITSTATUS(st);
		}
		if (bad)
			die("fork burst: %d of 48 children without the registration", bad);
	}
	/* the child's unregister did not touch ours */
	EXPECT(sf_reg(self.sf, self.sf_len, self.text_lo, self.text_hi), -EEXIST);
	/* threads share the registry (same mm): vfork child sees it */
	pid = vfork();
	if (!pid)
		_exit(sf_reg(self.sf, self.sf_len, self.text_lo, self.text_hi) == -EEXIST ? 0 : 3);
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		die("vfork child: status 0x%x", st);
	EXPECT(sf_unreg(self.sf), 0);
	printf("ok fork\n");
	return 0;
}

/* exec starts empty. */
static int cmd_exec(char **argv)
{
	pid_t pid;
	int st;

	EXPECT(sf_reg(self.sf, self.sf_len, self.text_lo, self.text_hi), 0);
	pid = fork();
	if (!pid) {
		execl("/proc/self/exe", argv[0], "exec-child", (char *)NULL);
		_exit(5);
	}
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		die("exec child: status 0x%x", st);
	EXPECT(sf_unreg(self.sf), 0);
	printf("ok exec\n");
	return 0;
}

static int cmd_exec_child(void)
{
	/* Our own section registers: nothing overlapping was inherited. */
	EXPECT(sf_reg(self.sf, self.sf_len, self.text_lo, self.text_hi), 0);
	EXPECT(sf_unreg(self.sf), 0);
	return 0;
}

static NOINLINE int walk_once(void)
{
	uint64_t ips[128];
	uint8_t m[128];
	unsigned int end = 99;
	int n = self_stack(ips, m, 128, &end);

	if (n < 1 || n > 128 || end >= USTACK_END_MAX)
		die("walk: %d frames, end %u", n, end);
	return n;
}

static unsigned int rnd(unsigned int *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

/*
 * Random mutations of our own section, in place (COW of the file
 * mapping): register the mutated bytes, or mutate after registering, then
 * walk (registered and discovered).  Every call must return cleanly.
 */
static int cmd_mutate(int iters, unsigned int seed)
{
	uintptr_t pg = self.sf & ~(PAGE - 1);
	size_t plen = ((self.sf + self.sf_len + PAGE - 1) & ~(PAGE - 1)) - pg;
	uint8_t *sec = (uint8_t *)self.sf, *orig = malloc(self.sf_len);
	long counts[8] = { 0 };
	int i, k, r, walks = 0;

	memcpy(orig, sec, self.sf_len);
	if (mprotect((void *)pg, plen, PROT_READ | PROT_WRITE))
		die("mprotect .sframe: %s", strerror(errno));
	for (i = 0; i < iters; i++) {
		unsigned int nm = 1 + rnd(&seed) % 4, len = self.sf_len;
		int after = rnd(&seed) & 1;

		memcpy(sec, orig, self.sf_len);
		if (!after && rnd(&seed) % 10 == 0)
			len = 1 + rnd(&seed) % (self.sf_len - 1);
		if (after)
			EXPECT(sf_reg(self.sf, len, self.text_lo, self.text_hi), 0);
		for (k = 0; k < (int)nm; k++) {
			unsigned int at = rnd(&seed);

			/* Half in the header and FDEs, half anywhere. */
			at = (rnd(&seed) & 1) ? at % 96 : at % self.sf_len;
			sec[at] = (rnd(&seed) & 3) ? (uint8_t)rnd(&seed) :
				  sec[at] ^ (1u << (rnd(&seed) % 8));
		}
		if (!after) {
			r = sf_reg(self.sf, len, self.text_lo, self.text_hi);
			switch (r) {
			case 0: counts[0]++; break;
			case -EBADMSG: counts[1]++; break;
			case -EOPNOTSUPP: counts[2]++; break;
			default:
				die("mutation %d: register: %d (%s)", i, r, strerror(-r));
			}
		} else {
			r = 0;
		}
		walks += walk_once() > 0;
		if (!r)
			EXPECT(sf_unreg(self.sf), 0);
		walks += walk_once() > 0;	/* discovery over the same bytes */
	}
	memcpy(sec, orig, self.sf_len);
	mprotect((void *)pg, plen, PROT_READ);
	printf("ok mutate iters=%d accepted=%ld badmsg=%ld unsupported=%ld walks=%d\n",
	       iters, counts[0], counts[1], counts[2], walks);
	return 0;
}

/* Registered, /dev/sframe closed: live across a module unload. */
static int cmd_hold(void)
{
	uint8_t *text = map(PAGE, PROT_READ | PROT_EXEC);
	uint8_t *sf = map(PAGE, PROT_READ | PROT_WRITE);
	char c;

	empty_section(sf);
	EXPECT(sf_reg(self.sf, self.sf_len, self.text_lo, self.text_hi), 0);
	EXPECT(sf_reg((uintptr_t)sf, 28, (uintptr_t)text, (uintptr_t)text + 64), 0);
	close(sf_fd);
	printf("ready\n");
	fflush(stdout);
	/* Until stdin closes; then unmap (the notifier is gone) and exit. */
	while (read(0, &c, 1) > 0)
		;
	munmap(text, PAGE);
	munmap(sf, PAGE);
	return 0;
}

/* Copy ELF file IN to OUT with its PT_GNU_SFRAME turned into PT_NULL. */
static int cmd_nodisc(const char *in, const char *out)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	char buf[65536];
	int a = open(in, O_RDONLY), b, i, n;

	b = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (a < 0 || b < 0)
		die("open %s or %s", in, out);
	while ((n = read(a, buf, sizeof(buf))) > 0)
		if (write(b, buf, n) != n)
			die("write");
	if (pread(a, &eh, sizeof(eh), 0) != sizeof(eh))
		die("ehdr");
	for (i = 0; i < eh.e_phnum; i++) {
		off_t at = eh.e_phoff + (off_t)i * sizeof(ph);

		if (pread(a, &ph, sizeof(ph), at) != sizeof(ph))
			die("phdr");
		if (ph.p_type == PT_GNU_SFRAME) {
			ph.p_type = PT_NULL;
			if (pwrite(b, &ph, sizeof(ph), at) != sizeof(ph))
				die("pwrite");
			close(b);
			printf("ok nodisc\n");
			return 0;
		}
	}
	die("no PT_GNU_SFRAME in %s", in);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		die("usage: %s args|bad|cap|unmap LIB|fork|exec|mutate N SEED",
		    argv[0]);
	if (!strcmp(argv[1], "nodisc") && argc > 3)
		return cmd_nodisc(argv[2], argv[3]);
	self_setup();
	if (!strcmp(argv[1], "args"))
		return cmd_args();
	if (!strcmp(argv[1], "bad"))
		return cmd_bad();
	if (!strcmp(argv[1], "cap"))
		return cmd_cap();
	if (!strcmp(argv[1], "unmap") && argc > 2)
		return cmd_unmap(argv[2]);
	if (!strcmp(argv[1], "fork"))
		return cmd_fork();
	if (!strcmp(argv[1], "hold"))
		return cmd_hold();
	if (!strcmp(argv[1], "exec"))
		return cmd_exec(argv);
	if (!strcmp(argv[1], "exec-child"))
		return cmd_exec_child();
	if (!strcmp(argv[1], "mutate") && argc > 3)
		return cmd_mutate(atoi(argv[2]), (unsigned int)strtoul(argv[3], NULL, 0));
	die("unknown command %s", argv[1]);
}
