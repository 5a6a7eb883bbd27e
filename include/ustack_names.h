/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The one vocabulary of ustack: the text name of every frame method, walk
 * end reason and event code of include/uapi/ustack.h.  The module's text
 * records and stats, ustack-report, the tests (tests/report/gen.py reads
 * this file) and the README all take their names from here, so a new
 * method or end reason is added in exactly two places: its code in the
 * UAPI header and its name below.
 *
 * Each list is an X-macro: X(code, "name").  For example:
 *
 *	static const char *const names[USTACK_METHOD_MAX] = {
 *		USTACK_METHOD_NAMES(USTACK_NAME_INIT)
 *	};
 */
#ifndef _USTACK_NAMES_H
#define _USTACK_NAMES_H

#include "uapi/ustack.h"

/* A designated array initialiser: names[code] = "name". */
#define USTACK_NAME_INIT(code, name)	[code] = name,

/* How a frame was recovered (the `method` of a user frame). */
#define USTACK_METHOD_NAMES(X)			\
	X(USTACK_METHOD_REGS,	"regs")		\
	X(USTACK_METHOD_SFRAME,	"sframe")	\
	X(USTACK_METHOD_FP,	"fp")		\
	X(USTACK_METHOD_SIGNAL,	"signal")	\
	X(USTACK_METHOD_ENTRY,	"entry")		\
	X(USTACK_METHOD_GUESS,	"guess")

/* Why a walk ended (the `end` of a user record). */
#define USTACK_END_NAMES(X)				\
	X(USTACK_END_OUTERMOST,	"outermost")		\
	X(USTACK_END_FAULT,	"fault")		\
	X(USTACK_END_DEPTH,	"depth")		\
	X(USTACK_END_NO_INFO,	"no-info")		\
	X(USTACK_END_BAD_FRAME,	"bad-frame")		\
	X(USTACK_END_EXIT,	"exit")			\
	X(USTACK_END_EXEC,	"exec")			\
	X(USTACK_END_NOMEM,	"nomem")		\
	X(USTACK_END_KTHREAD,	"kthread")		\
	X(USTACK_END_BUDGET,	"budget")		\
	X(USTACK_END_SCAN_END,	"scan-end")		\
	X(USTACK_END_SCAN_FAULT, "scan-fault")

/*
 * What asked for a stack (the `event` of a sample).  A syscall event's
 * text adds ":<name>" (syscall:write); a tp or kprobe event's text adds
 * the name its record carries (tp:sched:sched_process_exec,
 * kprobe:vfs_write).
 */
#define USTACK_EVENT_NAMES(X)				\
	X(USTACK_EVENT_CPU_CLOCK,	"cpu-clock")	\
	X(USTACK_EVENT_SYSCALL,		"syscall")	\
	X(USTACK_EVENT_OFFCPU,		"offcpu")	\
	X(USTACK_EVENT_SELF,		"self")		\
	X(USTACK_EVENT_CYCLES,		"cycles")	\
	X(USTACK_EVENT_NMI_TEST,	"nmi-test")	\
	X(USTACK_EVENT_TP,		"tp")		\
	X(USTACK_EVENT_KPROBE,		"kprobe")

/* The kind of a record: the first word of its text form. */
#define USTACK_REC_NAMES(X)				\
	X(USTACK_REC_SAMPLE,	"sample")		\
	X(USTACK_REC_USER,	"user")			\
	X(USTACK_REC_LOST,	"lost")			\
	X(USTACK_REC_INTERP,	"interp")

/*
 * The mark after an interp frame's place when it has USTACK_INTERP_ENTRY:
 * it began a new native evaluation of the interpreter.
 */
#define USTACK_INTERP_ENTRY_NAME	"entry"

#endif /* _USTACK_NAMES_H */
