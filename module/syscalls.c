// SPDX-License-Identifier: GPL-2.0
/*
 * System call names, generated at build time from the target kernel's
 * own uapi table (Kbuild, syscall-names.sh): the names of strace and the
 * man pages, which users write in the `syscalls` parameter.
 */
#include <linux/errno.h>
#include <linux/string.h>
#include "syscalls.h"

static const char *const names[USTACK_SYSCALL_SLOTS] = {
#include "syscall_names.h"
};

/**
 * ustack_syscalls_name - the name of system call @nr
 * @nr: the number
 *
 * Return: its name, or NULL for a number without one.
 */
const char *ustack_syscalls_name(int nr)
{
	if (nr < 0 || nr >= USTACK_SYSCALL_SLOTS || !names[nr])
		return NULL;
	return names[nr];
}

/**
 * ustack_syscalls_nr - the number of the system call called @name
 * @name: its name, without the sys_ prefix
 *
 * Return: the number, or -ENOENT.
 */
int ustack_syscalls_nr(const char *name)
{
	int nr;

	for (nr = 0; nr < USTACK_SYSCALL_SLOTS; nr++)
		if (names[nr] && !strcmp(names[nr], name))
			return nr;
	return -ENOENT;
}
