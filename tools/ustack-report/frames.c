// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: one sample's frames, innermost first, with what the
 * profile formats (pprof, speedscope) keep of each: kernel frames (name
 * without offset), user frames (the symbolizer's full name, file:line with
 * -l, the uframe for address, object and offset), interpreter frames
 * (function, file, line: interp.c) and the marks the other outputs show:
 * "[incomplete: <end>]" below a walk that stopped short, "[no user stack]"
 * for a sample without its user record.  A guessed frame (method "guess",
 * found by scanning the stack) keeps its name behind a "? " prefix, as the
 * kernel prints unreliable frames, so that it is never taken for a fact.
 *
 * And a byte-keyed table (id by content) for the formats' tables.
 */
#include <stdlib.h>
#include <string.h>

#include "uapi/ustack.h"
#include "report.h"
#include "uapi/ustack.h"

static uint64_t hash(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	while (len--) {
		h ^= *p++;
		h *= 1099511628211ull;
	}
	return h;
}

static void ktab_grow(struct ktab *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 1024, i, j;
	const void **keys = calloc(ncap, sizeof(*keys));
	size_t *lens = calloc(ncap, sizeof(*lens));
	uint32_t *ids = calloc(ncap, sizeof(*ids));

	if (!keys || !lens || !ids)
		die("out of memory");
	for (i = 0; i < t->cap; i++) {
		if (!t->keys[i])
			continue;
		j = hash(t->keys[i], t->lens[i]) & (ncap - 1);
		while (keys[j])
			j = (j + 1) & (ncap - 1);
		keys[j] = t->keys[i];
		lens[j] = t->lens[i];
		ids[j] = t->ids[i];
	}
	free(t->keys);
	free(t->lens);
	free(t->ids);
	t->keys = keys;
	t->lens = lens;
	t->ids = ids;
	t->cap = ncap;
}

uint32_t ktab_id(struct ktab *t, const void *key, size_t len, int *added)
{
	size_t j;
	void *c;

	if ((t->count + 1) * 2 > t->cap)
		ktab_grow(t);
	j = hash(key, len) & (t->cap - 1);
	for (; t->keys[j]; j = (j + 1) & (t->cap - 1))
		if (t->lens[j] == len && !memcmp(t->keys[j], key, len)) {
			if (added)
				*added = 0;
			return t->ids[j];
		}
	c = xalloc(len ? len : 1);
	memcpy(c, key, len);
	t->keys[j] = c;
	t->lens[j] = len;
	t->ids[j] = t->count++;
	if (added)
		*added = 1;
	return t->ids[j];
}

static struct memo guessed;

/* Method names are interned by the parsers: one pointer per name. */
int frame_guessed(const struct uframe *f)
{
	return f->method == method_name(USTACK_METHOD_GUESS);
}

const char *guess_mark(const char *name)
{
	const char *r = memo_get(&guessed, name);
	char *b;
	size_t n;

	if (r)
		return r;
	n = strlen(name);
	b = xrealloc(NULL, n + 3);
	memcpy(b, "? ", 2);
	memcpy(b + 2, name, n + 1);
	r = intern(b, n + 2);
	free(b);
	memo_put(&guessed, name, r);
	return r;
}

const char *kernel_object(const struct kframe *k)
{
	const char *m = k->sym ? strchr(k->sym, ' ') : NULL;

	if (m && m[1] == '[')
		return internz(m + 1);
	return internz("[kernel.kallsyms]");
}

/*
 * The native frames in which an interpreter runs its own, by language
 * (Python: its evaluator; Java: the JVM's interpreter and JIT code, in
 * anonymous memory; its answers have no entry marks, so they take the
 * place of the whole span of those frames).
 * A frame marked "entry" began a new C-level evaluation: the answer's
 * frames, innermost first, fall into groups each ending with its entry
 * frame, one group per evaluator frame of the native stack, in the same
 * order.  So each group takes the place of its own evaluator frame and
 * the native frames between them (a C extension or builtin calling back
 * into the interpreter) stay where they ran.
 *
 * The two lists are matched from the innermost end, where both begin,
 * unless both are whole (the walk reached the outermost frame, the
 * answer ends with an entry frame) and disagree: then an evaluator
 * caught in its prologue or epilogue, with its frame not linked yet or
 * any more, is the innermost one, and they are matched from the
 * outermost end.  An evaluator without a group stays native; a group
 * without an evaluator goes with the next group placed, or outermost.  An answer without entry marks
 * replaces the span from the innermost to the outermost evaluator frame;
 * with no evaluator frame known, the frames go above the innermost
 * native frame.
 */
