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

static int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static const uint8_t zeros[16];

int gen_elf_write(const char *out, const uint8_t *img, size_t len,
		  const void *sf, size_t sflen, uint64_t sf_vaddr,
		  mode_t mode, char *err, size_t errlen)
{
	const Elf64_Ehdr *eh = ehdr_ok(img, len);
	Elf64_Ehdr neh;
	Elf64_Shdr *sh = NULL;
	Elf64_Shdr strsh_copy, *strsh = &strsh_copy;
	size_t nsh, off, sf_off, str_off = 0, sh_off, strsz = 0;
	size_t sfidx = 0;
	char *tmp = NULL;
	int fd = -1, ret = -1;

	if (!eh) {
		snprintf(err, errlen, "not a little-endian ELF64 file");
		return -1;
	}
	nsh = eh->e_shnum;
	if (!nsh || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff > len ||
	    (len - eh->e_shoff) / sizeof(Elf64_Shdr) < nsh ||
	    eh->e_shstrndx == SHN_UNDEF || eh->e_shstrndx >= nsh ||
	    nsh >= SHN_LORESERVE - 1) {
		snprintf(err, errlen, "bad or missing section headers");
		return -1;
	}
	sh = calloc(nsh + 1, sizeof(*sh));
	if (!sh)
		goto oom;
	memcpy(sh, img + eh->e_shoff, nsh * sizeof(*sh));
	strsh_copy = sh[eh->e_shstrndx];
	if (strsh->sh_type != SHT_STRTAB || strsh->sh_offset > len ||
	    strsh->sh_size > len - strsh->sh_offset) {
		snprintf(err, errlen, "bad .shstrtab");
		goto out;
	}
	for (size_t i = 1; i < nsh; i++) {
		if (sh[i].sh_name < strsh->sh_size &&
		    strsh->sh_size - sh[i].sh_name >= sizeof(".sframe") &&
		    !memcmp(img + strsh->sh_offset + sh[i].sh_name, ".sframe",
			    sizeof(".sframe"))) {
			sfidx = i;
			break;
		}
	}

	/* Layout: [input][pad][sframe][pad][shstrtab?][pad][section headers] */
	off = len;
	sf_off = (off + 7) & ~(size_t)7;
	off = sf_off + sflen;
	if (!sfidx) {
		str_off = off;
		strsz = strsh->sh_size + sizeof(".sframe");
		off += strsz;
		sfidx = nsh++;
		sh[sfidx].sh_name = (uint32_t)strsh->sh_size;
		sh[eh->e_shstrndx].sh_offset = str_off;
		sh[eh->e_shstrndx].sh_size = strsz;
	}
	sh_off = (off + 7) & ~(size_t)7;
	sh[sfidx].sh_type = SHT_PROGBITS;
	sh[sfidx].sh_flags = SHF_ALLOC;
	sh[sfidx].sh_addr = sf_vaddr;
	sh[sfidx].sh_offset = sf_off;
	sh[sfidx].sh_size = sflen;
	sh[sfidx].sh_link = 0;
	sh[sfidx].sh_info = 0;
	sh[sfidx].sh_addralign = 8;
	sh[sfidx].sh_entsize = 0;

	neh = *eh;
	neh.e_shoff = sh_off;
	neh.e_shnum = (uint16_t)nsh;

	if (asprintf(&tmp, "%s.tmp.%d", out, (int)getpid()) < 0) {
		tmp = NULL;
		goto oom;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode & 0777);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	if (write_all(fd, &neh, sizeof(neh)) ||
	    write_all(fd, img + sizeof(neh), len - sizeof(neh)) ||
	    write_all(fd, zeros, sf_off - len) ||
	    write_all(fd, sf, sflen) ||
	    (str_off && (write_all(fd, img + strsh->sh_offset,
				   strsz - sizeof(".sframe")) ||
			 write_all(fd, ".sframe", sizeof(".sframe")))) ||
	    write_all(fd, zeros, sh_off - off) ||
	    write_all(fd, sh, nsh * sizeof(*sh)) ||
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
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	free(tmp);
	free(sh);
	return ret;
}
