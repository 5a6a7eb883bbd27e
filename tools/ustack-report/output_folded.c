// SPDX-License-Identifier: GPL-2.0
/* ustack-report: folded stacks, "comm;outer;...;inner count", sorted. */
#include <inttypes.h>

#include "report.h"

void output_folded(FILE *f, const struct recs *r, const struct out_opts *o)
{
	size_t n, i;
	struct fstack *v = stacks_build(r, &n);
	uint32_t j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < v[i].n; j++)
			fprintf(f, "%s%s", j ? ";" : "", v[i].name[j]);
		fprintf(f, " %" PRIu64 "\n", v[i].count);
	}
}
