// SPDX-License-Identifier: GPL-2.0
/*
 * elf_object.c - the machine check, the section count before libelf and
 * the build-id of an ELF object.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "elf_object.h"
#include "ustack_sframe.h"	/* arch.h: the machine */

bool elf_object_supported(Elf *elf, GElf_Ehdr *eh)
{
	return elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, eh) &&
	       eh->e_ident[EI_CLASS] == ELFCLASS64 && eh->e_machine == USTACK_ARCH_ELF_MACHINE;
}

size_t elf_object_shnum(int fd)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh0;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return 0;
	/* extended numbering: the count is section 0's sh_size */
	if (eh.e_shnum || !eh.e_shoff)
		return eh.e_shnum;
	if (pread(fd, &sh0, sizeof(sh0), (off_t)eh.e_shoff) != sizeof(sh0))
		return 0;
	return sh0.sh_size > SIZE_MAX ? SIZE_MAX : (size_t)sh0.sh_size;
}

/* The build-id note of the notes @d, as hex into @hex; its length or 0. */
static size_t note_build_id(Elf_Data *d, char *hex, size_t hexlen)
{
	size_t off = 0, no, dof, seen = 0;
	GElf_Nhdr nh;

	/* bounded: a crafted section holds millions of empty notes */
	while (seen++ < ELF_NOTES_MAX &&
	       (off = gelf_getnote(d, off, &nh, &no, &dof)) > 0) {
		const uint8_t *p = (const uint8_t *)d->d_buf + dof;

		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((const char *)d->d_buf + no, "GNU", 4) ||
		    !nh.n_descsz || hexlen < 2 * nh.n_descsz + 1)
			continue;
		for (size_t i = 0; i < nh.n_descsz; i++)
			sprintf(hex + 2 * i, "%02x", p[i]);
		return nh.n_descsz;
	}
	return 0;
}

size_t elf_object_build_id(Elf *elf, char *hex, size_t hexlen)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t n;

		/* a crafted one spans 256 MiB of empty notes */
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    sh.sh_size > ELF_NOTE_SECTION_MAX)
			continue;
		d = elf_getdata(scn, NULL);
		n = d ? note_build_id(d, hex, hexlen) : 0;
		if (n)
			return n;
	}
	return 0;
}
