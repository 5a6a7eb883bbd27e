// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: read the /dev/ustack stream, text or binary, into samples,
 * user records and lost counts.  Unknown record kinds, unknown key=value
 * words and unknown frame kinds are skipped; malformed binary records end
 * the binary stream (their size can no longer be trusted).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ur.h"
#include "../../include/uapi/ustack.h"
#include "syscalls.h"

#define MAX_FRAMES 4096		/* per record; more is dropped */

static const char *const method_names[] = {
	[USTACK_METHOD_REGS] = "regs",
	[USTACK_METHOD_SFRAME] = "sframe",
	[USTACK_METHOD_FP] = "fp",
	[USTACK_METHOD_SIGNAL] = "signal",
	[USTACK_METHOD_ENTRY] = "entry",
};

static const char *const end_names[] = {
	[USTACK_END_OUTERMOST] = "outermost",
	[USTACK_END_FAULT] = "fault",
	[USTACK_END_DEPTH] = "depth",
	[USTACK_END_NO_INFO] = "no-info",
	[USTACK_END_BAD_FRAME] = "bad-frame",
	[USTACK_END_EXIT] = "exit",
	[USTACK_END_EXEC] = "exec",
	[USTACK_END_NOMEM] = "nomem",
	[USTACK_END_KTHREAD] = "kthread",
	[USTACK_END_BUDGET] = "budget",
};

static const char *code_name(const char *const *tab, size_t n, unsigned int c,
			     const char *pfx)
{
	char b[32];

	if (c < n && tab[c])
		return internz(tab[c]);
	snprintf(b, sizeof(b), "%s%u", pfx, c);
	return internz(b);
}

const char *method_name(unsigned int m)
{
	return code_name(method_names, sizeof(method_names) / sizeof(*method_names),
			 m, "method");
}

const char *end_name(unsigned int e)
{
	return code_name(end_names, sizeof(end_names) / sizeof(*end_names),
			 e, "end");
}

static struct sample *new_sample(struct recs *r)
{
	if (r->ns == r->cap_s) {
		r->cap_s = r->cap_s ? r->cap_s * 2 : 1024;
		r->s = xrealloc(r->s, r->cap_s * sizeof(*r->s));
	}
	memset(&r->s[r->ns], 0, sizeof(*r->s));
	r->s[r->ns].seq = r->seq++;
	return &r->s[r->ns++];
}

static struct user *new_user(struct recs *r)
{
	if (r->nu == r->cap_u) {
		r->cap_u = r->cap_u ? r->cap_u * 2 : 1024;
		r->u = xrealloc(r->u, r->cap_u * sizeof(*r->u));
	}
	memset(&r->u[r->nu], 0, sizeof(*r->u));
	r->u[r->nu].seq = r->seq++;
	return &r->u[r->nu++];
}

/* ---- text --------------------------------------------------------------- */

static struct kframe *tk;
static struct uframe *tu;
static size_t ntk, ntu, captk, captu;

enum cur { CUR_NONE, CUR_SAMPLE, CUR_USER };

static void flush(struct recs *r, enum cur cur)
{
	if (cur == CUR_SAMPLE) {
		struct sample *s = &r->s[r->ns - 1];

		s->nk = ntk;
		s->k = xalloc(ntk * sizeof(*tk));
		if (ntk)
			memcpy(s->k, tk, ntk * sizeof(*tk));
	} else if (cur == CUR_USER) {
		struct user *u = &r->u[r->nu - 1];

		u->nr = ntu;
		u->f = xalloc(ntu * sizeof(*tu));
		if (ntu)
			memcpy(u->f, tu, ntu * sizeof(*tu));
	}
	ntk = ntu = 0;
}

