// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD spy for the report tests: every elf_begin() (libelf, called
 * by libdw for each ELF file it parses) appends the caller's effective
 * uid and gid to the file named by ELFSPY_LOG, opened at start (the
 * process may lose the right to open it later).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int log_fd = -1;

__attribute__((constructor)) static void spy_init(void)
{
	const char *p = getenv("ELFSPY_LOG");

	if (p)
		log_fd = open(p, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
}

Elf *elf_begin(int fd, Elf_Cmd cmd, Elf *ref)
{
	static Elf *(*real)(int, Elf_Cmd, Elf *);
	char b[64];
	int n;

	if (!real)
		real = (Elf *(*)(int, Elf_Cmd, Elf *))dlsym(RTLD_NEXT, "elf_begin");
	n = snprintf(b, sizeof(b), "euid=%u egid=%u\n", (unsigned int)geteuid(),
		     (unsigned int)getegid());
	if (log_fd >= 0 && write(log_fd, b, n) != n)
		log_fd = -1;
	return real(fd, cmd, ref);
}
