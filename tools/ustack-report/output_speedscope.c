// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: speedscope's JSON file format
 * (https://www.speedscope.app/file-format-schema.json): one "sampled"
 * profile per event, frames shared by all of them, each distinct stack
 * once with its count as weight.  Stacks go from the root: the comm (as
 * the perf-script importer and our folded output have it), user frames
 * outermost first, kernel frames; marks and "? " guesses as in every
 * output.  A frame is (name, file, line), file:line with -l.  Strings are
 * JSON-escaped; bytes that are not UTF-8 (a comm is any 16 bytes) become
 * U+FFFD, as the file must be UTF-8.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static void json_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), l;

	fputc('"', f);
	while (n) {
		l = utf8_len(s, n);
		if (*s == '"' || *s == '\\') {
			fprintf(f, "\\%c", *s);
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(f, "\\u%04x", *s);
		} else if (l) {
			fwrite(s, 1, l, f);
		} else {
			fputs("\\ufffd", f);
			l = 1;
		}
		s += l;
		n -= l;
	}
	fputc('"', f);
}

struct sframe_key {
	const char *name, *file;
	int64_t line;
};

struct prof {
	const char *event;
	uint64_t total;
	uint32_t *stacks;	/* ids into the stack table, first sight order */
	size_t n, cap;
};

/* The file's tables as they grow: frames, distinct stacks, profiles. */
struct speedscope {
	struct ktab frames, stacks, events;
	struct sframe_key *fk;	/* the frames, by id */
	size_t nfk, capfk;
	struct prof *pr;	/* the profiles, by event id */
	size_t npr;
	uint32_t **sv, *nsv;	/* the stacks' frame ids (root first), lengths */
	uint64_t *weight;	/* the stacks' sample counts */
	size_t nst, capst;
	struct pframe *fr;	/* one sample's frames */
	size_t capfr;
	uint32_t *ids;		/* one sample's key: event, frame ids */
	size_t capids;
};

/* The id of frame @k, added to the shared frames when new. */
static uint32_t frame_id(struct speedscope *ss, const struct sframe_key *k)
{
	int added;
	uint32_t id = ktab_id(&ss->frames, k, sizeof(*k), &added);

	if (added) {
		if (ss->nfk == ss->capfk) {
			ss->capfk = ss->capfk ? ss->capfk * 2 : 256;
			ss->fk = xrealloc(ss->fk, ss->capfk * sizeof(*ss->fk));
		}
		ss->fk[ss->nfk++] = *k;
	}
	return id;
}

/* The id of the stack in ss->ids (@n frames), added to profile @e if new. */
static uint32_t stack_id(struct speedscope *ss, uint32_t e, size_t n)
{
	struct prof *pr = &ss->pr[e];
	int added;
	uint32_t id = ktab_id(&ss->stacks, ss->ids, (n + 2) * sizeof(*ss->ids),
			      &added);

	if (!added)
		return id;
	if (ss->nst == ss->capst) {
		ss->capst = ss->capst ? ss->capst * 2 : 256;
		ss->sv = xrealloc(ss->sv, ss->capst * sizeof(*ss->sv));
		ss->nsv = xrealloc(ss->nsv, ss->capst * sizeof(*ss->nsv));
		ss->weight = xrealloc(ss->weight, ss->capst * sizeof(*ss->weight));
	}
	ss->sv[ss->nst] = xalloc((n + 1) * sizeof(**ss->sv));
	memcpy(ss->sv[ss->nst], ss->ids + 1, (n + 1) * sizeof(*ss->ids));
	ss->nsv[ss->nst] = n + 1;
	ss->weight[ss->nst++] = 0;
	if (pr->n == pr->cap) {
		pr->cap = pr->cap ? pr->cap * 2 : 64;
		pr->stacks = xrealloc(pr->stacks, pr->cap * sizeof(*pr->stacks));
	}
	pr->stacks[pr->n++] = id;
	return id;
}

