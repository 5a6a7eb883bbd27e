/* SPDX-License-Identifier: GPL-2.0 */
/* The event sources (sources.c): what asks for stacks; source.h their base. */
#ifndef USTACK_SOURCES_H
#define USTACK_SOURCES_H

#include <linux/types.h>
#include "source.h"

struct pt_regs;

int ustack_sources_init(void);
void ustack_sources_exit(void);
int ustack_sources_start(void);
void ustack_sources_stop(void);
int ustack_sources_set_hz(unsigned int hz);

u64 ustack_sources_self(void);
void ustack_sources_counters(int *cycles, int *cpu_clock, long *limited);

#endif /* USTACK_SOURCES_H */
