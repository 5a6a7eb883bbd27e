/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The target kernel's own system call names, by number (syscalls.c):
 * the one table behind the `syscalls` parameter and `event=syscall:NAME`.
 */
#ifndef USTACK_SYSCALLS_H
#define USTACK_SYSCALLS_H

#define USTACK_SYSCALL_SLOTS	512

const char *ustack_syscalls_name(int nr);
int ustack_syscalls_nr(const char *name);

#endif /* USTACK_SYSCALLS_H */
