// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: the records a parse fills (parse.c, the stream;
 * parse_perf.c, perf script's text), samples and user records, each
 * numbered in the order it was read.
 */
#include <string.h>

#include "report.h"

/* The next sample of the input, zeroed. */
struct sample *recs_new_sample(struct recs *r)
{
	if (r->ns == r->cap_s) {
		r->cap_s = r->cap_s ? r->cap_s * 2 : 1024;
		r->s = xrealloc(r->s, r->cap_s * sizeof(*r->s));
	}
	memset(&r->s[r->ns], 0, sizeof(*r->s));
	r->s[r->ns].seq = r->seq++;
	return &r->s[r->ns++];
}

struct user *recs_new_user(struct recs *r)
{
	if (r->nu == r->cap_u) {
		r->cap_u = r->cap_u ? r->cap_u * 2 : 1024;
		r->u = xrealloc(r->u, r->cap_u * sizeof(*r->u));
	}
	memset(&r->u[r->nu], 0, sizeof(*r->u));
	r->u[r->nu].seq = r->seq++;
	return &r->u[r->nu++];
}
