/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elf_object.h - what every tool asks of an ELF object first (libelf):
 * is it one the tools unwind (ELF64 of the machine module/arch.h names),
 * and what is its GNU build-id.
 */
#ifndef TOOLS_ELF_OBJECT_H
#define TOOLS_ELF_OBJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <gelf.h>

/* Is @elf an ELF64 object of the machine the tools unwind?  @eh: its header. */
bool elf_object_supported(Elf *elf, GElf_Ehdr *eh);

/*
 * The section count of the ELF file @fd, read before libelf reads it:
 * elf_begin() makes a descriptor for every section before a count can be
 * checked (a crafted million cost 200 MiB and seconds).  0 for a file
 * that is not little-endian ELF64 or whose headers cannot be read: libelf
 * says what it is.
 */
size_t elf_object_shnum(int fd);

/* Notes read in one section when looking for the build-id (a linker's
 * note sections hold a handful), and the largest such section read. */
#define ELF_NOTES_MAX	256
#define ELF_NOTE_SECTION_MAX	(1 << 20)

/*
 * The GNU build-id of @elf (from its SHT_NOTE sections) as lowercase hex
 * into @hex (at least 2 * length + 1 bytes); returns its length in bytes,
 * 0 if there is none.
 */
size_t elf_object_build_id(Elf *elf, char *hex, size_t hexlen);

#endif
