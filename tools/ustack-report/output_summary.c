// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: the summary.  Samples by event, how many got a complete
 * user stack (joined, walk ended "outermost"), end reasons, user frames by
 * method, objects with build-ids and symbolization rate, and the top
 * functions: by self samples (innermost frame of the whole stack) and by
 * user leaf (innermost user frame, the code that ran or made the call);
 * frames found by stack scanning (method guess) and the samples with one.
 * With interp records: the samples with an interpreter's own frames, and
 * those of the same processes whose answer never came.  Last, each
 * process's samples and the share of them with a complete user stack.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "uapi/ustack.h"

#define TOP 15

struct count {
	const char *name;
	uint64_t n;
};

struct counts {
	struct count *v;
	size_t n, cap;
};

static void add(struct counts *c, const char *name, uint64_t k)
{
	size_t i;

	/* names are interned; tables stay small except functions */
	for (i = c->n; i-- > 0;)
		if (c->v[i].name == name) {
			c->v[i].n += k;
			return;
		}
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 16;
		c->v = xrealloc(c->v, c->cap * sizeof(*c->v));
	}
	c->v[c->n].name = name;
	c->v[c->n++].n = k;
}

static int cmp_ptr(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;

	return (x > y) - (x < y);
}

/* Count interned names in v[0..n) (sorted in place) into c. */
static void count_names(struct counts *c, const char **v, size_t n)
{
	size_t i = 0, j;

	qsort(v, n, sizeof(*v), cmp_ptr);
	while (i < n) {
		for (j = i; j < n && v[j] == v[i]; j++)
			;
		if (c->n == c->cap) {
			c->cap = c->cap ? c->cap * 2 : 16;
			c->v = xrealloc(c->v, c->cap * sizeof(*c->v));
		}
		c->v[c->n].name = v[i];
		c->v[c->n++].n = j - i;
		i = j;
	}
}

static int cmp_count(const void *a, const void *b)
{
	const struct count *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->name, y->name);
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * a / b : 0.0;
}

/*
 * Names of c that are not in include/ustack_names.h (a newer module, or a
 * stream that is not the module's), as " kind=name" words.
 */
static void print_unknown(FILE *f, const char *kind, enum name_kind k,
			  const struct counts *c, int *any)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		if (name_known(k, c->v[i].name))
			continue;
		if (!*any)
			fprintf(f, "names unknown to ustack-report:");
		*any = 1;
		fprintf(f, " %s=%s", kind, c->v[i].name);
	}
}

/* @raw: names as read (events, end reasons, methods), escaped here;
 * frame names come escaped from stacks.c. */
static void print_counts(FILE *f, const char *title, struct counts *c,
			 uint64_t total, size_t max, int raw)
{
	size_t i;

	if (c->n)
		qsort(c->v, c->n, sizeof(*c->v), cmp_count);
	fprintf(f, "%s:\n", title);
	for (i = 0; i < c->n && i < max; i++)
		fprintf(f, "  %8" PRIu64 " %6.2f%%  %s\n", c->v[i].n,
			pct(c->v[i].n, total),
			raw ? esc_text(c->v[i].name) : c->v[i].name);
}

struct proc {
	uint32_t pid;
	const char *comm;	/* its main thread's, else the first sampled */
	uint64_t n, complete;
};

static int cmp_proc(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/*
 * Every user-space process sampled (kernel threads and the idle task
 * left out): its samples, and the share of them whose user stack reached
 * the outermost frame.  A sample whose walk found the process exec'd
 * (inside execve(), the walk deferred to its return) had no stack left
 * to walk: such samples are counted apart, as kernel threads' are.
 */
static void print_processes(FILE *f, const struct recs *r)
{
	const char *outermost = end_name(USTACK_END_OUTERMOST);
	const char *kth = end_name(USTACK_END_KTHREAD);
	const char *exec = end_name(USTACK_END_EXEC);
	struct proc *v = NULL;
	size_t i, k = 0, n = 0, cap = 0, execs = 0;

	for (i = 0; i < r->ns; i++) {
		const struct sample *s = &r->s[i];

		if (!s->pid || (s->u && s->u->end == kth))
			continue;
		if (s->u && s->u->end == exec) {
			execs++;
			continue;
		}
		/* a process's samples mostly come in runs: the last one first */
		if (k >= n || v[k].pid != s->pid)
			for (k = 0; k < n && v[k].pid != s->pid; k++)
				;
		if (k == n) {
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				v = xrealloc(v, cap * sizeof(*v));
			}
			v[n++] = (struct proc){ .pid = s->pid, .comm = s->comm };
		}
		if (s->tid == s->pid)
			v[k].comm = s->comm;
		v[k].n++;
		v[k].complete += s->u && s->u->end == outermost;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_proc);
	fprintf(f, "processes (samples, complete user stacks):\n");
	for (i = 0; i < n; i++)
		fprintf(f, "  %8" PRIu64 " %6.2f%%  %s [%u]\n", v[i].n,
			pct(v[i].complete, v[i].n),
			v[i].comm ? esc_text(v[i].comm) : "?", v[i].pid);
	fprintf(f, "exec'd before the walk (not above): %zu samples\n", execs);
	free(v);
}

