// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: join each sample to its user stack by (tid, cookie).
 *
 * Records from several CPUs arrive in any order, so the whole stream is
 * joined at once: the user records are sorted by (tid, cookie, stream
 * position) and each sample takes the first user record with its key that
 * follows it in the stream (the contract's order), else the last one before
 * it (out-of-order arrival).  A cookie that comes back for the same tid (a
 * counter wrap) therefore still joins each stay to its own walk.  Samples
 * are then sorted by time, stably.
 */
#include <stdlib.h>

#include "report.h"

static int cmp_user(const void *a, const void *b)
{
	const struct user *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->cookie != y->cookie)
		return x->cookie < y->cookie ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_time(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* First index in u[0..n) whose key is >= (tid, cookie). */
static size_t lower(const struct user *u, size_t n, uint32_t tid,
		    uint64_t cookie)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u[mid].tid < tid ||
		    (u[mid].tid == tid && u[mid].cookie < cookie))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void join_records(struct recs *r, struct join_stats *st)
{
	size_t i;

	if (r->nu)
		qsort(r->u, r->nu, sizeof(*r->u), cmp_user);
	for (i = 0; i < r->ns; i++) {
		struct sample *s = &r->s[i];
		size_t j = lower(r->u, r->nu, s->tid, s->cookie);
		struct user *before = NULL, *after = NULL;

		for (; j < r->nu && r->u[j].tid == s->tid &&
		       r->u[j].cookie == s->cookie; j++) {
			if (r->u[j].seq < s->seq) {
				before = &r->u[j];
			} else {
				after = &r->u[j];
				break;
			}
		}
		s->u = after ? after : before;
		if (s->u) {
			s->u->used = 1;
			st->joined++;
		} else {
			st->missing++;
		}
	}
	for (i = 0; i < r->nu; i++)
		if (!r->u[i].used)
			st->orphan_users++;
	if (r->ns)
		qsort(r->s, r->ns, sizeof(*r->s), cmp_time);
}
