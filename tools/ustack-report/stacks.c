// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: each joined sample as a list of frame names, outermost
 * first (comm; user frames; kernel frames), named as stackcollapse-perf.pl
 * names them (collapse.c).  A sample without its user record gets a
 * "[no user stack]" frame under comm, one whose walk stopped short of the
 * outermost frame an "[incomplete: <end>]" frame (so that truncated stacks
 * do not pose as complete ones).  Identical lists are merged, sorted frame
 * by frame.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "uapi/ustack.h"

static int cmp_stack(const void *a, const void *b)
{
	const struct fstack *x = a, *y = b;
	uint32_t i;

	for (i = 0; i < x->n && i < y->n; i++) {
		int c;

		if (x->name[i] == y->name[i])
			continue;
		c = strcmp(x->name[i], y->name[i]);
		if (c)
			return c;
	}
	return (x->n > y->n) - (x->n < y->n);
}

static int same(const struct fstack *x, const struct fstack *y)
{
	return x->n == y->n && !memcmp(x->name, y->name, x->n * sizeof(*x->name));
}

/* An interpreter's frame: "function (file)", the lines of one merged. */
static const char *interp_name(const struct pframe *p)
{
	size_t n = strlen(p->name) + strlen(p->file ? p->file : "?") + 4;
	char *b = xrealloc(NULL, n);
	const char *r;

	snprintf(b, n, "%s (%s)", p->name, p->file ? p->file : "?");
	r = collapse_name(b, strlen(b), 0);
	free(b);
	return r;
}

/*
 * From sample_frames(): the interpreter's own frames stand in place of
 * its evaluator's, "[no user stack]" and "[incomplete: <end>]" are
 * marks.
 */
struct fstack *stacks_build(const struct recs *r, size_t *nout)
{
	struct fstack *v = xrealloc(NULL, (r->ns ? r->ns : 1) * sizeof(*v));
	struct pframe *fr = NULL;
	size_t i, n = 0, cap = 0;

	for (i = 0; i < r->ns; i++) {
		const struct sample *s = &r->s[i];
		size_t nf = sample_frames(s, &fr, &cap), j;
		struct fstack *st = &v[i];
		uint32_t d = 0;

		st->n = 1 + nf;
		st->name = xalloc(st->n * sizeof(*st->name));
		st->kind = xalloc(st->n);
		st->count = 1;
		st->kind[d] = FK_ROOT;
		st->name[d++] = comm_frame_name(s->comm);
		for (j = nf; j-- > 0;) {
			const struct pframe *p = &fr[j];

			switch (p->kind) {
			case PK_KERNEL:
				st->kind[d] = FK_KERNEL;
				st->name[d++] = kernel_frame_name(p->k);
				break;
			case PK_USER:
				st->kind[d] = p->guess ? FK_GUESS : FK_USER;
				st->name[d] = user_frame_name(p->u);
				if (p->guess)
					st->name[d] = guess_mark(st->name[d]);
				d++;
				break;
			case PK_INTERP:
				st->kind[d] = FK_USER;
				st->name[d++] = interp_name(p);
				break;
			default:
				st->kind[d] = FK_MARK;
				st->name[d++] = p->name;
			}
		}
	}
	free(fr);
	qsort(v, r->ns, sizeof(*v), cmp_stack);
	for (i = 0; i < r->ns; i++) {
		if (n && same(&v[n - 1], &v[i]))
			v[n - 1].count++;
		else
			v[n++] = v[i];
	}
	*nout = n;
	return v;
}
