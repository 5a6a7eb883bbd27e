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

#include "ur.h"
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
 * The native frames in which an interpreter runs its own, by language.
 * Until a record says which interpreted frame began which evaluation, all
 * of them go: the interpreted frames take the place of the span from the
 * innermost to the outermost evaluator frame (native frames nested in
 * that span, a C extension calling back, are dropped with it).  With no
 * evaluator frame known, they go above the innermost native frame.
 */
static int is_evaluator(const char *lang, const struct uframe *f)
{
	const char *n = f->res ? f->res->name : NULL;

	if (!n)
		return 0;
	if (!strncmp(lang, "python", 6))
		return !strcmp(n, "_PyEval_EvalFrameDefault");
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

static size_t add_interp(const struct interp *in, struct pframe **v,
			 size_t *cap, size_t n)
{
	uint32_t j;

	for (j = 0; j < in->nr; j++) {
		struct pframe *p = slot(v, cap, n++);

		p->kind = PK_INTERP;
		p->name = in->f[j].func;
		p->file = in->f[j].file;
		p->line = in->f[j].line;
	}
	return n;
}

size_t sample_frames(const struct sample *s, struct pframe **v, size_t *cap)
{
	const struct user *u = s->u;
	const struct interp *in = u && u->interp && u->interp->nr ?
				  u->interp : NULL;
	int64_t first = 0, last = -1;	/* the span interp frames replace */
	size_t n = 0;
	uint32_t j;

	for (j = 0; j < s->nk; j++) {
		struct pframe *p = slot(v, cap, n++);

		p->kind = PK_KERNEL;
		p->k = &s->k[j];
		p->name = s->k[j].sym ? kernel_frame_name(&s->k[j]) :
					internz("[unknown]");
	}
	for (j = 0; in && j < u->nr; j++)
		if (is_evaluator(in->lang, &u->f[j])) {
			if (last < 0)
				first = j;
			last = j;
		}
	for (j = 0; u && j < u->nr; j++) {
		const struct uframe *f = &u->f[j];
		const struct symres *r = f->res;
		struct pframe *p;

		if (in && j == first)
			n = add_interp(in, v, cap, n);
		if (in && j >= first && j <= last)
			continue;
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
	if (in && !u->nr)
		n = add_interp(in, v, cap, n);
	if (!u || incomplete_mark(u)) {
		struct pframe *p = slot(v, cap, n++);

		p->kind = PK_MARK;
		p->name = u ? incomplete_mark(u) : internz("[no user stack]");
	}
	return n;
}
