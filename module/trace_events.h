/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace events' definitions (trace_events.c), below the sources: the
 * sources emit them (ustack_trace.h); their consumer above registers here.
 */
#ifndef USTACK_TRACE_EVENTS_H
#define USTACK_TRACE_EVENTS_H

#include <linux/types.h>

void ustack_trace_events_init(void);
void ustack_trace_events_set_hook(void (*changed)(void));
bool ustack_trace_events_wanted(void);

#endif /* USTACK_TRACE_EVENTS_H */
