// SPDX-License-Identifier: GPL-2.0
/* elf_sframe.c - find and read the SFrame section of an ELF file (libelf). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gelf.h>
#include "elf_object.h"
#include "ustack_sframe.h"	/* arch.h: the machine's name */
#include "elf_sframe.h"

static int copy_data(Elf_Data *d, size_t size, struct elf_sframe *out)
{
	if (!d || !d->d_buf || d->d_size < size)
		return -EIO;
	out->data = malloc(size ? size : 1);
	if (!out->data)
		return -ENOMEM;
	memcpy(out->data, d->d_buf, size);
	out->size = size;
	return 0;
}

/* The lowest and highest executable address (PT_LOAD with PF_X). */
static void text_range(Elf *e, struct elf_sframe *out)
{
	size_t nph;
	GElf_Phdr ph;

	if (elf_getphdrnum(e, &nph))
		return;
	for (size_t i = 0; i < nph; i++) {
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		if (!out->text_hi || ph.p_vaddr < out->text_lo)
			out->text_lo = ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > out->text_hi)
			out->text_hi = ph.p_vaddr + ph.p_memsz;
	}
}

/* The .sframe section (by name or type): 0, 1 if none, or -errno. */
static int read_section(Elf *e, struct elf_sframe *out, const char **msg)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *name;
	GElf_Shdr sh;
	int err;

	if (elf_getshdrstrndx(e, &shstrndx))
		return 1;
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (sh.sh_type != SHT_GNU_SFRAME &&
		    (!name || strcmp(name, ".sframe")))
			continue;
		if (sh.sh_type == SHT_NOBITS) {
			*msg = ".sframe has no data";
			return -EIO;
		}
		err = copy_data(elf_getdata(scn, NULL), sh.sh_size, out);
		if (err)
			*msg = "cannot read .sframe";
		out->vaddr = sh.sh_addr;
		out->offset = sh.sh_offset;
		return err;
	}
	return 1;
}

/* The PT_GNU_SFRAME segment, for a file without section headers. */
static int read_segment(Elf *e, struct elf_sframe *out, const char **msg)
{
	size_t nph;
	GElf_Phdr ph;
	Elf_Data *d;
	int err;

	if (elf_getphdrnum(e, &nph))
		return -ENOENT;
	for (size_t i = 0; i < nph; i++) {
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_GNU_SFRAME)
			continue;
		d = elf_getdata_rawchunk(e, ph.p_offset, ph.p_filesz,
					 ELF_T_BYTE);
		err = copy_data(d, ph.p_filesz, out);
		if (err)
			*msg = "cannot read PT_GNU_SFRAME";
		out->vaddr = ph.p_vaddr;
		out->offset = ph.p_offset;
		out->from_phdr = 1;
		return err;
	}
	return -ENOENT;
}

int elf_sframe_read(const char *path, struct elf_sframe *out, const char **msg)
{
	GElf_Ehdr eh;
	Elf *e;
	int fd, err;

	memset(out, 0, sizeof(*out));
	*msg = "no .sframe section";
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		*msg = strerror(errno);
		return -errno;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
		*msg = "not an ELF file";
		err = -ENOEXEC;
	} else if (!elf_object_supported(e, &eh)) {
		*msg = "not an ELF64 object of this machine (" USTACK_ARCH_NAME ")";
		err = -ENOEXEC;
	} else {
		text_range(e, out);
		err = read_section(e, out, msg);
		if (err == 1)
			err = read_segment(e, out, msg);
	}
	if (e)
		elf_end(e);
	close(fd);
	if (err) {
		free(out->data);
		out->data = NULL;
	}
	return err;
}

void elf_sframe_free(struct elf_sframe *s)
{
	free(s->data);
	s->data = NULL;
}