/* One sample: its event's profile, its frames from the root, its stack. */
static void add_sample(struct speedscope *ss, const struct sample *s)
{
	int added;
	uint32_t e = ktab_id(&ss->events, &s->event, sizeof(s->event), &added);
	uint32_t id;
	size_t n;

	if (added) {
		ss->pr = xrealloc(ss->pr, (ss->npr + 1) * sizeof(*ss->pr));
		memset(&ss->pr[ss->npr], 0, sizeof(*ss->pr));
		ss->pr[ss->npr++].event = s->event;
	}
	n = sample_frames(s, &ss->fr, &ss->capfr);
	/* key: the event, then frame ids from the root */
	if (n + 2 > ss->capids) {
		ss->capids = n + 2;
		ss->ids = xrealloc(ss->ids, ss->capids * sizeof(*ss->ids));
	}
	ss->ids[0] = e;
	for (size_t j = 0; j <= n; j++) {
		struct sframe_key k = { 0 };

		if (j == 0) {
			k.name = s->comm;
		} else {
			const struct pframe *p = &ss->fr[n - j];

			k.name = p->name;
			k.file = p->file;
			k.line = p->line;
		}
		ss->ids[1 + j] = frame_id(ss, &k);
	}
	id = stack_id(ss, e, n);	/* may grow ss->weight */
	ss->weight[id]++;
	ss->pr[e].total++;
}

static void print_frames(FILE *f, const struct speedscope *ss)
{
	for (size_t i = 0; i < ss->nfk; i++) {
		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", f);
		json_str(f, ss->fk[i].name);
		if (ss->fk[i].file) {
			fputs(",\"file\":", f);
			json_str(f, ss->fk[i].file);
			if (ss->fk[i].line > 0)
				fprintf(f, ",\"line\":%" PRId64, ss->fk[i].line);
		}
		fputc('}', f);
	}
}

/* One "sampled" profile: its distinct stacks and their weights. */
static void print_profile(FILE *f, const struct speedscope *ss,
			  const struct prof *pr)
{
	json_str(f, pr->event);
	fprintf(f, ",\"unit\":\"none\",\"startValue\":0,\"endValue\":%"
		PRIu64 ",\n\"samples\":[", pr->total);
	for (size_t j = 0; j < pr->n; j++) {
		uint32_t *st = ss->sv[pr->stacks[j]], k;

		fputs(j ? ",[" : "[", f);
		for (k = 0; k < ss->nsv[pr->stacks[j]]; k++)
			fprintf(f, "%s%" PRIu32, k ? "," : "", st[k]);
		fputc(']', f);
	}
	fputs("],\n\"weights\":[", f);
	for (size_t j = 0; j < pr->n; j++)
		fprintf(f, "%s%" PRIu64, j ? "," : "", ss->weight[pr->stacks[j]]);
	fputs("]}", f);
}

void output_speedscope(FILE *f, const struct recs *r, const struct out_opts *o)
{
	struct speedscope ss = { 0 };

	for (size_t i = 0; i < r->ns; i++)
		add_sample(&ss, &r->s[i]);
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
	      "\"exporter\":\"ustack-report\",\"name\":", f);
	json_str(f, o->title ? o->title : "ustack");
	fputs(",\"activeProfileIndex\":0,\n\"shared\":{\"frames\":[", f);
	print_frames(f, &ss);
	fputs("]},\n\"profiles\":[", f);
	for (size_t i = 0; i < ss.npr; i++) {
		fputs(i ? ",\n{\"type\":\"sampled\",\"name\":" :
			  "\n{\"type\":\"sampled\",\"name\":", f);
		print_profile(f, &ss, &ss.pr[i]);
		free(ss.pr[i].stacks);
	}
	fputs("]}\n", f);
	free(ss.pr);
	free(ss.fk);
	free(ss.sv);
	free(ss.nsv);
	free(ss.weight);
	free(ss.ids);
	free(ss.fr);
}
