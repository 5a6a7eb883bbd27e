/* SPDX-License-Identifier: GPL-2.0 */
/* gen_elf.h - write a copy of an ELF64 file with a new .sframe section. */
#ifndef SFRAME_REGISTER_GEN_ELF_H
#define SFRAME_REGISTER_GEN_ELF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Where gen puts .sframe: the end of the highest PT_LOAD, page-aligned. */
uint64_t gen_elf_sframe_vaddr(const uint8_t *img, size_t len);

/*
 * Write @out (atomically: a temporary file renamed over it) as a copy of the
 * ELF image @img whose .sframe section is @sf at @sf_vaddr.  Returns 0, or -1
 * with a message in @err.
 */
int gen_elf_write(const char *out, const uint8_t *img, size_t len,
		  const void *sf, size_t sflen, uint64_t sf_vaddr,
		  mode_t mode, char *err, size_t errlen);

#endif
