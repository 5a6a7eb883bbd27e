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
 * A frame found by stack scanning (method guess) has "? " before its
 * symbol, as the kernel prints its unreliable frames.
 * Names (comm, symbols, objects, files) are printed with control
 * characters, backslash and non-UTF-8 bytes as "\ooo" (esc_text()), and
 * a comm starting with a blank with that blank escaped: a user's program
 * or file name never makes a line of its own.
 * An interpreter's own frames (interp records) stand in place of its
 * evaluator's native frames, as "function (file:line)" of object
 * "[interp]".
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static void kernel_line(FILE *f, const struct kframe *k)
{
	const char *s = k->sym ? esc_text(k->sym) : NULL, *mod;

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
	const char *obj = esc_text(u->obj);

	/* a guess is marked as the kernel marks its unreliable frames */
	const char *q = frame_guessed(u) ? "? " : "";

	if (r && r->name)
		fprintf(f, "\t%16" PRIx64 " %s%s+0x%" PRIx64 " (%s)", u->ip, q,
			esc_text(r->name), r->symoff, obj);
	else if (obj[0] == '[')	/* [vdso], [anon]: name the frame */
		fprintf(f, "\t%16" PRIx64 " %s%s (%s)", u->ip, q, obj, obj);
	else
		fprintf(f, "\t%16" PRIx64 " %s[unknown] (%s)", u->ip, q, obj);
	if (o->verbose) {
		fprintf(f, " method=%s offset=0x%" PRIx64, esc_text(u->method),
			u->off);
		if (r && r->build_id)
			fprintf(f, " build-id=%s", r->build_id);
	}
	if (o->lines && r && r->file)
		fprintf(f, " %s:%d", esc_text(r->file), r->line);
	fputc('\n', f);
}

void output_perf(FILE *f, const struct recs *r, const struct out_opts *o)
{
	struct pframe *fr = NULL;
	size_t i, n, cap = 0, j;

	for (i = 0; i < r->ns; i++) {
		const struct sample *s = &r->s[i];
		const char *comm = esc_text(s->comm);

		/* a line starting with a blank would be taken for a frame */
		if (comm[0] == ' ') {
			fputs("\\040", f);
			comm++;
		}
		fprintf(f, "%s %u/%u [%03u] %" PRIu64 ".%06" PRIu64 ": 1 ",
			comm, s->pid, s->tid, s->cpu, s->time / 1000000000,
			s->time % 1000000000 / 1000);
		/* readers take the event from the end of the line */
		if (o->verbose)
			fprintf(f, "cookie=0x%016" PRIx64 " end=%s ", s->cookie,
				s->u ? esc_text(s->u->end) : "missing");
		fprintf(f, "%s:\n", esc_text(s->event));
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
					esc_text(p->name),
					p->file ? esc_text(p->file) : "?",
					p->line);
			else
				fprintf(f, "\t%16x %s ([unknown])\n", 0, p->name);
		}
		fputc('\n', f);
	}
	free(fr);
}
