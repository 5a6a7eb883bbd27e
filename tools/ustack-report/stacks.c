// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: each joined sample as a list of frame names, outermost
 * first (comm; user frames; kernel frames), named as stackcollapse-perf.pl
 * names them from our perf output: offsets stripped, unsymbolized frames as
 * "[object basename]", ';' as ':', no quotes, no C++ argument lists;
 * control characters, backslash and non-UTF-8 bytes as "\ooo" (a frame
 * holds no ';' and no newline, whatever a user named a program or file).  A sample without its user
 * record gets a "[no user stack]" frame under comm, one whose walk stopped
 * short of the outermost frame an "[incomplete: <end>]" frame (so that
 * truncated stacks do not pose as complete ones).  Identical lists are
 * merged, sorted frame by frame.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ur.h"
#include "uapi/ustack.h"

static const char *tidy_args(const char *s, size_t n, int args)
{
	char *b = xrealloc(NULL, n + 1), *e = xrealloc(NULL, 4 * n + 1);
	const char *r;
	size_t i, j = 0;

	/* C++ arguments go: "ns::f(int)" -> "ns::f", but not "(anonymous" */
	for (i = 0; args && i < n; i++)
		if (s[i] == '(' && strncmp(s + i, "(anonymous namespace)", 21)) {
			n = i;
			break;
		}
	for (i = 0; i < n; i++) {
		if (s[i] == '"' || s[i] == '\'')
			continue;
		b[j++] = s[i] == ';' ? ':' : s[i];
	}
	j = esc_bytes(b, j, e);
	r = intern(e, j);
	free(b);
	free(e);
	return r;
}

static const char *tidy(const char *s, size_t n)
{
	return tidy_args(s, n, 1);
}

static const char *comm_name(const char *comm)
{
	char b[64];
	size_t i;

	snprintf(b, sizeof(b), "%s", comm);
	for (i = 0; b[i]; i++)
		if (b[i] == ' ')
			b[i] = '_';
	return tidy_args(b, strlen(b), 0);
}

static struct memo user_names, kernel_names;

const char *user_frame_name(const struct uframe *f)
{
	const char *key = f->res && f->res->name ? f->res->name : f->obj;
	const char *r = memo_get(&user_names, key);
	char b[512];

	if (r)
		return r;
	if (f->res && f->res->name) {
		r = tidy(f->res->name, strlen(f->res->name));
	} else if (f->obj[0] == '[') {
		r = tidy(f->obj, strlen(f->obj));
	} else {
		snprintf(b, sizeof(b), "[%s]", basename_of(f->obj));
		r = tidy(b, strlen(b));
	}
	memo_put(&user_names, key, r);
	return r;
}

/* "name+0x1a [mod]" -> "name" */
const char *kernel_frame_name(const struct kframe *k)
{
	const char *s = k->sym, *e;

	const char *r;

	if (!s)
		return internz("[kernel.kallsyms]");
	r = memo_get(&kernel_names, s);
	if (r)
		return r;
	e = s + strcspn(s, " ");
	for (const char *p = s; p < e; p++)
		if (p[0] == '+' && p[1] == '0' && p[2] == 'x') {
			e = p;
			break;
		}
	r = tidy(s, e - s);
	memo_put(&kernel_names, s, r);
	return r;
}

const char *incomplete_mark(const struct user *u)
{
	char b[96];

	/* interned: the same pointers as the parser's */
	if (u->end == end_name(USTACK_END_OUTERMOST) ||
	    u->end == end_name(USTACK_END_KTHREAD))
		return NULL;
	snprintf(b, sizeof(b), "[incomplete: %s]", u->end);
	return tidy(b, strlen(b));
}

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
	r = tidy_args(b, strlen(b), 0);
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
		st->name[d++] = comm_name(s->comm);
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
