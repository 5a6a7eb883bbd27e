// SPDX-License-Identifier: GPL-2.0
/*
 * The SFrame store's ioctls on /dev/sframe, for the VM tests:
 *   sframe_store add OBJ ELF [FLAGS [USER]]
 *                                 OBJ's entry: the .sframe section of ELF
 *                                 (`sframe-register gen OBJ -o ELF`),
 *                                 FLAGS (default 0) the request's flags,
 *                                 USER its user (SFRAME_STORE_USER's)
 *   sframe_store raw OBJ FILE OFF LEN VADDR [FLAGS]
 *   sframe_store del OBJ [FLAGS]
 *   sframe_store flush
 *   sframe_store misses           "miss PID START END INO DEV" per entry,
 *                                 then "dropped N"
 *   sframe_store fill DIR N ELF   N small ELF objects made in DIR (each its
 *                                 own inode), each added with ELF's section;
 *                                 "added K" and what stopped it, if anything
 *   sframe_store vdso ELF         the vDSO's entry (SFRAME_STORE_VDSO): the
 *                                 .sframe section of ELF
 *   sframe_store vdso-raw FILE OFF LEN VADDR
 *   sframe_store vdso-entry FILE  the vDSO's entry: a ustackd store entry
 *   sframe_store vdso-del
 * A refused request prints "error <ERRNO NAME>" and exits 1.  With
 * SFRAME_REG_SIZE in the environment, requests have that size (the bytes
 * past the struct zero, but with SFRAME_REG_TAIL the last).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <uapi/ustack.h>
#include "sframe_entry.h"

static int dev_fd(void)
{
	int fd = open("/dev/sframe", O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		perror("/dev/sframe");
		exit(2);
	}
	return fd;
}

static int refused(void)
{
	printf("error %s\n", strerrorname_np(errno));
	return 1;
}

/* The .sframe section of the ELF file @path: offset, size, address. */
static int find_sframe(const char *path, struct sframe_store_reg *r)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh[512], str;
	char name[16];
	int fd = open(path, O_RDONLY | O_CLOEXEC), i;

	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    eh.e_shnum > 512 || eh.e_shstrndx >= eh.e_shnum ||
	    pread(fd, sh, eh.e_shnum * sizeof(*sh), eh.e_shoff) !=
	    (ssize_t)(eh.e_shnum * sizeof(*sh)))
		goto bad;
	str = sh[eh.e_shstrndx];
	for (i = 0; i < eh.e_shnum; i++) {
		if (pread(fd, name, sizeof(name), str.sh_offset + sh[i].sh_name) <= 0)
			goto bad;
		if (!strncmp(name, ".sframe", 8)) {
			r->sframe_fd = fd;
			r->sframe_off = sh[i].sh_offset;
			r->sframe_len = sh[i].sh_size;
			r->sframe_vaddr = sh[i].sh_addr;
			return 0;
		}
	}
bad:
	fprintf(stderr, "%s: no .sframe section\n", path);
	exit(2);
}

static int store(int cmd, struct sframe_store_reg *r)
{
	const char *size = getenv("SFRAME_REG_SIZE");
	char big[256] = { 0 };

	r->size = size ? strtoul(size, NULL, 0) : sizeof(*r);
	if (r->size > sizeof(big))
		return errno = EINVAL, -1;
	memcpy(big, r, sizeof(*r));
	if (getenv("SFRAME_REG_TAIL") && r->size > sizeof(*r))
		big[r->size - 1] = 1;
	return ioctl(dev_fd(), cmd, big);
}

static int open_ro(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		perror(path);
		exit(2);
	}
	return fd;
}

/* A small x86-64 ELF file with one executable PT_LOAD. */
static int make_obj(const char *path)
{
	struct {
		Elf64_Ehdr eh;
		Elf64_Phdr ph;
	} f = {
		.eh = {
			.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3,
				     ELFCLASS64, ELFDATA2LSB, EV_CURRENT },
			.e_type = ET_DYN, .e_machine = EM_X86_64,
			.e_version = EV_CURRENT, .e_phoff = sizeof(Elf64_Ehdr),
			.e_ehsize = sizeof(Elf64_Ehdr),
			.e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 1,
		},
		.ph = { .p_type = PT_LOAD, .p_flags = PF_R | PF_X,
			.p_filesz = sizeof(f), .p_memsz = sizeof(f),
			.p_align = 4096 },
	};
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || write(fd, &f, sizeof(f)) != sizeof(f)) {
		perror(path);
		exit(2);
	}
	return fd;
}

