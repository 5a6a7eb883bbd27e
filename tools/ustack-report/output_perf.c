// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: perf-script-like text, one block per sample, innermost
 * frame first, blank line after each, as stackcollapse-perf.pl and
 * speedscope read it:
 *     comm pid/tid [cpu] sec.usec: 1 event:
 *     \t<addr> <symbol>+0x<off> (<object>)
 * -v adds cookie and end reason to the header (before the event, which
 * readers take from the line's end), and method, file offset and build-id
 * to each user frame; -l adds file:line.  Frame extras go after
 * "(<object>)", where those readers ignore them.  A missing user stack and
 * a walk that stopped short of the outermost frame show as pseudo-frames,
 * "[no user stack]" and "[incomplete: <end reason>]", at the bottom.
 * An interpreter's own frames (interp records) stand in place of its
 * evaluator's native frames, as "function (file:line)" of object
 * "[interp]".
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ur.h"

static void kernel_line(FILE *f, const struct kframe *k)
{
	const char *s = k->sym, *mod;

	if (!s) {
		fprintf(f, "\t%16" PRIx64 " [unknown] ([kernel.kallsyms])\n",
			k->addr);
		return;
	}
	mod = strchr(s, ' ');
	if (mod && mod[1] == '[')
		fprintf(f, "\t%16" PRIx64 " %.*s (%s)\n", k->addr,
			(int)(mod - s), s, mod + 1);
	else
		fprintf(f, "\t%16" PRIx64 " %s ([kernel.kallsyms])\n",
			k->addr, s);
}

static void user_line(FILE *f, const struct uframe *u,
		      const struct out_opts *o)
{
	const struct symres *r = u->res;

	if (r && r->name)
		fprintf(f, "\t%16" PRIx64 " %s+0x%" PRIx64 " (%s)", u->ip,
			r->name, r->symoff, u->obj);
	else if (u->obj[0] == '[')	/* [vdso], [anon]: name the frame */
		fprintf(f, "\t%16" PRIx64 " %s (%s)", u->ip, u->obj, u->obj);
	else
		fprintf(f, "\t%16" PRIx64 " [unknown] (%s)", u->ip, u->obj);
	if (o->verbose) {
		fprintf(f, " method=%s offset=0x%" PRIx64, u->method, u->off);
		if (r && r->build_id)
			fprintf(f, " build-id=%s", r->build_id);
	}
	if (o->lines && r && r->file)
		fprintf(f, " %s:%d", r->file, r->line);
	fputc('\n', f);
}

void output_perf(FILE *f, const struct recs *r, const struct out_opts *o)
{
	struct pframe *fr = NULL;
	size_t i, n, cap = 0, j;

	for (i = 0; i < r->ns; i++) {
		const struct sample *s = &r->s[i];

		fprintf(f, "%s %u/%u [%03u] %" PRIu64 ".%06" PRIu64 ": 1 ",
			s->comm, s->pid, s->tid, s->cpu, s->time / 1000000000,
			s->time % 1000000000 / 1000);
		/* readers take the event from the end of the line */
		if (o->verbose)
			fprintf(f, "cookie=0x%016" PRIx64 " end=%s ", s->cookie,
				s->u ? s->u->end : "missing");
		fprintf(f, "%s:\n", s->event);
		n = sample_frames(s, &fr, &cap);
		for (j = 0; j < n; j++) {
			const struct pframe *p = &fr[j];

			if (p->kind == PK_KERNEL)
				kernel_line(f, p->k);
			else if (p->kind == PK_USER)
				user_line(f, p->u, o);
			else if (p->kind == PK_INTERP)
				/* "function (file:line)": the symbol, to readers */
				fprintf(f, "\t%16x %s (%s:%d) ([interp])\n", 0,
					p->name, p->file ? p->file : "?",
					p->line);
			else
				fprintf(f, "\t%16x %s ([unknown])\n", 0, p->name);
		}
		fputc('\n', f);
	}
	free(fr);
}
