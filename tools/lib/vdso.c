// SPDX-License-Identifier: GPL-2.0
/* vdso.c - the size of the vDSO's ELF image (vdso.h). */
#include <elf.h>
#include <string.h>
#include "vdso.h"

size_t vdso_image_size(const void *ehdr)
{
	const Elf64_Ehdr *eh = ehdr;

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > (1u << 20) ||
	    eh->e_shnum > 256)
		return 0;
	return eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
}
