/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The base every event source shares (source.c): the parameters, the
 * lock, the sample record; and what each source's file (source_*.c)
 * gives sources.c, which starts and stops them all.  The rest of the
 * module sees sources.h.
 */
#ifndef USTACK_SOURCE_H
#define USTACK_SOURCE_H

#include <linux/mutex.h>
#include <linux/types.h>
#include <uapi/ustack.h>

struct pt_regs;
struct task_struct;

/* Parameters, read at every event (pid, offcpu) or applied by a setter. */
extern int ustack_sources_pid;
extern bool ustack_sources_offcpu;
extern unsigned int ustack_sources_hz;

/* tracepoints=, kprobes=: a list's length, one name's (with its NUL). */
#define USTACK_SOURCES_LIST_LEN	1024
#define USTACK_SOURCES_NAME_LEN	64

/* Serialises starts, stops and parameter changes of every source. */
extern struct mutex ustack_sources_lock;

/* Between a start's end and the next stop (stats: active). */
bool ustack_sources_running(void);
void ustack_sources_set_running(bool on);

/* A sample of the interrupted task, from an interrupt or an NMI. */
void ustack_sources_sample(u16 event, struct pt_regs *regs);

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
int ustack_source_perf_set_hz(unsigned int hz);
void ustack_source_perf_counters(int *cycles, int *cpu_clock);

/* source_tp.c: syscall and offcpu, under ustack_sources_lock. */
int ustack_sources_set_syscalls(const char *list);
int ustack_source_tp_init(void);
void ustack_source_tp_exit(void);
int ustack_source_syscalls_start(void);
void ustack_source_syscalls_stop(void);
int ustack_source_offcpu_start(void);
void ustack_source_offcpu_stop(void);

/* source_any.c: tp and kprobe, under ustack_sources_lock. */
int ustack_sources_set_any(u16 event, const char *list);
int ustack_sources_get_any(u16 event, char *buf);
int ustack_source_any_start(void);
void ustack_source_any_stop(void);
void ustack_source_any_exit(void);

#endif /* USTACK_SOURCE_H */
