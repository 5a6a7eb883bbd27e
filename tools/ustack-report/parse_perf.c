// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: perf script's text of perf's own samples with their
 * callchains (perf record -g, or --call-graph fp,defer, whose deferred
 * user part perf joins to its sample itself), as perf script prints them
 * by default:
 *
 *   comm  [pid/]tid [cpu] secs.usecs:  [period] event:
 *   \t<addr> <symbol>[+0x<off>] (<object>[+0x<dsoff>])   innermost first
 *   <blank line>
 *
 * pid/, [cpu] and the period may be missing (-F); so may the symbol's
 * offset and the object.  Frames at kernel addresses are the sample's
 * kernel stack, the others its user stack, named by perf (symbolize.c
 * leaves them): a sample and its user record per block, joined by a
 * cookie of their own.  perf does not say where a walk ended: one whose
 * outermost frame starts a program or a thread (_start, clone3, clone)
 * ends outermost, any other "unknown"; nor how it found a frame
 * (method "unknown").  Lines perf prints for other records
 * (PERF_RECORD_*, --show-*-events) are skipped, and comments ("#",
 * --header).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "uapi/ustack.h"

#define PERF_MAX_FRAMES 4096		/* per sample; more are dropped */
#define PERF_KERNEL_START 0xffff800000000000ull
#define PERF_SNIFF_LINES 1000		/* lines read to tell the format */
#define PERF_SNIFF_LEN 4096		/* longer lines are not looked at */

/* One frame line, cut in place. */
struct perf_line {
	uint64_t addr;
	char *sym;		/* NULL: perf had none ("[unknown]") */
	uint64_t off;		/* within sym */
	char *obj;		/* "" when perf printed none */
	uint64_t dsoff;		/* within obj, when perf printed it */
	int has_dsoff;
	int inlined;		/* in the object of the next frame out */
};

static int all_hex(const char *s)
{
	return *s && strspn(s, "0123456789abcdefABCDEF") == strlen(s);
}

/* "name+0x<hex>" at the end of @s: cut there, the number in @off. */
static int cut_offset(char *s, uint64_t *off)
{
	char *plus = NULL, *q;

	for (q = s; (q = strstr(q, "+0x")); q++)
		plus = q;
	if (!plus || !all_hex(plus + 3))
		return 0;
	*off = strtoull(plus + 3, NULL, 16);
	*plus = '\0';
	return 1;
}

/*
 * The object: the last parenthesized word, after a blank (symbols may
 * hold parentheses, C++'s "f(int) const", and blanks); none when the line
 * does not end so.
 */
static void split_object(char *p, struct perf_line *f)
{
	size_t n = strlen(p);
	char *o, *e;

	f->obj = p + n;
	if (n < 3 || p[n - 1] != ')')
		return;
	for (o = p + n - 1; o > p && o[-1] != '('; o--)
		;
	if (o == p || (o - 1 > p && o[-2] != ' ' && o[-2] != '\t'))
		return;
	p[n - 1] = '\0';
	o[-1] = '\0';
	f->obj = o;
	f->has_dsoff = cut_offset(o, &f->dsoff);
	if (!strcmp(o, "inlined")) {	/* --inline: a function inlined here */
		f->inlined = 1;
		f->obj = p + n - 1;
	}
	e = o - 1;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
}

/* An indented frame line: 1 and @f filled, or 0. */
static int perf_frame(char *line, struct perf_line *f)
{
	char *p = line, *a = next_word(&p);

	memset(f, 0, sizeof(*f));
	if (!a || !all_hex(a) || strlen(a) > 16)
		return 0;
	f->addr = strtoull(a, NULL, 16);
	p = skip_ws(p);
	split_object(p, f);
	f->sym = *p && strcmp(p, "[unknown]") ? p : NULL;
	if (f->sym)
		cut_offset(f->sym, &f->off);
	return 1;
}

/* "secs.frac:", then a blank or the end */
static int is_time(const char *w)
{
	size_t n = strspn(w, "0123456789");

	if (!n || w[n] != '.')
		return 0;
	w += n + 1;
	n = strspn(w, "0123456789");
	return n && w[n] == ':' && (!w[n + 1] || w[n + 1] == ' ' ||
				    w[n + 1] == '\t');
}

