/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel tracepoints by name (tp.c). */
#ifndef USTACK_TP_H
#define USTACK_TP_H

struct tracepoint;

struct tracepoint *ustack_tp_find(const char *name);

#endif /* USTACK_TP_H */
