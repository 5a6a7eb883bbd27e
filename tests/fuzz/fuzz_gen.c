// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target over the generator's input: an ELF file (a user's, as
 * ustackd's generation child reads it) through libelf, libdw's CFI, the
 * row classification, the PLT/.init/crtbegin synthesis and the encoder
 * (gen_sframe_build(), SFrame v3 at vaddr 0, as the store's entries).
 * The input is the file itself, copied at its exact size, so ASan sees
 * any read past it (libelf and libdw are not instrumented: their reads
 * past it are caught only when they fault).  What the generator makes must
 * be what the kernel takes: the core's validation of every FDE and FRE.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <gelf.h>
#include "gen_sframe.h"
#include "ustack_sframe.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	elf_version(EV_CURRENT);
	return 0;
}

/* The kernel's decoder takes the generator's output whole. */
static void check_output(const void *sf, size_t len)
{
	struct sframe_sec sec;

	if (ustack_sframe_sec_init(&sec, (unsigned long)sf, len, 0, 0, 0) ||
	    ustack_sframe_validate(&sec))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gen_stats st;
	char err[256];
	void *sf = NULL;
	size_t len = 0;
	char *img;
	Elf *elf;

	img = malloc(size ? size : 1);
	if (!img)
		return 0;
	memcpy(img, data, size);
	elf = elf_memory(img, size);
	if (elf && elf_kind(elf) == ELF_K_ELF &&
	    !gen_sframe_build(elf, SFRAME_VERSION_3, 0, &sf, &len, &st, err,
			      sizeof(err)) && len)
		check_output(sf, len);
	free(sf);
	elf_end(elf);
	free(img);
	return 0;
}