/* What the summary counts, in one pass over the records. */
struct summary {
	struct counts events, ends, methods, self, uleaf, uends;
	uint64_t complete, joined, kthread, uframes, resolved;
	uint64_t answered, unanswered, guessed, guessed_samples;
	const char **vself, **vleaf;	/* one name per sample */
	size_t nself, nleaf;
};

/* Events, end reasons, self and user-leaf names: sample by sample. */
static void count_samples(struct summary *m, const struct recs *r)
{
	const char *outermost = end_name(USTACK_END_OUTERMOST);
	const char *kth = end_name(USTACK_END_KTHREAD);

	for (size_t i = 0; i < r->ns; i++) {
		const struct sample *s = &r->s[i];
		const struct user *u = s->u;

		add(&m->events, s->event, 1);
		if (!u) {
			add(&m->ends, internz("[no user stack]"), 1);
			m->vself[m->nself++] = s->nk ? kernel_frame_name(&s->k[0]) :
				internz("[no user stack]");
			continue;
		}
		m->joined++;
		add(&m->ends, u->end, 1);
		m->complete += u->end == outermost;
		m->kthread += u->end == kth;
		if (s->nk)
			m->vself[m->nself++] = kernel_frame_name(&s->k[0]);
		else if (u->nr)
			m->vself[m->nself++] = user_frame_name(&u->f[0]);
		if (u->nr)
			m->vleaf[m->nleaf++] = user_frame_name(&u->f[0]);
		for (uint32_t j = 0; j < u->nr; j++)
			if (frame_guessed(&u->f[j])) {
				m->guessed_samples++;
				break;
			}
	}
}

/* End reasons of the user records, their frames by method. */
static void count_user_frames(struct summary *m, const struct recs *r)
{
	for (size_t i = 0; i < r->nu; i++) {
		add(&m->uends, r->u[i].end, 1);
		for (uint32_t j = 0; j < r->u[i].nr; j++) {
			const struct uframe *fr = &r->u[i].f[j];

			add(&m->methods, fr->method, 1);
			m->uframes++;
			m->guessed += frame_guessed(fr);
			m->resolved += fr->res && fr->res->name;
		}
	}
}

/*
 * Interpreter answers: of the samples of processes that answered at
 * least once, those in the interpreter's own code (an evaluator frame
 * of its language in the native stack) whose answer never came show
 * native frames only.  Elsewhere (start-up, compiling, exit) it has
 * no frames of its own to answer with.
 */
static void count_answers(struct summary *m, const struct recs *r)
{
	for (size_t i = 0; i < r->ns; i++) {
		const struct user *u = r->s[i].u;
		size_t k;
		uint32_t j;

		if (u && u->interp && u->interp->nr) {
			m->answered++;
			continue;
		}
		for (k = 0; k < r->nin; k++)
			if (r->in[k].pid == r->s[i].pid)
				break;
		for (j = 0; k < r->nin && u && j < u->nr; j++)
			if (is_evaluator(r->in[k].lang, &u->f[j])) {
				m->unanswered++;
				break;
			}
	}
}

