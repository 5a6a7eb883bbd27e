// SPDX-License-Identifier: GPL-2.0
/*
 * Frame shapes only SFrame v3 describes, for gas 2.47: a DRAP function
 * (stack realigned with a VLA: CFA = r10, then *(rbp - 8); rbp saved at
 * *(rbp + 0)) gets a flex FDE; a signal-frame CFI gets the signal bit.
 */
#include <string.h>

volatile int sink;

__attribute__((noinline)) void use(char *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
	sink = p[1];
}

__attribute__((noinline)) int drap(int n)
{
	char vla[n + 1];
	char buf[64] __attribute__((aligned(64)));

	memset(buf, n, sizeof(buf));
	vla[n] = 1;
	use(buf);
	use(vla);
	return buf[n & 63];
}

/* The shape of a signal trampoline: CFA far above SP, signal bit set. */
__asm__(".globl sigtramp_like\n"
	".type sigtramp_like, @function\n"
	"sigtramp_like:\n"
	".cfi_startproc simple\n"
	".cfi_signal_frame\n"
	".cfi_def_cfa %rsp, 160\n"
	".cfi_offset %rip, -8\n"
	"nop\n"
	"ret\n"
	".cfi_endproc\n"
	".size sigtramp_like, . - sigtramp_like\n");

int main(int argc, char **argv)
{
	(void)argv;
	return drap(argc) & 1;
}
