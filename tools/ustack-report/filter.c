// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: sample filters, applied to the parsed stream before the
 * join, so that every output format sees the same samples.  --event keeps
 * one event (or a prefix); --pid, --tid and --comm each take a value or a
 * comma list and may be repeated: a sample passes when it matches one value
 * of every kind given.  User records are filtered too, so that the
 * summary's "without a sample" count stays about the selected tasks: by pid
 * and tid, and, as they carry no comm, with --comm by the tids of the
 * samples kept.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

struct vals {
	uint32_t *num;
	const char **str;	/* interned comms */
	size_t n, cap;
};

static struct vals pids, tids, comms;

static void push(struct vals *v, uint32_t num, const char *str)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 8;
		v->num = xrealloc(v->num, v->cap * sizeof(*v->num));
		v->str = xrealloc(v->str, v->cap * sizeof(*v->str));
	}
	v->num[v->n] = num;
	v->str[v->n++] = str;
}

int filter_add(enum filter_kind kind, const char *list)
{
	const char *p = list;

	for (;;) {
		size_t l = strcspn(p, ",");

		if (!l)
			return -1;
		if (kind == FILTER_COMM) {
			push(&comms, 0, intern(p, l));
		} else {
			char *end;
			unsigned long long v;

			errno = 0;
			v = strtoull(p, &end, 10);
			if (errno || end != p + l || *p < '0' || *p > '9' ||
			    v > UINT32_MAX)
				return -1;
			push(kind == FILTER_PID ? &pids : &tids, v, NULL);
		}
		if (!p[l])
			return 0;
		p += l + 1;
	}
}

static int has_num(const struct vals *v, uint32_t x)
{
	size_t i;

	if (!v->n)
		return 1;
	for (i = 0; i < v->n; i++)
		if (v->num[i] == x)
			return 1;
	return 0;
}

static int has_str(const struct vals *v, const char *s)
{
	size_t i;

	if (!v->n)
		return 1;
	for (i = 0; i < v->n; i++)
		if (v->str[i] == s)	/* both interned */
			return 1;
	return 0;
}

void filter_event(struct recs *r, const char *ev)
{
	size_t i, n = 0, l = strlen(ev);

	for (i = 0; i < r->ns; i++)
		if (!strncmp(r->s[i].event, ev, l) &&
		    (r->s[i].event[l] == '\0' || ev[l - 1] == ':'))
			r->s[n++] = r->s[i];
	r->ns = n;
}

/*
 * A live recording's samples up to its end: those taken while it drained
 * the user records of the last ones mostly have no user record yet, and
 * belong to no second of the recording.
 */
void filter_until(struct recs *r, uint64_t ns)
{
	size_t i, n = 0;

	for (i = 0; i < r->ns; i++)
		if (r->s[i].time <= ns)
			r->s[n++] = r->s[i];
	r->ns = n;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

void filter_apply(struct recs *r)
{
	uint32_t *kept = NULL;
	size_t i, n = 0;

	if (!pids.n && !tids.n && !comms.n)
		return;
	for (i = 0; i < r->ns; i++) {
		const struct sample *s = &r->s[i];

		if (has_num(&pids, s->pid) && has_num(&tids, s->tid) &&
		    has_str(&comms, s->comm))
			r->s[n++] = *s;
	}
	r->ns = n;
	if (comms.n) {
		kept = xrealloc(NULL, (r->ns + 1) * sizeof(*kept));
		for (i = 0; i < r->ns; i++)
			kept[i] = r->s[i].tid;
		qsort(kept, r->ns, sizeof(*kept), cmp_u32);
	}
	n = 0;
	for (i = 0; i < r->nu; i++) {
		const struct user *u = &r->u[i];

		if (!has_num(&pids, u->pid) || !has_num(&tids, u->tid))
			continue;
		if (kept && !bsearch(&u->tid, kept, r->ns, sizeof(*kept), cmp_u32))
			continue;
		r->u[n++] = *u;
	}
	r->nu = n;
	free(kept);
}
