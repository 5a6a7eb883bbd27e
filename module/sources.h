/* SPDX-License-Identifier: GPL-2.0 */
/* The event sources (sources.c): what asks for stacks. */
#ifndef USTACK_SOURCES_H
#define USTACK_SOURCES_H

#include <linux/types.h>

struct pt_regs;

/* Parameters, read at every event (pid, offcpu) or applied by a setter. */
extern int ustack_sources_pid;
extern bool ustack_sources_offcpu;
extern unsigned int ustack_sources_hz;

int ustack_sources_init(void);
void ustack_sources_exit(void);
bool ustack_sources_running(void);
int ustack_sources_start(void);
void ustack_sources_stop(void);
void ustack_sources_set_hz(unsigned int hz);
int ustack_sources_set_syscalls(const char *list);

/* tracepoints=, kprobes=: a list's length, one name's (with its NUL). */
#define USTACK_SOURCES_LIST_LEN	1024
#define USTACK_SOURCES_NAME_LEN	64
int ustack_sources_set_any(u16 event, const char *list);
int ustack_sources_get_any(u16 event, char *buf);
void ustack_sources_sample(u16 event, struct pt_regs *regs);
u64 ustack_sources_self(void);
void ustack_sources_counters(int *cycles, int *cpu_clock, long *limited);

#endif /* USTACK_SOURCES_H */