int is_evaluator(const char *lang, const struct uframe *f)
{
	const char *n = f->res ? f->res->name : NULL;

	/* A JVM's Java frames run in its code cache: anonymous memory. */
	if (!strcmp(lang, "java"))
		return !strcmp(f->obj, "[anon]");
	if (!n)
		return 0;
	if (!strncmp(lang, "python", 6))
		return !strcmp(n, "_PyEval_EvalFrameDefault") ||
		       !strcmp(n, "_PyEval_EvalFrameDefault.cold");
	return 0;
}

static struct pframe *slot(struct pframe **v, size_t *cap, size_t n)
{
	if (n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*v = xrealloc(*v, *cap * sizeof(**v));
	}
	memset(&(*v)[n], 0, sizeof(**v));
	return &(*v)[n];
}

/* The answer's frames [from, to). */
static size_t add_interp(const struct interp *in, uint32_t from, uint32_t to,
			 struct pframe **v, size_t *cap, size_t n)
{
	uint32_t j;

	for (j = from; j < to; j++) {
		struct pframe *p = slot(v, cap, n++);

		p->kind = PK_INTERP;
		p->name = in->f[j].func;
		p->file = in->f[j].file;
		p->line = in->f[j].line;
	}
	return n;
}

/* How an answer's groups meet the native stack's evaluator frames. */
struct imatch {
	uint32_t ngroups, nevals;
	int64_t shift;		/* group = evaluator number + shift */
	int marked;		/* the answer has entry marks */
	int64_t first, last;	/* the evaluator frames' span */
};

static void imatch_init(struct imatch *m, const struct interp *in,
			const struct user *u)
{
	uint32_t j;

	memset(m, 0, sizeof(*m));
	m->last = -1;
	for (j = 0; j < in->nr; j++)
		if (in->f[j].entry) {
			m->marked = 1;
			m->ngroups++;
		}
	if (!in->f[in->nr - 1].entry)
		m->ngroups++;	/* cut short: the last group has no entry */
	for (j = 0; j < u->nr; j++)
		if (is_evaluator(in->lang, &u->f[j])) {
			if (m->last < 0)
				m->first = j;
			m->last = j;
			m->nevals++;
		}
	if (m->marked && m->nevals != m->ngroups &&
	    u->end == end_name(USTACK_END_OUTERMOST) && in->f[in->nr - 1].entry)
		m->shift = (int64_t)m->ngroups - m->nevals;
}

/* The end (exclusive) of the answer's group @g. */
static uint32_t group_end(const struct interp *in, int64_t g)
{
	uint32_t j;

	for (j = 0; j < in->nr; j++)
		if (in->f[j].entry && g-- == 0)
			return j + 1;
	return in->nr;
}

size_t sample_frames(const struct sample *s, struct pframe **v, size_t *cap)
{
	const struct user *u = s->u;
	const struct interp *in = u && u->interp && u->interp->nr ?
				  u->interp : NULL;
	struct imatch m;
	uint32_t next = 0;	/* the answer's first frame not placed */
	int64_t e = 0;		/* evaluator frames passed */
	size_t n = 0;
	uint32_t j;

	for (j = 0; j < s->nk; j++) {
		struct pframe *p = slot(v, cap, n++);

		p->kind = PK_KERNEL;
		p->k = &s->k[j];
		p->name = s->k[j].sym ? kernel_frame_name(&s->k[j]) :
					internz("[unknown]");
	}
	if (in)
		imatch_init(&m, in, u);
	for (j = 0; u && j < u->nr; j++) {
		const struct uframe *f = &u->f[j];
		const struct symres *r = f->res;
		struct pframe *p;

		if (in && !m.nevals && j == 0) {
			n = add_interp(in, 0, in->nr, v, cap, n);
			next = in->nr;
		} else if (in && !m.marked) {
			if (j == m.first) {
				n = add_interp(in, 0, in->nr, v, cap, n);
				next = in->nr;
			}
			if (j >= m.first && j <= m.last)
				continue;
		} else if (in && is_evaluator(in->lang, f)) {
			int64_t g = e++ + m.shift;

			if (g >= 0 && g < m.ngroups) {
				uint32_t end = group_end(in, g);

				n = add_interp(in, next, end, v, cap, n);
				next = end;
				continue;
			}
		}
		p = slot(v, cap, n++);
		p->u = f;
		p->kind = PK_USER;
		p->guess = frame_guessed(f);
		p->name = r && r->name ? internz(r->name) : user_frame_name(f);
		if (r && r->file) {
			p->file = internz(r->file);
			p->line = r->line;
		}
		if (p->guess)
			p->name = guess_mark(p->name);
	}
	if (in && next < in->nr)
		n = add_interp(in, next, in->nr, v, cap, n);
	if (!u || incomplete_mark(u)) {
		struct pframe *p = slot(v, cap, n++);

		p->kind = PK_MARK;
		p->name = u ? incomplete_mark(u) : internz("[no user stack]");
	}
	return n;
}
