// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: interpreter frames.  A process that unwinds itself
 * answers a walk with an `interp` record of the same cookie:
 *     interp cookie=0x<16 hex> pid=<tgid> tid=<tid> frames=<n> lang=<name>
 *         interp <function> <file>:<line> [entry]
 * (text streams; frames innermost first, as in `user` records; "entry"
 * marks a frame that began a new native evaluation), or the binary
 * struct ustack_rec_interp.  parse.c hands the lines over, a frame line to the last record; each joins the user record of its (tid,
 * cookie): the last one before it in the stream (the answer follows the
 * walk), else the first after.
 *
 * The pprof and speedscope outputs put these frames in place of the
 * interpreter's evaluation frames (frames.c, interp_splice()).
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "ustack_names.h"
#include "uapi/ustack.h"

#define MAX_IFRAMES 1024	/* per record; more are dropped */

void interp_record(struct recs *r, char *p)
{
	struct interp *in;
	char *w, *v;

	if (r->nin == r->cap_in) {
		r->cap_in = r->cap_in ? r->cap_in * 2 : 64;
		r->in = xrealloc(r->in, r->cap_in * sizeof(*r->in));
	}
	in = &r->in[r->nin++];
	memset(in, 0, sizeof(*in));
	in->seq = r->seq++;
	in->lang = internz("unknown");
	while ((w = next_kv(&p, &v))) {
		if (!strcmp(w, "cookie"))
			in->cookie = strtoull(v, NULL, 16);
		else if (!strcmp(w, "pid"))
			in->pid = strtoul(v, NULL, 10);
		else if (!strcmp(w, "tid"))
			in->tid = strtoul(v, NULL, 10);
		else if (!strcmp(w, "lang"))
			in->lang = internz(v);
	}
}

/*
 * "function file:line [entry]": names are escaped (no blanks), so the
 * place is the second word and a third says entry.
 */
void interp_frame(struct recs *r, char *p)
{
	struct interp *in = r->nin ? &r->in[r->nin - 1] : NULL;
	struct iframe *f;
	char *e, *place, *colon;
	int entry = 0;

	if (!in || in->nr >= MAX_IFRAMES)
		return;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "interp", 6) || (p[6] != ' ' && p[6] != '\t'))
		return;		/* another kind of frame: skipped */
	p += 7;
	while (*p == ' ' || *p == '\t')
		p++;
	e = p + strlen(p);
	while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*e = '\0';
	place = strrchr(p, ' ');
	if (place && !strcmp(place + 1, USTACK_INTERP_ENTRY_NAME) && place > p) {
		*place = '\0';
		place = strrchr(p, ' ');
		entry = 1;
	}
	if (!place || place == p)
		return;
	*place++ = '\0';
	if (in->nr == in->cap) {
		in->cap = in->cap ? in->cap * 2 : 16;
		in->f = xrealloc(in->f, in->cap * sizeof(*in->f));
	}
	f = &in->f[in->nr++];
	f->func = internz(p);
	f->entry = entry;
	colon = strrchr(place, ':');
	if (colon && colon[1] && strspn(colon + 1, "0123456789") ==
	    strlen(colon + 1) && strlen(colon + 1) < 10) {
		f->file = intern(place, colon - place);
		f->line = atoi(colon + 1);
	} else {
		f->file = internz(place);
		f->line = 0;
	}
}

/*
 * A binary interp record (struct ustack_rec_interp, its frames, its
 * strings): 0, or -1 when malformed.  Strings outside the table are "?".
 */
int interp_binary(struct recs *r, const char *p, size_t size)
{
	struct ustack_rec_interp ri;
	const char *strtab;
	struct interp *in;
	size_t need;
	uint32_t i;

	if (size < sizeof(ri))
		return -1;
	memcpy(&ri, p, sizeof(ri));
	need = sizeof(ri) + (size_t)ri.nr_frames * sizeof(struct ustack_coop_frame);
	if (need > size || size - need < ri.strtab_len ||
	    ri.nr_frames > MAX_IFRAMES)
		return -1;
	strtab = p + need;
	if (r->nin == r->cap_in) {
		r->cap_in = r->cap_in ? r->cap_in * 2 : 64;
		r->in = xrealloc(r->in, r->cap_in * sizeof(*r->in));
	}
	in = &r->in[r->nin++];
	memset(in, 0, sizeof(*in));
	in->seq = r->seq++;
	in->cookie = ri.cookie;
	in->pid = ri.pid;
	in->tid = ri.tid;
	in->lang = intern(ri.lang, strnlen(ri.lang, sizeof(ri.lang)));
	in->nr = in->cap = ri.nr_frames;
	in->f = xalloc(in->nr * sizeof(*in->f) + 1);
	for (i = 0; i < ri.nr_frames; i++) {
		struct ustack_coop_frame f;
		struct iframe *o = &in->f[i];

		memcpy(&f, p + sizeof(ri) + i * sizeof(f), sizeof(f));
		o->func = f.function < ri.strtab_len &&
			  memchr(strtab + f.function, '\0', ri.strtab_len - f.function) ?
			  internz(strtab + f.function) : internz("?");
		o->file = f.file < ri.strtab_len &&
			  memchr(strtab + f.file, '\0', ri.strtab_len - f.file) ?
			  internz(strtab + f.file) : internz("?");
		o->line = f.line;
		o->entry = !!(f.flags & USTACK_INTERP_ENTRY);
	}
	return 0;
}

/* After join_records(): r->u is sorted by (tid, cookie, stream position). */
void interp_join(struct recs *r)
{
	size_t i, lo, hi;

	for (i = 0; i < r->nin; i++) {
		struct interp *in = &r->in[i];
		struct user *before = NULL, *after = NULL;

		lo = 0;
		hi = r->nu;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const struct user *u = &r->u[mid];

			if (u->tid < in->tid ||
			    (u->tid == in->tid && u->cookie < in->cookie))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < r->nu && r->u[lo].tid == in->tid &&
		       r->u[lo].cookie == in->cookie; lo++) {
			if (r->u[lo].seq < in->seq) {
				before = &r->u[lo];
			} else {
				after = &r->u[lo];
				break;
			}
		}
		if (before && !before->interp)
			before->interp = in;
		else if (after && !after->interp)
			after->interp = in;
	}
}
