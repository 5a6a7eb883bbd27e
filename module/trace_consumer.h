/* SPDX-License-Identifier: GPL-2.0 */
/* The trace events as a consumer of the sources (trace_consumer.c). */
#ifndef USTACK_TRACE_CONSUMER_H
#define USTACK_TRACE_CONSUMER_H

void ustack_trace_consumer_init(void);
void ustack_trace_consumer_exit(void);

#endif /* USTACK_TRACE_CONSUMER_H */
