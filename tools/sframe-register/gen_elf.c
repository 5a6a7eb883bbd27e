// SPDX-License-Identifier: GPL-2.0
/*
 * gen_elf.c - write `sframe-register gen`'s output: a copy of the input ELF
 * file whose .sframe section holds the generated SFrame data.
 *
 * Layout convention (what dump/lookup/check/readelf see):
 *   - the input bytes are copied unchanged (program headers included, so the
 *     copy still runs like the original);
 *   - the new SFrame bytes are appended, followed (if the file had no
 *     .sframe) by a new .shstrtab holding the old names plus ".sframe", and
 *     by a new section header table;
 *   - the .sframe section is SHT_PROGBITS, SHF_ALLOC, sh_addr = the end of
 *     the highest PT_LOAD rounded up to a page (gen_elf_sframe_vaddr()); the
 *     SFrame data is encoded for that vaddr, so its function addresses are
 *     the file's own vaddrs.  No segment maps it: it is data for tools and
 *     for the shim's cache, not for the loader.  An existing .sframe header
 *     (a gas-built file) is repointed at the new data; an old PT_GNU_SFRAME
 *     still names the old bytes.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "fileio.h"
#include "gen_elf.h"

static const Elf64_Ehdr *ehdr_ok(const uint8_t *img, size_t len)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return NULL;
	if (eh->e_phnum && (eh->e_phentsize != sizeof(Elf64_Phdr) ||
			    eh->e_phoff > len ||
			    (len - eh->e_phoff) / sizeof(Elf64_Phdr) < eh->e_phnum))
		return NULL;
	return eh;
}

uint64_t gen_elf_sframe_vaddr(const uint8_t *img, size_t len)
{
	const Elf64_Ehdr *eh = ehdr_ok(img, len);
	uint64_t end = 0;

	if (!eh)
		return 0;
	for (unsigned int i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, img + eh->e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD && ph.p_vaddr + ph.p_memsz > end)
			end = ph.p_vaddr + ph.p_memsz;
	}
	return (end + 0xfff) & ~0xfffull;
}

static const uint8_t zeros[16];

/*
 * The copy's layout: [input][pad][sframe][pad][shstrtab?][pad][section
 * headers], and its section headers (the input's, .sframe added or
 * repointed).
 */
struct layout {
	Elf64_Shdr *sh, strsh;	/* strsh: the input's .shstrtab header */
	size_t nsh, sf_off, str_off, strsz, sh_off, end;
};

/* The input's section headers, with room for one more; NULL with @err. */
static Elf64_Shdr *copy_shdrs(const Elf64_Ehdr *eh, const uint8_t *img,
			      size_t len, char *err, size_t errlen)
{
	size_t nsh = eh->e_shnum;
	Elf64_Shdr *sh;

	if (!nsh || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff > len ||
	    (len - eh->e_shoff) / sizeof(Elf64_Shdr) < nsh ||
	    eh->e_shstrndx == SHN_UNDEF || eh->e_shstrndx >= nsh ||
	    nsh >= SHN_LORESERVE - 1) {
		snprintf(err, errlen, "bad or missing section headers");
		return NULL;
	}
	sh = calloc(nsh + 1, sizeof(*sh));
	if (!sh) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memcpy(sh, img + eh->e_shoff, nsh * sizeof(*sh));
	return sh;
}

/* The index of the section named .sframe, 0 if none. */
static size_t find_sframe(const struct layout *l, const uint8_t *img)
{
	const Elf64_Shdr *str = &l->strsh;

	for (size_t i = 1; i < l->nsh; i++) {
		if (l->sh[i].sh_name < str->sh_size &&
		    str->sh_size - l->sh[i].sh_name >= sizeof(".sframe") &&
		    !memcmp(img + str->sh_offset + l->sh[i].sh_name, ".sframe",
			    sizeof(".sframe")))
			return i;
	}
	return 0;
}

