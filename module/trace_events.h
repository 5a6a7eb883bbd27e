/* SPDX-License-Identifier: GPL-2.0 */
/* The trace events as a consumer of the sources (trace_events.c). */
#ifndef USTACK_TRACE_EVENTS_H
#define USTACK_TRACE_EVENTS_H

void ustack_trace_events_exit(void);

#endif /* USTACK_TRACE_EVENTS_H */
