/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel tracepoints by name (tracepoint_lookup.c). */
#ifndef USTACK_TRACEPOINT_LOOKUP_H
#define USTACK_TRACEPOINT_LOOKUP_H

struct tracepoint;

struct tracepoint *ustack_tp_find(const char *name);

#endif /* USTACK_TRACEPOINT_LOOKUP_H */
