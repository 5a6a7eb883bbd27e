/* SPDX-License-Identifier: GPL-2.0 */
/* elf_sframe.h - find and read the SFrame section of an ELF file (libelf). */
#ifndef TOOLS_ELF_SFRAME_H
#define TOOLS_ELF_SFRAME_H

#include <stddef.h>
#include <stdint.h>

#ifndef SHT_GNU_SFRAME
#define SHT_GNU_SFRAME	0x6ffffff4
#endif
#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

struct elf_sframe {
	void *data;		/* malloc'd copy of the section bytes */
	size_t size;		/* section size (or PT_GNU_SFRAME p_filesz) */
	uint64_t vaddr;		/* sh_addr: where it is mapped */
	uint64_t offset;	/* file offset */
	uint64_t text_lo, text_hi;	/* lowest/highest executable address */
	int from_phdr;		/* found through PT_GNU_SFRAME only */
};

/*
 * Read the .sframe section (by name or SHT_GNU_SFRAME; else the
 * PT_GNU_SFRAME segment) of @path.  Returns 0, -ENOENT when there is none,
 * or another negative errno; on error *msg (static) says what failed.
 */
int elf_sframe_read(const char *path, struct elf_sframe *out, const char **msg);
void elf_sframe_free(struct elf_sframe *s);

#endif