/* Where everything goes, and the .sframe section header; 0 or -1. */
static int plan(struct layout *l, const Elf64_Ehdr *eh, const uint8_t *img,
		size_t len, size_t sflen, uint64_t sf_vaddr, char *err,
		size_t errlen)
{
	Elf64_Shdr *sf;
	size_t sfidx, off;

	l->sh = copy_shdrs(eh, img, len, err, errlen);
	if (!l->sh)
		return -1;
	l->nsh = eh->e_shnum;
	l->strsh = l->sh[eh->e_shstrndx];
	if (l->strsh.sh_type != SHT_STRTAB || l->strsh.sh_offset > len ||
	    l->strsh.sh_size > len - l->strsh.sh_offset) {
		snprintf(err, errlen, "bad .shstrtab");
		return -1;
	}
	sfidx = find_sframe(l, img);
	l->sf_off = (len + 7) & ~(size_t)7;
	off = l->sf_off + sflen;
	if (!sfidx) {
		l->str_off = off;
		l->strsz = l->strsh.sh_size + sizeof(".sframe");
		off += l->strsz;
		sfidx = l->nsh++;
		l->sh[sfidx].sh_name = (uint32_t)l->strsh.sh_size;
		l->sh[eh->e_shstrndx].sh_offset = l->str_off;
		l->sh[eh->e_shstrndx].sh_size = l->strsz;
	}
	l->end = off;
	l->sh_off = (off + 7) & ~(size_t)7;
	sf = &l->sh[sfidx];
	*sf = (Elf64_Shdr){
		.sh_name = sf->sh_name, .sh_type = SHT_PROGBITS,
		.sh_flags = SHF_ALLOC, .sh_addr = sf_vaddr,
		.sh_offset = l->sf_off, .sh_size = sflen, .sh_addralign = 8,
	};
	return 0;
}

/* The copy's bytes into @fd, in the order of the layout. */
static int write_copy(int fd, const struct layout *l, const Elf64_Ehdr *eh,
		      const uint8_t *img, size_t len, const void *sf,
		      size_t sflen)
{
	Elf64_Ehdr neh = *eh;

	neh.e_shoff = l->sh_off;
	neh.e_shnum = (uint16_t)l->nsh;
	return write_all(fd, &neh, sizeof(neh)) ||
	       write_all(fd, img + sizeof(neh), len - sizeof(neh)) ||
	       write_all(fd, zeros, l->sf_off - len) ||
	       write_all(fd, sf, sflen) ||
	       (l->str_off && (write_all(fd, img + l->strsh.sh_offset,
					 l->strsz - sizeof(".sframe")) ||
			       write_all(fd, ".sframe", sizeof(".sframe")))) ||
	       write_all(fd, zeros, l->sh_off - l->end) ||
	       write_all(fd, l->sh, l->nsh * sizeof(*l->sh)) ? -1 : 0;
}

int gen_elf_write(const char *out, const uint8_t *img, size_t len,
		  const void *sf, size_t sflen, uint64_t sf_vaddr,
		  mode_t mode, char *err, size_t errlen)
{
	const Elf64_Ehdr *eh = ehdr_ok(img, len);
	struct layout l = { 0 };
	char *tmp = NULL;
	int fd = -1, ret = -1;

	if (!eh) {
		snprintf(err, errlen, "not a little-endian ELF64 file");
		return -1;
	}
	if (plan(&l, eh, img, len, sflen, sf_vaddr, err, errlen))
		goto out;
	if (asprintf(&tmp, "%s.tmp.%d", out, (int)getpid()) < 0) {
		tmp = NULL;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode & 0777);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	if (write_copy(fd, &l, eh, img, len, sf, sflen) ||
	    fchmod(fd, mode & 0777) || close(fd)) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, out)) {
		snprintf(err, errlen, "%s: %s", out, strerror(errno));
		unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	free(tmp);
	free(l.sh);
	return ret;
}
