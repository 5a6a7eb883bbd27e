// SPDX-License-Identifier: GPL-2.0
/*
 * fault_stall: a process whose frame pointer points at memory whose first
 * touch is never answered, as a FUSE file's that never answers would be:
 * an anonymous page registered with userfaultfd (missing-page faults,
 * kernel ones too: the test allows them unprivileged with
 * vm.unprivileged_userfaultfd=1) that nobody serves, right above a stack
 * of its own.  Its one thread spins on that stack with the frame pointer
 * in the page (above the stack pointer, as a caller's frame is); a walk
 * that follows the frame pointer faults and waits until the process is
 * killed.
 * Prints "ready" once it spins.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define STACK	(64 * 1024)

int main(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	long page = sysconf(_SC_PAGESIZE);
	char *p;
	int uffd;

	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api)) {
		perror("fault_stall: userfaultfd");
		return 1;
	}
	/* 64 KB of stack, touched, and the page above it */
	p = mmap(NULL, STACK + page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	memset(p, 0, STACK);
	reg.range.start = (unsigned long)p + STACK;
	reg.range.len = page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		perror("fault_stall: UFFDIO_REGISTER");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	/* Never returns: the stack and frame pointer registers are ours. */
#if defined(__x86_64__)
	asm volatile("mov %0, %%rsp\n\tmov %1, %%rbp\n1:\tjmp 1b"
		     : : "r"(p + STACK / 2), "r"(p + STACK + 64));
#elif defined(__aarch64__)
	asm volatile("mov sp, %0\n\tmov x29, %1\n1:\tb 1b"
		     : : "r"(p + STACK / 2), "r"(p + STACK + 64));
#else
#error "fault_stall: no stack and frame pointer registers for this architecture"
#endif
	return 0;
}
