// SPDX-License-Identifier: GPL-2.0
/*
 * A 32-bit (compat) task asks for its own stack: freestanding i386 code
 * (no 32-bit libc needed), int $0x80 system calls.  The kernel must answer
 * with the interrupted IP and a clear end reason (NO_INFO), and registering
 * must work through the compat ioctl path as for 64-bit tasks.
 * Exit status: 0 ok, else the number of the failed check.
 */
#include <uapi/ustack.h>

static long sys3(long nr, long a, long b, long c)
{
	long r;

	asm volatile("int $0x80" : "=a"(r) : "0"(nr), "b"(a), "c"(b), "d"(c)
		     : "memory");
	return r;
}

#define SYS_exit	1
#define SYS_open	5
#define SYS_ioctl	54

static unsigned long long ips[16];
static unsigned char methods[16];
static struct ustack_self s;
static struct sframe_reg r;

void __attribute__((noreturn, used)) start_c(void)
{
	long fd = sys3(SYS_open, (long)"/dev/sframe", 2, 0);
	int fail = 0;

	if (fd < 0) {
		fail = 1;
		goto out;
	}
	s.size = sizeof(s);
	s.ips = (unsigned long)ips;
	s.methods = (unsigned long)methods;
	s.max_frames = 16;
	if (sys3(SYS_ioctl, fd, SFRAME_IOC_SELF_STACK, (long)&s)) {
		fail = 2;
		goto out;
	}
	if (s.nr_frames != 1 || s.end_reason != USTACK_END_NO_INFO ||
	    methods[0] != USTACK_METHOD_REGS || !ips[0] || ips[0] >> 32) {
		fail = 3;
		goto out;
	}
	/* Unknown flags are refused through the compat path too. */
	r.size = sizeof(r);
	r.flags = 1;
	if (sys3(SYS_ioctl, fd, SFRAME_IOC_REGISTER, (long)&r) != -22)
		fail = 4;
out:
	sys3(SYS_exit, fail, 0, 0);
	for (;;)
		;
}

asm(".globl _start\n_start:\n\tand $-16, %esp\n\tcall start_c\n");
