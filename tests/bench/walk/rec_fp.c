// SPDX-License-Identifier: GPL-2.0
/* The leaf of the benchmark's call chain built with frame pointers. */
#include <stdint.h>

int leaf_fp(void);
int fp_leaf_body(uint64_t ip, uint64_t sp, uint64_t fp);

__attribute__((noinline)) int leaf_fp(void)
{
	uint64_t ip, sp, fp;

	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(ip), "=r"(sp), "=r"(fp));
	return fp_leaf_body(ip, sp, fp);
}