/* Where the header's "secs.usecs:" word starts (not the first), or NULL. */
static char *time_word(char *line)
{
	char *p = line;

	while ((p = strpbrk(p, " \t"))) {
		p = skip_ws(p);
		if (is_time(p))
			return p;
	}
	return NULL;
}

/* Does it look like perf script's samples: a header, then a frame? */
int perf_script_is(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	char line[PERF_SNIFF_LEN];
	struct perf_line f;
	int header = 0;

	for (int lines = 0; p < end && lines < PERF_SNIFF_LINES; lines++) {
		const char *nl = memchr(p, '\n', end - p), *le = nl ? nl : end;
		const char *start = p;
		size_t n = le - start;

		p = le + 1;
		if (n >= sizeof(line)) {
			header = 0;
			continue;
		}
		memcpy(line, start, n);
		line[n] = '\0';
		if (*line == ' ' || *line == '\t') {
			if (header && perf_frame(line, &f))
				return 1;
		} else {
			header = *line && *line != '#' && time_word(line) &&
				 !strstr(line, "PERF_RECORD_");
		}
	}
	return 0;
}

/* "[digits]" */
static int is_cpu(const char *w, size_t n)
{
	return n > 2 && w[0] == '[' && w[n - 1] == ']' &&
	       strspn(w + 1, "0123456789") == n - 2;
}