static char *skip_ws(char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Next whitespace-separated word; NUL-terminates it.  NULL at the end. */
static char *word(char **pp)
{
	char *p = skip_ws(*pp), *w;

	if (!*p)
		return NULL;
	w = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	if (*p)
		*p++ = '\0';
	*pp = p;
	return w;
}

/* Does p start a " key=" word? */
static int starts_kv(const char *p)
{
	if (!islower((unsigned char)*p) && *p != '_')
		return 0;
	while (islower((unsigned char)*p) || isdigit((unsigned char)*p) ||
	       *p == '_' || *p == '-')
		p++;
	return *p == '=';
}

/*
 * comm may hold spaces: its value runs to the next " key=" word or the end
 * of the line.
 */
static char *comm_value(char **pp)
{
	char *v = *pp, *p = v, *e;

	for (;;) {
		p = strpbrk(p, " \t");
		if (!p) {
			p = v + strlen(v);
			*pp = p;
			break;
		}
		if (starts_kv(skip_ws(p))) {
			*pp = p + 1;
			break;
		}
		p++;
	}
	e = p;
	while (e > v && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*e = '\0';
	return v;
}

static uint64_t num(const char *v, int base)
{
	return strtoull(v, NULL, base);
}

static void text_sample(struct recs *r, char *p)
{
	struct sample *s = new_sample(r);
	char *w;

	s->event = internz("unknown");
	s->comm = internz("[unknown]");
	while ((w = word(&p))) {
		char *v = strchr(w, '=');

		if (!v)
			continue;
		*v++ = '\0';
		if (!strcmp(w, "cookie"))
			s->cookie = num(v, 16);
		else if (!strcmp(w, "pid"))
			s->pid = num(v, 10);
		else if (!strcmp(w, "tid"))
			s->tid = num(v, 10);
		else if (!strcmp(w, "cpu"))
			s->cpu = num(v, 10);
		else if (!strcmp(w, "time"))
			s->time = num(v, 10);
		else if (!strcmp(w, "event"))
			s->event = internz(v);
		else if (!strcmp(w, "comm")) {
			/* word() cut the value at the first blank: undo */
			if (p > v + strlen(v) && p[-1] == '\0')
				p[-1] = ' ';
			p = v;
			s->comm = internz(comm_value(&p));
		}
	}
}

static void text_user(struct recs *r, char *p)
{
	struct user *u = new_user(r);
	char *w;

	u->end = internz("unknown");
	while ((w = word(&p))) {
		char *v = strchr(w, '=');

		if (!v)
			continue;
		*v++ = '\0';
		if (!strcmp(w, "cookie"))
			u->cookie = num(v, 16);
		else if (!strcmp(w, "pid"))
			u->pid = num(v, 10);
		else if (!strcmp(w, "tid"))
			u->tid = num(v, 10);
		else if (!strcmp(w, "end"))
			u->end = internz(v);
	}
}

static void text_lost(struct recs *r, char *p)
{
	char *w;

	r->lost_records++;
	while ((w = word(&p))) {
		char *v = strchr(w, '=');

		if (!v)
			continue;
		*v++ = '\0';
		if (!strcmp(w, "samples"))
			r->lost_samples += num(v, 10);
		else if (!strcmp(w, "users"))
			r->lost_users += num(v, 10);
	}
}

static void text_frame(enum cur cur, char *p)
{
	char *kind = word(&p), *a, *rest;

	if (!kind)
		return;
	if (cur == CUR_SAMPLE && !strcmp(kind, "kernel")) {
		a = word(&p);
		if (!a || ntk >= MAX_FRAMES)
			return;
		if (ntk == captk) {
			captk = captk ? captk * 2 : 64;
			tk = xrealloc(tk, captk * sizeof(*tk));
		}
		rest = skip_ws(p);
		tk[ntk].addr = num(a, 16);
		/* sprint_symbol() prints the bare address when it finds none */
		tk[ntk].sym = *rest && strncmp(rest, "0x", 2) ? internz(rest) : NULL;
		ntk++;
	} else if (cur == CUR_USER && !strcmp(kind, "user")) {
		char *m, *plus;
		struct uframe *f;

		a = word(&p);
		m = word(&p);
		if (!a || !m || ntu >= MAX_FRAMES)
			return;
		if (ntu == captu) {
			captu = captu ? captu * 2 : 64;
			tu = xrealloc(tu, captu * sizeof(*tu));
		}
		f = &tu[ntu++];
		memset(f, 0, sizeof(*f));
		f->ip = num(a, 16);
		f->method = internz(m);
		rest = skip_ws(p);
		plus = NULL;
		for (char *q = rest; (q = strstr(q, "+0x")); q++)
			plus = q;
		if (plus) {
			f->off = num(plus + 1, 16);
			f->obj = intern(rest, plus - rest);
		} else {
			f->off = f->ip;
			f->obj = internz(*rest ? rest : "[unknown]");
		}
	}
}

static void parse_text(struct recs *r, char *buf, size_t len)
{
	char *p = buf, *end = buf + len;
	enum cur cur = CUR_NONE;

	while (p < end) {
		char *nl = memchr(p, '\n', end - p), *le = nl ? nl : end, *k;

		*le = '\0';
		if (le > p && le[-1] == '\r')
			le[-1] = '\0';
		if (*p == ' ' || *p == '\t') {
			text_frame(cur, p);
		} else if (*p) {
			char *q = p;

			flush(r, cur);
			k = word(&q);
			if (!strcmp(k, "sample")) {
				text_sample(r, q);
				cur = CUR_SAMPLE;
			} else if (!strcmp(k, "user")) {
				text_user(r, q);
				cur = CUR_USER;
			} else if (!strcmp(k, "lost")) {
				text_lost(r, q);
				cur = CUR_NONE;
			} else {
				r->skipped++;
				cur = CUR_NONE;
			}
		}
		p = le + 1;
	}
	flush(r, cur);
}

/* ---- binary ------------------------------------------------------------- */

static const char *event_name(unsigned int ev, int nr)
{
	char b[64];

	switch (ev) {
	case USTACK_EVENT_CPU_CLOCK:
		return internz("cpu-clock");
	case USTACK_EVENT_OFFCPU:
		return internz("offcpu");
	case USTACK_EVENT_SELF:
		return internz("self");
	case USTACK_EVENT_CYCLES:
		return internz("cycles");
	case USTACK_EVENT_NMI_TEST:
		return internz("nmi-test");
	case USTACK_EVENT_SYSCALL:
		if (nr >= 0 && (size_t)nr < sizeof(syscall_names) / sizeof(*syscall_names) &&
		    syscall_names[nr])
			snprintf(b, sizeof(b), "syscall:%s", syscall_names[nr]);
		else
			snprintf(b, sizeof(b), "syscall:%d", nr);
		return internz(b);
	}
	snprintf(b, sizeof(b), "event%u", ev);
	return internz(b);
}

static int bin_sample(struct recs *r, const char *p, size_t size)
{
	struct ustack_rec_sample rs;
	struct sample *s;
	uint32_t i;

	if (size < sizeof(rs))
		return -1;
	memcpy(&rs, p, sizeof(rs));
	if ((size - sizeof(rs)) / 8 < rs.nr_kernel || rs.nr_kernel > MAX_FRAMES)
		return -1;
	s = new_sample(r);
	s->cookie = rs.cookie;
	s->time = rs.time_ns;
	s->pid = rs.pid;
	s->tid = rs.tid;
	s->cpu = rs.cpu;
	s->event = event_name(rs.event, rs.syscall_nr);
	s->comm = intern(rs.comm, strnlen(rs.comm, sizeof(rs.comm)));
	s->nk = rs.nr_kernel;
	s->k = xalloc(rs.nr_kernel * sizeof(*s->k));
	for (i = 0; i < rs.nr_kernel; i++)
		memcpy(&s->k[i].addr, p + sizeof(rs) + 8 * i, 8);
	return 0;
}

static int bin_user(struct recs *r, const char *p, size_t size)
{
	struct ustack_rec_user ru;
	const char *strtab;
	struct user *u;
	size_t need;
	uint32_t i;

	if (size < sizeof(ru))
		return -1;
	memcpy(&ru, p, sizeof(ru));
	need = sizeof(ru) + (size_t)ru.nr_frames * sizeof(struct ustack_frame);
	if (need > size || size - need < ru.strtab_len ||
	    ru.nr_frames > MAX_FRAMES)
		return -1;
	strtab = p + need;
	u = new_user(r);
	u->cookie = ru.cookie;
	u->pid = ru.pid;
	u->tid = ru.tid;
	u->end = end_name(ru.end_reason);
	u->nr = ru.nr_frames;
	u->f = xalloc(ru.nr_frames * sizeof(*u->f));
	for (i = 0; i < ru.nr_frames; i++) {
		struct ustack_frame fr;
		const char *o = "[unknown]";

		memcpy(&fr, p + sizeof(ru) + i * sizeof(fr), sizeof(fr));
		if (fr.object < ru.strtab_len &&
		    memchr(strtab + fr.object, '\0', ru.strtab_len - fr.object))
			o = strtab + fr.object;
		u->f[i].ip = fr.ip;
		u->f[i].off = fr.offset;
		u->f[i].obj = internz(*o ? o : "[unknown]");
		u->f[i].method = method_name(fr.method);
	}
	return 0;
}

static void parse_binary(struct recs *r, const char *buf, size_t len)
{
	size_t pos = 0;

	while (len - pos >= sizeof(struct ustack_rec_hdr)) {
		struct ustack_rec_hdr h;
		const char *p = buf + pos;
		int err = 0;

		memcpy(&h, p, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > len - pos) {
			warnx_("bad binary record at byte %zu (size %u)", pos, h.size);
			r->skipped++;
			return;
		}
		switch (h.type) {
		case USTACK_REC_SAMPLE:
			err = bin_sample(r, p, h.size);
			break;
		case USTACK_REC_USER:
			err = bin_user(r, p, h.size);
			break;
		case USTACK_REC_LOST: {
			struct ustack_rec_lost rl;

			if (h.size < sizeof(rl)) {
				err = -1;
				break;
			}
			memcpy(&rl, p, sizeof(rl));
			r->lost_samples += rl.samples;
			r->lost_users += rl.users;
			r->lost_records++;
			break;
		}
		default:
			r->skipped++;
		}
		if (err)
			r->skipped++;
		pos += h.size;
	}
	if (pos < len)
		r->skipped++;
}

void parse_buffer(struct recs *r, char *buf, size_t len)
{
	unsigned char c = len ? (unsigned char)buf[0] : 'x';

	/* binary records start with a small little-endian u16 type */
	if (len >= 8 && c < 0x20 && c != '\n' && c != '\r' && c != '\t' &&
	    c != ' ' && buf[1] == 0) {
		r->binary = 1;
		parse_binary(r, buf, len);
	} else {
		parse_text(r, buf, len);
	}
}