static int fill(const char *dir, long n, const char *elf)
{
	struct sframe_store_reg r = { .size = sizeof(r) };
	int dev = dev_fd();
	char path[4096];
	long i;

	find_sframe(elf, &r);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/obj%ld", dir, i);
		r.object_fd = make_obj(path);
		if (ioctl(dev, SFRAME_IOC_STORE_ADD, &r)) {
			int e = errno;

			printf("added %ld\n", i);
			errno = e;
			return refused();
		}
		close(r.object_fd);
	}
	printf("added %ld\n", i);
	return 0;
}

static int misses(void)
{
	struct sframe_store_miss m[64];
	struct sframe_store_misses a = {
		.size = sizeof(a), .misses = (unsigned long)m, .max_misses = 64,
	};
	int dev = dev_fd();
	unsigned int i;

	do {
		if (ioctl(dev, SFRAME_IOC_STORE_MISSES, &a))
			return refused();
		for (i = 0; i < a.nr_misses; i++)
			printf("miss %u %#llx %#llx %llu %llu\n", m[i].pid,
			       (unsigned long long)m[i].start,
			       (unsigned long long)m[i].end,
			       (unsigned long long)m[i].ino,
			       (unsigned long long)m[i].dev);
	} while (a.nr_misses == 64);
	printf("dropped %llu\n", (unsigned long long)a.dropped);
	return 0;
}

int main(int argc, char **argv)
{
	struct sframe_store_reg r = { 0 };
	const char *c = argc > 1 ? argv[1] : "";

	if (!strcmp(c, "add") && argc >= 4 && argc <= 6) {
		r.object_fd = open_ro(argv[2]);
		find_sframe(argv[3], &r);
		r.flags = argc >= 5 ? strtoul(argv[4], NULL, 0) : 0;
		r.user = argc == 6 ? strtoull(argv[5], NULL, 0) : 0;
		return store(SFRAME_IOC_STORE_ADD, &r) ? refused() : 0;
	}
	if (!strcmp(c, "raw") && (argc == 7 || argc == 8)) {
		r.object_fd = open_ro(argv[2]);
		r.sframe_fd = open_ro(argv[3]);
		r.sframe_off = strtoull(argv[4], NULL, 0);
		r.sframe_len = strtoull(argv[5], NULL, 0);
		r.sframe_vaddr = strtoull(argv[6], NULL, 0);
		r.flags = argc == 8 ? strtoul(argv[7], NULL, 0) : 0;
		return store(SFRAME_IOC_STORE_ADD, &r) ? refused() : 0;
	}
	if (!strcmp(c, "del") && (argc == 3 || argc == 4)) {
		r.object_fd = open_ro(argv[2]);
		r.flags = argc == 4 ? strtoul(argv[3], NULL, 0) : 0;
		return store(SFRAME_IOC_STORE_DEL, &r) ? refused() : 0;
	}
	if (!strcmp(c, "flush") && argc == 2)
		return ioctl(dev_fd(), SFRAME_IOC_STORE_FLUSH, 0) ? refused() : 0;
	if (!strcmp(c, "misses") && argc == 2)
		return misses();
	r.object_fd = -1;
	r.flags = SFRAME_STORE_VDSO;
	if (!strcmp(c, "vdso") && argc == 3) {
		find_sframe(argv[2], &r);
		return store(SFRAME_IOC_STORE_ADD, &r) ? refused() : 0;
	}
	if (!strcmp(c, "vdso-raw") && argc == 6) {
		r.sframe_fd = open_ro(argv[2]);
		r.sframe_off = strtoull(argv[3], NULL, 0);
		r.sframe_len = strtoull(argv[4], NULL, 0);
		r.sframe_vaddr = strtoull(argv[5], NULL, 0);
		return store(SFRAME_IOC_STORE_ADD, &r) ? refused() : 0;
	}
	if (!strcmp(c, "vdso-entry") && argc == 3) {
		struct cache_hdr h;

		r.sframe_fd = open_ro(argv[2]);
		if (pread(r.sframe_fd, &h, sizeof(h), 0) != sizeof(h)) {
			fprintf(stderr, "%s: no entry header\n", argv[2]);
			return 2;
		}
		r.sframe_off = h.hdr_size;
		r.sframe_len = h.sframe_len;
		r.sframe_vaddr = h.sframe_vaddr;
		return store(SFRAME_IOC_STORE_ADD, &r) ? refused() : 0;
	}
	if (!strcmp(c, "vdso-del") && argc == 2)
		return store(SFRAME_IOC_STORE_DEL, &r) ? refused() : 0;
	if (!strcmp(c, "fill") && argc == 5)
		return fill(argv[2], atol(argv[3]), argv[4]);
	fprintf(stderr, "usage: sframe_store add|raw|del|flush|misses|fill|vdso|vdso-raw|vdso-entry|vdso-del ...\n");
	return 2;
}
