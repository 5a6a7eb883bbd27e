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
 * Names (comm, symbols, objects, files) are printed with control
 * characters, backslash and non-UTF-8 bytes as "\ooo" (esc_text()), and
 * a comm starting with a blank with that blank escaped: a user's program
 * or file name never makes a line of its own.
 */
#include <inttypes.h>
#include <string.h>

#include "ur.h"

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

	if (r && r->name)
		fprintf(f, "\t%16" PRIx64 " %s+0x%" PRIx64 " (%s)", u->ip,
			esc_text(r->name), r->symoff, obj);
	else if (obj[0] == '[')	/* [vdso], [anon]: name the frame */
		fprintf(f, "\t%16" PRIx64 " %s (%s)", u->ip, obj, obj);
	else
		fprintf(f, "\t%16" PRIx64 " [unknown] (%s)", u->ip, obj);
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
	size_t i;
	uint32_t j;

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
		for (j = 0; j < s->nk; j++)
			kernel_line(f, &s->k[j]);
		if (!s->u)
			fprintf(f, "\t%16x [no user stack] ([unknown])\n", 0);
		else
			for (j = 0; j < s->u->nr; j++)
				user_line(f, &s->u->f[j], o);
		if (s->u && incomplete_mark(s->u))
			fprintf(f, "\t%16x %s ([unknown])\n", 0,
				incomplete_mark(s->u));
		fputc('\n', f);
	}
}
