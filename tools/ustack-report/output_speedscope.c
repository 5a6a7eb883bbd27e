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

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	return len;
}

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

void output_speedscope(FILE *f, const struct recs *r, const struct out_opts *o)
{
	struct ktab frames = { 0 }, stacks = { 0 }, events = { 0 };
	struct sframe_key *fk = NULL;
	struct prof *pr = NULL;
	uint32_t **sv = NULL, *ids = NULL, *nsv = NULL;
	uint64_t *weight = NULL;
	struct pframe *fr = NULL;
	size_t nfk = 0, capfk = 0, nst = 0, capst = 0, capfr = 0, capids = 0;
	size_t npr = 0, i, j, n;

	for (i = 0; i < r->ns; i++) {
		const struct sample *s = &r->s[i];
		int added;
		uint32_t e = ktab_id(&events, &s->event, sizeof(s->event), &added);
		uint32_t id;

		if (added) {
			pr = xrealloc(pr, (npr + 1) * sizeof(*pr));
			memset(&pr[npr], 0, sizeof(*pr));
			pr[npr++].event = s->event;
		}
		n = sample_frames(s, &fr, &capfr);
		/* key: the event, then frame ids from the root */
		if (n + 2 > capids) {
			capids = n + 2;
			ids = xrealloc(ids, capids * sizeof(*ids));
		}
		ids[0] = e;
		for (j = 0; j <= n; j++) {
			struct sframe_key k = { 0 };

			if (j == 0) {
				k.name = s->comm;
			} else {
				const struct pframe *p = &fr[n - j];

				k.name = p->name;
				k.file = p->file;
				k.line = p->line;
			}
			id = ktab_id(&frames, &k, sizeof(k), &added);
			if (added) {
				if (nfk == capfk) {
					capfk = capfk ? capfk * 2 : 256;
					fk = xrealloc(fk, capfk * sizeof(*fk));
				}
				fk[nfk++] = k;
			}
			ids[1 + j] = id;
		}
		id = ktab_id(&stacks, ids, (n + 2) * sizeof(*ids), &added);
		if (added) {
			if (nst == capst) {
				capst = capst ? capst * 2 : 256;
				sv = xrealloc(sv, capst * sizeof(*sv));
				nsv = xrealloc(nsv, capst * sizeof(*nsv));
				weight = xrealloc(weight, capst * sizeof(*weight));
			}
			sv[nst] = xalloc((n + 1) * sizeof(**sv));
			memcpy(sv[nst], ids + 1, (n + 1) * sizeof(*ids));
			nsv[nst] = n + 1;
			weight[nst++] = 0;
			if (pr[e].n == pr[e].cap) {
				pr[e].cap = pr[e].cap ? pr[e].cap * 2 : 64;
				pr[e].stacks = xrealloc(pr[e].stacks,
						pr[e].cap * sizeof(*pr[e].stacks));
			}
			pr[e].stacks[pr[e].n++] = id;
		}
		weight[id]++;
		pr[e].total++;
	}

	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
	      "\"exporter\":\"ustack-report\",\"name\":", f);
	json_str(f, o->title ? o->title : "ustack");
	fputs(",\"activeProfileIndex\":0,\n\"shared\":{\"frames\":[", f);
	for (i = 0; i < nfk; i++) {
		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", f);
		json_str(f, fk[i].name);
		if (fk[i].file) {
			fputs(",\"file\":", f);
			json_str(f, fk[i].file);
			if (fk[i].line > 0)
				fprintf(f, ",\"line\":%" PRId64, fk[i].line);
		}
		fputc('}', f);
	}
	fputs("]},\n\"profiles\":[", f);
	for (i = 0; i < npr; i++) {
		fputs(i ? ",\n{\"type\":\"sampled\",\"name\":" :
			  "\n{\"type\":\"sampled\",\"name\":", f);
		json_str(f, pr[i].event);
		fprintf(f, ",\"unit\":\"none\",\"startValue\":0,\"endValue\":%"
			PRIu64 ",\n\"samples\":[", pr[i].total);
		for (j = 0; j < pr[i].n; j++) {
			uint32_t *st = sv[pr[i].stacks[j]], k;

			fputs(j ? ",[" : "[", f);
			for (k = 0; k < nsv[pr[i].stacks[j]]; k++)
				fprintf(f, "%s%" PRIu32, k ? "," : "", st[k]);
			fputc(']', f);
		}
		fputs("],\n\"weights\":[", f);
		for (j = 0; j < pr[i].n; j++)
			fprintf(f, "%s%" PRIu64, j ? "," : "",
				weight[pr[i].stacks[j]]);
		fputs("]}", f);
		free(pr[i].stacks);
	}
	fputs("]}\n", f);
	free(pr);
	free(fk);
	free(sv);
	free(nsv);
	free(weight);
	free(ids);
	free(fr);
}
