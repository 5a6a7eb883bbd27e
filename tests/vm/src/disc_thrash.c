// SPDX-License-Identifier: GPL-2.0
/*
 * disc_thrash DIR N SECS: the discovery churn of issue 25 (item 9), as
 * an unprivileged user.  Makes N small files in DIR, maps each
 * executable, and for SECS asks for its own stack (SFRAME_IOC_SELF_STACK)
 * over a fake frame-pointer chain whose return addresses run through all
 * N mappings: every walk looks up N files in ELF discovery.  Prints the
 * walks made and the frames of the last.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <uapi/ustack.h>

#define MAX_FILES	256

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * ioctl(fd, SFRAME_IOC_SELF_STACK, arg) with the frame pointer at @fp:
 * the walk starts here and then follows the chain.  Built with
 * -mno-red-zone (the push).
 */
static __attribute__((noinline)) long self_stack_fp(int fd, void *arg, void *fp)
{
	long ret;

	asm volatile("push %%rbp\n\tmov %[fp], %%rbp\n\tsyscall\n\tpop %%rbp"
		     : "=a"(ret)
		     : "0"((long)SYS_ioctl), "D"((long)fd),
		       "S"((long)SFRAME_IOC_SELF_STACK), "d"(arg), [fp] "r"(fp)
		     : "rcx", "r11", "memory");
	return ret;
}

/* A file of its own in DIR, mapped executable: its base address. */
static uintptr_t map_one(const char *dir, int i)
{
	static char page[8192];
	char path[4096];
	void *p;
	int fd;

	snprintf(path, sizeof(path), "%s/f%d", dir, i);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, page, sizeof(page)) != sizeof(page)) {
		perror(path);
		exit(1);
	}
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	close(fd);
	return (uintptr_t)p;
}

int main(int argc, char **argv)
{
	uint64_t chain[2 * (MAX_FILES + 1)], ips[MAX_FILES + 16];
	struct ustack_self s = {
		.size = sizeof(s), .ips = (uintptr_t)ips,
	};
	long walks = 0;
	double end;
	int n, sf;

	if (argc != 4 || (n = atoi(argv[2])) < 1 || n > MAX_FILES) {
		fprintf(stderr, "usage: disc_thrash DIR N SECS (N <= %d)\n", MAX_FILES);
		return 2;
	}
	sf = open("/dev/sframe", O_RDWR);
	if (sf < 0) {
		perror("/dev/sframe");
		return 1;
	}
	/* Frame i: [fp] = the next frame, [fp + 8] = a PC in file i. */
	for (int i = 0; i < n; i++) {
		chain[2 * i] = (uintptr_t)&chain[2 * (i + 1)];
		chain[2 * i + 1] = map_one(argv[1], i) + 64;
	}
	chain[2 * n] = 0;
	chain[2 * n + 1] = 0;
	end = now() + atof(argv[3]);
	while (now() < end) {
		s.max_frames = n + 16;
		if (self_stack_fp(sf, &s, chain)) {
			fprintf(stderr, "SELF_STACK failed\n");
			return 1;
		}
		walks++;
	}
	printf("walks %ld frames %u\n", walks, s.nr_frames);
	return 0;
}
