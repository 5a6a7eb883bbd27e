/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ELF objects whose unwind data ustack reads: ELF discovery
 * (discovery.c) and the store (store.c) take an object's executable
 * PT_LOADs and PT_GNU_SFRAME from its program headers, after this one
 * check of its ELF header.
 */
#ifndef USTACK_ELF_H
#define USTACK_ELF_H

#include <linux/elf.h>
#include <linux/string.h>
#include "arch.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

/*
 * Is @eh the header of a 64-bit ELF object of this CPU (arch.h) with
 * 1..@max_phdrs program headers of the 64-bit size?
 */
static inline bool ustack_elf_usable(const Elf64_Ehdr *eh,
				     unsigned int max_phdrs)
{
	return !memcmp(eh->e_ident, ELFMAG, SELFMAG) &&
	       eh->e_ident[EI_CLASS] == ELFCLASS64 &&
	       eh->e_ident[EI_DATA] == USTACK_ARCH_ELF_DATA &&
	       eh->e_machine == USTACK_ARCH_ELF_MACHINE &&
	       eh->e_phentsize == sizeof(Elf64_Phdr) &&
	       eh->e_phnum && eh->e_phnum <= max_phdrs;
}

#endif /* USTACK_ELF_H */
