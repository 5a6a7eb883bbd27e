/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the event sources' files give the sources (sources.c), which
 * starts and stops them, and take from it: the sample record.  The rest
 * of the module sees sources.h.
 */
#ifndef USTACK_SOURCE_H
#define USTACK_SOURCE_H

#include <linux/mutex.h>
#include <linux/types.h>
#include <uapi/ustack.h>
#include "sources.h"

struct pt_regs;
struct task_struct;

/* Serialises starts, stops and parameter changes of every source. */
extern struct mutex ustack_sources_lock;

/* Is @t a task whose events are recorded (user code, `pid`)? */
bool ustack_sources_wanted(struct task_struct *t);

/*
 * Record one event of the current task: request its user stack and write
 * the sample with its kernel stack.  @regs: the interrupted registers, or
 * NULL (the kernel stack is where we are, less @skip).  @arg: the name of
 * a tp or kprobe event, else NULL.  Any context.  Return: the cookie.
 */
u64 ustack_sources_record(u16 event, int syscall_nr, struct pt_regs *regs,
			  unsigned int skip, const char *arg);

/* source_perf.c: cycles or cpu-clock, under ustack_sources_lock. */
int ustack_source_perf_start(void);
void ustack_source_perf_stop(void);
void ustack_source_perf_counters(int *cycles, int *cpu_clock);

/* source_tp.c: syscall and offcpu, under ustack_sources_lock. */
int ustack_source_tp_init(void);
void ustack_source_tp_exit(void);
int ustack_source_syscalls_start(void);
void ustack_source_syscalls_stop(void);
int ustack_source_offcpu_start(void);
void ustack_source_offcpu_stop(void);

/* source_any.c: tp and kprobe, under ustack_sources_lock. */
int ustack_source_any_start(void);
void ustack_source_any_stop(void);
void ustack_source_any_exit(void);

#endif /* USTACK_SOURCE_H */
