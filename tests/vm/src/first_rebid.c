// SPDX-License-Identifier: GPL-2.0
/*
 * first-sample's helper: give a copy of an ELF file a build-id no one has
 * seen, so that ustackd's store (whose entries for root's files are named
 * by build-id) holds nothing for it: an object met for the first time.
 *   first_rebid FILE SALT   overwrite FILE's GNU build-id, in place, with
 *                           one mixed from the old one and SALT; print it
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long long h = 1469598103934665603ULL;
	const Elf64_Ehdr *eh;
	unsigned char *p;
	struct stat st;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: first_rebid FILE SALT\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0 || fstat(fd, &st) || (size_t)st.st_size < sizeof(*eh)) {
		perror(argv[1]);
		return 1;
	}
	p = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	eh = (const Elf64_Ehdr *)p;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phoff + (unsigned long long)eh->e_phnum * sizeof(Elf64_Phdr) > (size_t)st.st_size) {
		fprintf(stderr, "%s: not ELF64\n", argv[1]);
		return 1;
	}
	for (const char *s = argv[2]; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(p + eh->e_phoff) + i;
		unsigned long long off = ph->p_offset, end = off + ph->p_filesz;

		if (ph->p_type != PT_NOTE || end > (size_t)st.st_size)
			continue;
		while (off + sizeof(Elf64_Nhdr) <= end) {
			const Elf64_Nhdr *n = (const Elf64_Nhdr *)(p + off);
			unsigned long long name = off + sizeof(*n);
			unsigned long long desc = name + ((n->n_namesz + 3) & ~3U);
			unsigned long long next = desc + ((n->n_descsz + 3) & ~3U);

			if (next > end)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(p + name, "GNU", 4)) {
				for (unsigned int j = 0; j < n->n_descsz; j++) {
					h = (h ^ p[desc + j]) * 1099511628211ULL;
					p[desc + j] = (unsigned char)(h >> 56);
				}
				for (unsigned int j = 0; j < n->n_descsz; j++)
					printf("%02x", p[desc + j]);
				printf("\n");
				return msync(p, st.st_size, MS_SYNC) ? 1 : 0;
			}
			off = next;
		}
	}
	fprintf(stderr, "%s: no GNU build-id note\n", argv[1]);
	return 1;
}
