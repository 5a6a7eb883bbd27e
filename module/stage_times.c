// SPDX-License-Identifier: GPL-2.0
/*
 * The time of a sample's stages, summed per CPU while the stage_times
 * parameter is set (stage_times.h has the calls the stages make): where
 * the time of a sample goes, for the stream bench.  The stats print the
 * sums; this file calls no other part of ustack.
 */
#include <linux/seq_file.h>
#include "stage_times.h"

/* Module parameter stage_times: time the stages of each sample. */
bool ustack_stage_times;
DEFINE_PER_CPU(struct ustack_stage_sums, ustack_stage_sums);
DEFINE_PER_CPU(struct ustack_stage_mark, ustack_stage_mark);

static const char *const stage_names[USTACK_STAGE_MAX] = {
	[USTACK_STAGE_REQUEST] = "request",
	[USTACK_STAGE_DEFERRAL] = "deferral",
	[USTACK_STAGE_WALK] = "walk",
	[USTACK_STAGE_RECORD] = "record",
	[USTACK_STAGE_RING] = "ring",
	[USTACK_STAGE_COOP_REQUEST] = "coop_request",
	[USTACK_STAGE_COOP_ANSWER] = "coop_answer",
};

/* The sums of every CPU, as stats lines stage_NAME_ns and stage_NAME_n. */
void ustack_stage_times_show(struct seq_file *m)
{
	int s, cpu;

	for (s = 0; s < USTACK_STAGE_MAX; s++) {
		u64 ns = 0, n = 0;

		for_each_possible_cpu(cpu) {
			const struct ustack_stage_sums *p =
				per_cpu_ptr(&ustack_stage_sums, cpu);

			ns += READ_ONCE(p->ns[s]);
			n += READ_ONCE(p->n[s]);
		}
		seq_printf(m, "stage_%s_ns %llu\n", stage_names[s], ns);
		seq_printf(m, "stage_%s_n %llu\n", stage_names[s], n);
	}
}
