// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel tracepoints by name.  The ones ustack probes (sched_switch,
 * sys_enter) are not exported to modules as symbols; the tracepoint
 * table of the kernel image is.
 */
#include <linux/string.h>
#include <linux/tracepoint.h>
#include "tracepoint_lookup.h"

struct tp_search {
	const char *name;
	struct tracepoint *found;
};

static void tp_match(struct tracepoint *tp, void *priv)
{
	struct tp_search *s = priv;

	if (!strcmp(tp->name, s->name))
		s->found = tp;
}

/**
 * ustack_tp_find - a tracepoint of the kernel image
 * @name: its name, without the system ("sched_switch")
 *
 * Return: the tracepoint, or NULL.
 */
struct tracepoint *ustack_tp_find(const char *name)
{
	struct tp_search s = { .name = name };

	for_each_kernel_tracepoint(tp_match, &s);
	return s.found;
}