/* The word that ends just before @e (blanks between), its length in @n. */
static char *word_before(char *line, char *e, size_t *n)
{
	char *b;

	while (e > line && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	for (b = e; b > line && b[-1] != ' ' && b[-1] != '\t'; b--)
		;
	*n = e - b;
	return b;
}

/*
 * Before the time: comm (may hold blanks), [pid/]tid, [cpu], read from
 * the time backwards, since a comm may look like anything.
 */
static void header_who(char *line, char *t, struct sample *s)
{
	size_t n;
	char *w = word_before(line, t, &n), *slash;

	if (is_cpu(w, n)) {
		s->cpu = strtoul(w + 1, NULL, 10);
		t = w;
		w = word_before(line, t, &n);
	}
	if (n && isdigit((unsigned char)*w) &&
	    strspn(w, "0123456789/") >= n) {
		slash = memchr(w, '/', n);
		s->tid = strtoul(slash ? slash + 1 : w, NULL, 10);
		s->pid = slash ? strtoul(w, NULL, 10) : s->tid;
		t = w;
	}
	while (t > line && (t[-1] == ' ' || t[-1] == '\t'))
		t--;
	if (t > line)
		s->comm = intern(line, t - line);
}

/*
 * A header line: the sample's fields into @s; returns what follows the
 * event (the frame of a sample without a callchain), or NULL.  0 for a
 * line of another record.
 */
static int perf_header(char *line, struct sample *s, char **rest)
{
	char *t = time_word(line), *p, *w;

	memset(s, 0, sizeof(*s));
	*rest = NULL;
	s->event = internz("unknown");
	s->comm = internz("[unknown]");
	if (!t)
		return !strstr(line, "PERF_RECORD_");
	s->time = parse_secs(t);
	header_who(line, t, s);
	p = t + strcspn(t, " \t");
	while ((w = next_word(&p))) {
		size_t n = strlen(w);

		if (!strncmp(w, "PERF_RECORD_", 12))
			return 0;
		if (n > 1 && w[n - 1] == ':') {
			w[n - 1] = '\0';
			s->event = internz(w);
			p = skip_ws(p);
			*rest = *p ? p : NULL;
			break;
		}
	}
	return 1;
}

/* The block's frames, until perf_flush() hands them to its records. */
static struct kframe *pk;
static struct uframe *pu;
static size_t npk, npu, cappk, cappu;

static const char *const perf_firsts[] = {
	"_start", "clone3", "__clone3", "clone", "__clone",
};

static const char *user_end(const struct uframe *outer)
{
	const char *name = outer->res->name;

	for (size_t i = 0; name && i < sizeof(perf_firsts) / sizeof(*perf_firsts); i++)
		if (!strcmp(name, perf_firsts[i]))
			return end_name(USTACK_END_OUTERMOST);
	return internz("unknown");
}

static void perf_flush(struct recs *r, struct sample *s, uint64_t cookie)
{
	struct user *u;

	s->cookie = cookie;
	s->nk = npk;
	s->k = xalloc(npk * sizeof(*pk));
	if (npk)
		memcpy(s->k, pk, npk * sizeof(*pk));
	for (size_t i = npu; i--; )
		if (!pu[i].obj)
			pu[i].obj = i + 1 < npu ? pu[i + 1].obj : internz("[unknown]");
	if (npu) {
		u = recs_new_user(r);
		u->cookie = cookie;
		u->pid = s->pid;
		u->tid = s->tid;
		u->end = user_end(&pu[npu - 1]);
		u->nr = npu;
		u->f = xalloc(npu * sizeof(*pu));
		memcpy(u->f, pu, npu * sizeof(*pu));
	}
	npk = npu = 0;
}

static void add_kernel(const struct perf_line *pf)
{
	char b[512];

	if (npk >= PERF_MAX_FRAMES)
		return;
	if (npk == cappk) {
		cappk = cappk ? cappk * 2 : 64;
		pk = xrealloc(pk, cappk * sizeof(*pk));
	}
	pk[npk].addr = pf->addr;
	pk[npk].sym = NULL;
	/* a module's symbol says its module, as the kernel's own text does */
	if (pf->sym && pf->obj[0] == '[' && strcmp(pf->obj, "[kernel.kallsyms]")) {
		snprintf(b, sizeof(b), "%s+0x%" PRIx64 " %s", pf->sym, pf->off, pf->obj);
		pk[npk].sym = internz(b);
	} else if (pf->sym) {
		snprintf(b, sizeof(b), "%s+0x%" PRIx64, pf->sym, pf->off);
		pk[npk].sym = internz(b);
	}
	npk++;
}

static void add_user(const struct perf_line *pf)
{
	struct symres *res;
	struct uframe *f;

	if (npu >= PERF_MAX_FRAMES)
		return;
	if (npu == cappu) {
		cappu = cappu ? cappu * 2 : 64;
		pu = xrealloc(pu, cappu * sizeof(*pu));
	}
	res = xalloc(sizeof(*res));
	res->name = pf->sym ? internz(pf->sym) : NULL;
	res->symoff = pf->off;
	f = &pu[npu++];
	memset(f, 0, sizeof(*f));
	f->ip = pf->addr;
	f->off = pf->has_dsoff ? pf->dsoff : pf->addr;
	f->obj = pf->inlined ? NULL :
		 internz(*pf->obj ? pf->obj : "[unknown]");
	f->method = internz("unknown");
	f->res = res;
}

static void add_frame(char *line)
{
	struct perf_line pf;

	if (!perf_frame(line, &pf))
		return;		/* a source line (-F +srcline), or garbage */
	if (pf.addr >= PERF_KERNEL_START)
		add_kernel(&pf);
	else
		add_user(&pf);
}

/**
 * perf_script_parse() - perf script's samples into @r
 * @r: the records
 * @buf: the text, cut into lines in place
 * @len: its length
 */
void perf_script_parse(struct recs *r, char *buf, size_t len)
{
	char *p = buf, *end = buf + len, *rest;
	struct sample *s = NULL, h;
	uint64_t cookie = 0;

	while (p < end) {
		char *nl = memchr(p, '\n', end - p), *le = nl ? nl : end;

		*le = '\0';
		if (le > p && le[-1] == '\r')
			le[-1] = '\0';
		if (*p == ' ' || *p == '\t') {
			if (s)
				add_frame(p);
		} else if (*p && *p != '#') {	/* perf script --header's */
			if (s)
				perf_flush(r, s, ++cookie);
			s = NULL;
			if (!perf_header(p, &h, &rest)) {
				r->skipped++;	/* another record's line */
			} else {
				s = recs_new_sample(r);
				h.seq = s->seq;
				*s = h;
				if (rest)
					add_frame(rest);
			}
		}
		p = le + 1;
	}
	if (s)
		perf_flush(r, s, ++cookie);
}