/* The totals: samples, joins, interpreter answers, losses, the format. */
static void print_totals(FILE *f, const struct summary *m,
			 const struct recs *r, const struct join_stats *js)
{
	fprintf(f, "samples: %zu\n", r->ns);
	fprintf(f, "user records: %zu (%" PRIu64 " without a sample)\n", r->nu,
		js->orphan_users);
	fprintf(f, "joined: %" PRIu64 " (%.2f%%)\n", m->joined,
		pct(m->joined, r->ns));
	fprintf(f, "complete user stacks: %" PRIu64 " (%.2f%%)\n", m->complete,
		pct(m->complete, r->ns));
	fprintf(f, "no user stack: %" PRIu64 " (%.2f%%)\n", js->missing,
		pct(js->missing, r->ns));
	fprintf(f, "kernel threads: %" PRIu64 "\n", m->kthread);
	if (r->nin)
		fprintf(f, "interpreter frames: %" PRIu64 " samples, %" PRIu64
			" unanswered in its code (native frames only)\n",
			m->answered, m->unanswered);
	fprintf(f, "lost: %" PRIu64 " samples, %" PRIu64 " user records "
		"(%" PRIu64 " lost records)\n", r->lost_samples, r->lost_users,
		r->lost_records);
	if (r->skipped)
		fprintf(f, "skipped records: %" PRIu64 "\n", r->skipped);
	fprintf(f, "format: %s\n", r->binary ? "binary" :
		r->trace ? "trace events" : r->perf ? "perf script" : "text");
}

/* The objects: frames, symbolization rate, build-id, found or not. */
static void print_objects(FILE *f)
{
	size_t nobj = symbolize_nobj();

	fprintf(f, "objects:\n");
	for (size_t i = 0; i < nobj; i++) {
		const struct objstat *ob = symbolize_obj(i);

		fprintf(f, "  %8" PRIu64 " frames %6.2f%% symbolized  %s%s%s%s\n",
			ob->frames, pct(ob->resolved, ob->frames),
			esc_text(ob->name),
			ob->build_id ? " build-id=" : "",
			ob->build_id ? ob->build_id : "",
			ob->opened || ob->name[0] != '/' ? "" : " (not found)");
	}
}

/* The tables: unknown names, events, end reasons, methods, top functions. */
static void print_tables(FILE *f, struct summary *m, const struct recs *r)
{
	int unknown = 0;

	/* perf's events are its own; it says neither ends nor methods */
	if (!r->perf) {
		print_unknown(f, "event", NAME_EVENT, &m->events, &unknown);
		print_unknown(f, "end", NAME_END, &m->uends, &unknown);
		print_unknown(f, "method", NAME_METHOD, &m->methods, &unknown);
	}
	if (unknown)
		fprintf(f, "\n");
	print_counts(f, "events", &m->events, r->ns, (size_t)-1, 1);
	print_counts(f, "end reasons", &m->ends, r->ns, (size_t)-1, 1);
	fprintf(f, "user frames: %" PRIu64 ", symbolized %" PRIu64
		" (%.2f%%)\n", m->uframes, m->resolved,
		pct(m->resolved, m->uframes));
	print_counts(f, "frames by method", &m->methods, m->uframes,
		     (size_t)-1, 1);
	fprintf(f, "guessed frames (stack scan): %" PRIu64 " (%.2f%%), in %"
		PRIu64 " samples (%.2f%%)\n", m->guessed,
		pct(m->guessed, m->uframes), m->guessed_samples,
		pct(m->guessed_samples, r->ns));
	print_objects(f);
	print_counts(f, "top functions (self)", &m->self, r->ns, TOP, 0);
	print_counts(f, "top user functions (innermost user frame)", &m->uleaf,
		     r->ns, TOP, 0);
	print_processes(f, r);
}

void output_summary(FILE *f, const struct recs *r,
		    const struct join_stats *js, const struct out_opts *o)
{
	struct summary m = { 0 };

	m.vself = xrealloc(NULL, (r->ns + 1) * sizeof(char *));
	m.vleaf = xrealloc(NULL, (r->ns + 1) * sizeof(char *));
	count_samples(&m, r);
	count_user_frames(&m, r);
	count_answers(&m, r);
	count_names(&m.self, m.vself, m.nself);
	count_names(&m.uleaf, m.vleaf, m.nleaf);
	free(m.vself);
	free(m.vleaf);
	print_totals(f, &m, r, js);
	print_tables(f, &m, r);
	free(m.events.v);
	free(m.ends.v);
	free(m.methods.v);
	free(m.uends.v);
	free(m.self.v);
	free(m.uleaf.v);
}
