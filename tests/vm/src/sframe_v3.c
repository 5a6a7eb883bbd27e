// SPDX-License-Identifier: GPL-2.0
/*
 * sframe_v3: a program built by Debian sid's as and ld (SFrame v3, its
 * PT_GNU_SFRAME), without frame pointers and without the shim: the kernel
 * must find its section by ELF discovery alone.  main -> v3_a -> v3_b (a
 * DRAP function: a v3 flex FDE, CFA = *(rbp - 8)) -> v3_c -> self_stack;
 * each function keeps its own return address, and the kernel's stack must
 * give the same ones, every frame found by method sframe.
 *
 * Built with -DSFRAME_V3_GEN by the host's own gcc and binutils instead
 * (sframe_v3_gen: no .sframe of its own), it is run by `sframe-register
 * run`: its section is the generator's, from .eh_frame, and v3_b's DRAP
 * rows must be in it.
 *
 * "sframe_v3 poison": clears the FDEs-sorted flag of its own (private,
 * copy-on-write) copy of the section, which the kernel's validation
 * refuses, and asks for its own stack: the kernel's verdict on the file
 * must not follow (a later run must still walk by SFrame).
 */
#include "sframe_common.h"
#include <sys/mman.h>

static volatile int sink;
static uint64_t ra[3];	/* return addresses into v3_b, v3_a, main */

static NOINLINE void use(char *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
	sink = p[1];
}

static NOINLINE int v3_c(int n)
{
	uint64_t ips[64];
	uint8_t m[64];
	unsigned int end = 0, i;
	int nr;

	ra[0] = (uint64_t)__builtin_return_address(0);
	nr = self_stack(ips, m, 64, &end);
	if (nr < 5)
		die("self stack: %d frames (end %u)", nr, end);
	for (i = 0; i < 5; i++)
		printf("frame %u 0x%llx method %u\n", i,
		       (unsigned long long)ips[i], m[i]);
	/* ips[1] is in v3_c itself, after the call of self_stack */
	if (ips[1] <= (uint64_t)(uintptr_t)v3_c ||
	    ips[1] >= (uint64_t)(uintptr_t)v3_c + 4096)
		die("frame 1 0x%llx is not in v3_c", (unsigned long long)ips[1]);
	for (i = 0; i < 3; i++)
		if (ips[i + 2] != ra[i])
			die("frame %u: 0x%llx, want 0x%llx", i + 2,
			    (unsigned long long)ips[i + 2],
			    (unsigned long long)ra[i]);
	for (i = 1; i < 5; i++)
		if (m[i] != USTACK_METHOD_SFRAME)
			die("frame %u found by method %u, not sframe", i, m[i]);
	return n + nr;
}

/* A VLA and a 64-byte aligned buffer: gcc realigns through DRAP. */
static NOINLINE int v3_b(int n)
{
	char vla[n + 1];
	char buf[64] __attribute__((aligned(64)));
	int r;

	ra[1] = (uint64_t)__builtin_return_address(0);
	memset(buf, n, sizeof(buf));
	vla[n] = 1;
	use(buf);
	use(vla);
	r = v3_c(n);
	return r + buf[n & 63];
}

static NOINLINE int v3_a(int n)
{
	int r;

	ra[2] = (uint64_t)__builtin_return_address(0);
	r = v3_b(n + 1);
	sink = r;
	return r - 1;
}

static uint8_t *own_sframe;

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	int i, *ver = data;

	(void)size;
	if (info->dlpi_name[0])
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];

		if (p->p_type == PT_GNU_SFRAME) {
			own_sframe = (uint8_t *)(info->dlpi_addr + p->p_vaddr);
			*ver = own_sframe[2];
		}
	}
	return 1;
}

int main(int argc, char **argv)
{
	int ver = 0;

	dl_iterate_phdr(phdr_cb, &ver);
#ifdef SFRAME_V3_GEN
	if (ver)
		die("own PT_GNU_SFRAME: version %d, want none", ver);
#else
	if (ver != 3)
		die("own PT_GNU_SFRAME: version %d, not 3", ver);
#endif
	sf_open();
	if (argc == 2 && !strcmp(argv[1], "poison")) {
		uintptr_t pg = (uintptr_t)own_sframe & ~4095UL;
		uint64_t ips[8];
		unsigned int end;

		if (mprotect((void *)pg, 4096, PROT_READ | PROT_WRITE))
			die("mprotect: %s", strerror(errno));
		own_sframe[3] &= ~1;	/* SFRAME_F_FDE_SORTED */
		printf("poison: %d frames\n", self_stack(ips, NULL, 8, &end));
		return 0;
	}
	v3_a(argc + 2);	/* not a constant: v3_b's VLA stays variable */
	printf("ok v3 discovery\n");
	return 0;
}
