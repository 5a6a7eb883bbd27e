/* SPDX-License-Identifier: GPL-2.0 */
/* ustack.ko: declarations shared between the module's files. */
#ifndef USTACK_INTERNAL_H
#define USTACK_INTERNAL_H

#include <linux/types.h>
#include <uapi/ustack.h>
#include "compat.h"

struct task_struct;
struct pt_regs;

#define USTACK_VERSION "0.1.0"

/* Limits of one walk and one record. */
#define USTACK_FRAMES_LIMIT	1024	/* max value of max_frames */
#define USTACK_KSTACK_MAX	64	/* kernel frames per sample */
#define USTACK_STRTAB_MAX	4096	/* object names per user record */
#define USTACK_REC_MAX		(sizeof(struct ustack_rec_user) + \
				 USTACK_FRAMES_LIMIT * sizeof(struct ustack_frame) + \
				 USTACK_STRTAB_MAX)

/* Module parameters (ustack_main.c). */
extern unsigned int ustack_sample_hz;
extern int ustack_pid;
extern bool ustack_offcpu;
extern unsigned int ustack_max_frames;
extern unsigned int ustack_buffer_kb;
extern unsigned int ustack_max_tasks;

/* /dev/ustack and its record ring (stream.c). */
int ustack_dev_init(void);
void ustack_dev_exit(void);
bool ustack_stream_write(const void *a, u32 alen, const void *b, u32 blen);
bool ustack_stream_active(void);
u64 ustack_stream_dropped(void);
u64 ustack_stream_wakeups(void);
u64 ustack_stream_written(void);
u64 ustack_stream_read_bytes(void);
const char *ustack_method_name(unsigned int m);	/* "sframe", ... */
const char *ustack_end_name(unsigned int e);	/* "outermost", ... */

/* Event sources (sources.c): run while /dev/ustack is open. */
int ustack_sources_init(void);
int ustack_sources_start(void);
void ustack_sources_stop(void);
void ustack_sources_resample(void);
const char *ustack_syscall_name(int nr);
extern bool ustack_offcpu_active;
void ustack_offcpu_event(struct task_struct *prev, unsigned int prev_state);
int ustack_syscalls_set(const char *list);
void ustack_sample(u16 event, struct pt_regs *regs);
void ustack_sampling_counters(int *cycles, int *cpu_clock);

/* The NMI test hook (nmi_test.c): /sys/kernel/debug/ustack/nmi_test. */
struct dentry;
void ustack_nmi_test_init(struct dentry *dir);
void ustack_nmi_test_exit(void);

/* /dev/sframe (sframe_dev.c). */
int ustack_sframe_dev_init(void);
void ustack_sframe_dev_exit(void);

/*
 * Registration and the user walk (registry.c, walk.c, ...).
 * ustack_walk_user() walks the current task's user stack from @regs (its
 * user-mode registers) in faultable task context: SFrame where the PC has a
 * registered or discovered section, else frame pointers.  It stores up to
 * @max frames (ips[0] = the interrupted IP) with their enum ustack_method in
 * @methods (may be NULL), returns the count and sets *@end (enum ustack_end).
 */
int ustack_registry_init(void);
void ustack_registry_exit(void);
u32 ustack_walk_user(struct pt_regs *regs, u64 *ips, u8 *methods, u32 max,
		     u8 *end);

/*
 * The deferred engine (deferred.c).  ustack_request_self() is the explicit
 * request of /dev/sframe's SFRAME_IOC_SELF_STACK: it records a "self" event
 * in the stream (when a reader is open) and returns the cookie of the
 * current kernel stay.
 */
int ustack_deferred_init(void);
void ustack_deferred_exit(void);
int ustack_deferred_enable(void);
int ustack_stats_init(void);
void ustack_stats_exit(void);
u64 ustack_request_self(void);

#endif /* USTACK_INTERNAL_H */
