// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: read the /dev/ustack stream, text or binary, into samples,
 * user records and lost counts.  Unknown record kinds, unknown key=value
 * words and unknown frame kinds are skipped; malformed binary records end
 * the binary stream (their size can no longer be trusted).
 *
 * In text records the kernel writes comm and object paths with every byte
 * below 0x21, 0x7f and backslash as a backslash and three octal digits
 * (as /proc/mounts does): a name cannot forge a record, a key or a frame.
 * They are decoded here, back to the bytes binary records carry; the
 * outputs escape what their own formats need (util.c: esc_text()).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "uapi/ustack.h"

#define MAX_FRAMES 4096		/* per record; more is dropped */

/* ---- text --------------------------------------------------------------- */

static struct kframe *tk;
static struct uframe *tu;
static size_t ntk, ntu, captk, captu;

enum cur { CUR_NONE, CUR_SAMPLE, CUR_USER, CUR_INTERP, CUR_PERFMAP };

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

/* An empty comm (prctl(PR_SET_NAME, "")) would start a perf line blank. */
static const char *comm_of(const char *v, size_t n)
{
	return n ? intern(v, n) : internz("[unknown]");
}

static uint64_t num(const char *v, int base)
{
	return strtoull(v, NULL, base);
}

static void text_sample(struct recs *r, char *p)
{
	struct sample *s = recs_new_sample(r);
	char *w, *v;

	s->event = internz("unknown");
	s->comm = internz("[unknown]");
	while ((w = next_kv(&p, &v))) {
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
			/* next_word() cut the value at the first blank: undo */
			if (p > v + strlen(v) && p[-1] == '\0')
				p[-1] = ' ';
			p = v;
			v = text_unescape(comm_value(&p));
			s->comm = comm_of(v, strlen(v));
		}
	}
}

static void text_user(struct recs *r, char *p)
{
	struct user *u = recs_new_user(r);
	char *w, *v;

	u->end = internz("unknown");
	while ((w = next_kv(&p, &v))) {
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
	char *w, *v;

	r->lost_records++;
	while ((w = next_kv(&p, &v))) {
		if (!strcmp(w, "samples"))
			r->lost_samples += num(v, 10);
		else if (!strcmp(w, "users"))
			r->lost_users += num(v, 10);
	}
}

static void text_frame(enum cur cur, char *p)
{
	char *kind = next_word(&p), *a, *rest;

	if (!kind)
		return;
	if (cur == CUR_SAMPLE && !strcmp(kind, "kernel")) {
		a = next_word(&p);
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

		a = next_word(&p);
		m = next_word(&p);
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
			*plus = '\0';
		} else {
			f->off = f->ip;
		}
		text_unescape(rest);
		f->obj = internz(*rest ? rest : "[unknown]");
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
		if ((*p == ' ' || *p == '\t') && cur == CUR_INTERP) {
			interp_frame(r, p);
		} else if ((*p == ' ' || *p == '\t') && cur == CUR_PERFMAP) {
			perfmap_text_line(p);
		} else if (*p == ' ' || *p == '\t') {
			text_frame(cur, p);
		} else if (*p) {
			char *q = p;

			flush(r, cur);
			k = next_word(&q);
			if (!strcmp(k, "sample")) {
				text_sample(r, q);
				cur = CUR_SAMPLE;
			} else if (!strcmp(k, "user")) {
				text_user(r, q);
				cur = CUR_USER;
			} else if (!strcmp(k, "interp")) {
				interp_record(r, q);
				cur = CUR_INTERP;
			} else if (!strcmp(k, "lost")) {
				text_lost(r, q);
				cur = CUR_NONE;
			} else if (!strcmp(k, "perfmap")) {
				perfmap_text_record(q);
				cur = CUR_PERFMAP;
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
	s = recs_new_sample(r);
	s->cookie = rs.cookie;
	s->time = rs.time_ns;
	s->pid = rs.pid;
	s->tid = rs.tid;
	s->cpu = rs.cpu;
	s->event = event_name(rs.event, rs.syscall_nr, NULL);
	if (rs.event == USTACK_EVENT_TP || rs.event == USTACK_EVENT_KPROBE) {
		/* The event's own name follows the frames, to hdr.size. */
		size_t at = sizeof(rs) + 8 * (size_t)rs.nr_kernel;
		const char *arg = p + at;
		size_t n = strnlen(arg, size - at);

		if (n && n < size - at)
			s->event = event_name(rs.event, -1, intern(arg, n));
	}
	s->comm = comm_of(rs.comm, strnlen(rs.comm, sizeof(rs.comm)));
	s->nk = rs.nr_kernel;
	s->k = xalloc(rs.nr_kernel * sizeof(*s->k));
	for (i = 0; i < rs.nr_kernel; i++)
		memcpy(&s->k[i].addr, p + sizeof(rs) + 8 * i, 8);
	return 0;
}

/* The name at @off of a record's string table, interned; checked. */
static const char *object_name(const char *strtab, uint32_t len, uint32_t off)
{
	if (off < len && strtab[off] && memchr(strtab + off, '\0', len - off))
		return internz(strtab + off);
	return internz("[unknown]");
}

/* A user record with room for its frames (either binary form's). */
static struct user *user_new(struct recs *r, uint64_t cookie, uint32_t pid,
			     uint32_t tid, unsigned int end, uint32_t nr)
{
	struct user *u = recs_new_user(r);

	u->cookie = cookie;
	u->pid = pid;
	u->tid = tid;
	u->end = end_name(end);
	u->nr = nr;
	u->f = xalloc(nr * sizeof(*u->f));
	return u;
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
	u = user_new(r, ru.cookie, ru.pid, ru.tid, ru.end_reason, ru.nr_frames);
	for (i = 0; i < ru.nr_frames; i++) {
		struct ustack_frame fr;

		memcpy(&fr, p + sizeof(ru) + i * sizeof(fr), sizeof(fr));
		u->f[i].ip = fr.ip;
		u->f[i].off = fr.offset;
		u->f[i].obj = object_name(strtab, ru.strtab_len, fr.object);
		u->f[i].method = method_name(fr.method);
	}
	return 0;
}

/* A user stack packed (USTACK_FORMAT_PACKED): its arrays, checked. */
static int bin_user_packed(struct recs *r, const char *p, size_t size)
{
	struct ustack_rec_user_packed ru;
	const char *ips, *objs, *index, *methods, *strtab;
	struct user *u;
	size_t need;
	uint32_t i;

	if (size < sizeof(ru))
		return -1;
	memcpy(&ru, p, sizeof(ru));
	need = sizeof(ru) + (size_t)ru.nr_frames * (8 + 2 + 1) +
	       (size_t)ru.nr_objects * sizeof(struct ustack_object) +
	       ru.strtab_len;
	if (need > size || ru.nr_frames > MAX_FRAMES)
		return -1;
	ips = p + sizeof(ru);
	objs = ips + 8 * ru.nr_frames;
	index = objs + sizeof(struct ustack_object) * ru.nr_objects;
	methods = index + 2 * ru.nr_frames;
	strtab = methods + ru.nr_frames;
	u = user_new(r, ru.cookie, ru.pid, ru.tid, ru.end_reason, ru.nr_frames);
	for (i = 0; i < ru.nr_frames; i++) {
		struct ustack_object o = { .bias = 0, .name = UINT32_MAX };
		uint16_t k;

		memcpy(&u->f[i].ip, ips + 8 * i, 8);
		memcpy(&k, index + 2 * i, 2);
		if (k < ru.nr_objects)
			memcpy(&o, objs + sizeof(o) * k, sizeof(o));
		u->f[i].off = u->f[i].ip - o.bias;
		u->f[i].obj = object_name(strtab, ru.strtab_len, o.name);
		u->f[i].method = method_name((unsigned char)methods[i]);
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
		case USTACK_REC_USER_PACKED:
			err = bin_user_packed(r, p, h.size);
			break;
		case USTACK_REC_INTERP:
			err = interp_binary(r, p, h.size);
			break;
		case USTACK_REC_PERFMAP:
			err = perfmap_record(p, h.size);
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

/* ---- trace events: perf script, trace-cmd report, trace_pipe ------------- */

/*
 * The module's trace events ustack:sample and ustack:user_stack, as the
 * tracers print them (their print format, after each tool's own prefix):
 *
 *   perf script:       comm  tid [cpu] secs.usecs: ustack:sample: cookie=...
 *   trace-cmd report:  comm-tid [cpu] secs.usecs: sample:    cookie=...
 *   trace_pipe:        comm-tid [cpu] flags secs.usecs: sample: cookie=...
 *
 * then "pid=.. tid=.. event=.. kstack={0x..,..}" or "pid=.. tid=.. end=..
 * frames=.. ips={0x..,..} methods={0x1,..}".  User frames carry addresses
 * only: their objects come from /proc/<pid>/maps when the process is still
 * there, else they are "[unknown]".
 */

#define TRACE_EV_SAMPLE	1
#define TRACE_EV_USER	2

/* Where the event's name starts in @line (*kind set), or NULL. */
static char *trace_event_at(char *line, int *kind)
{
	static const char *const names[] = { "user_stack:", "sample:" };
	int k;

	for (k = 0; k < 2; k++) {
		char *p = line;

		while ((p = strstr(p, names[k]))) {
			char *q = p + strlen(names[k]);

			if (p == line || p[-1] == ' ' || p[-1] == '\t' || p[-1] == ':') {
				q = skip_ws(q);
				if (!strncmp(q, "cookie=0x", 9)) {
					*kind = k ? TRACE_EV_SAMPLE : TRACE_EV_USER;
					return p;
				}
			}
			p++;
		}
	}
	return NULL;
}

/* Is this the trace events' text?  The /dev/ustack text never has "X: cookie". */
static int is_trace_text(char *buf, size_t len)
{
	char *p = buf, *end = buf + len;
	int kind, lines = 0;

	while (p < end && lines++ < 1000) {
		char *nl = memchr(p, '\n', end - p), *le = nl ? nl : end;
		char save = *le;
		int hit;

		*le = '\0';
		hit = trace_event_at(p, &kind) != NULL;
		*le = save;
		if (hit)
			return 1;
		p = le + 1;
	}
	return 0;
}

/*
 * The tool's prefix: comm (may hold blanks and '-'), tid, [cpu], time.
 * Only comm, cpu and time are taken: pid and tid are the event's own.
 */
static void trace_prefix(char *pre, struct sample *s)
{
	char *br = NULL, *p, *w, *c, *e;

	for (p = pre; (p = strchr(p, '[')); p++) {
		char *q = p + 1;

		while (isdigit((unsigned char)*q))
			q++;
		if (q > p + 1 && *q == ']')
			br = p;
	}
	if (!br)
		return;
	s->cpu = strtoul(br + 1, NULL, 10);
	p = strchr(br, ']') + 1;
	while ((w = next_word(&p))) {
		size_t n = strlen(w);

		if (n > 1 && w[n - 1] == ':' && parse_secs(w))
			s->time = parse_secs(w);
	}
	*br = '\0';
	c = skip_ws(pre);
	e = c + strlen(c);
	while (e > c && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	/* perf: "comm tid" or "comm pid/tid"; ftrace: "comm-tid" */
	p = e;
	while (p > c && (isdigit((unsigned char)p[-1]) || p[-1] == '/'))
		p--;
	if (p < e && p > c && (p[-1] == ' ' || p[-1] == '\t' || p[-1] == '-')) {
		p[-1] = '\0';
		e = p - 1;
		while (e > c && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
	}
	if (*c)
		s->comm = comm_of(c, strlen(c));
}

/*
 * An array: "{0x1,0x2}" (the kernel's and trace-cmd's print), or "1 2"
 * (perf script's: the first number here, the rest as words of their own,
 * see trace_more()).  Up to @max numbers into @out; the count.
 */
static size_t trace_array(const char *v, uint64_t *out, size_t max)
{
	size_t n = 0;
	char *e;

	if (*v != '{') {
		if (!isdigit((unsigned char)*v) || !max)
			return 0;
		out[0] = strtoull(v, &e, 0);
		return *e ? 0 : 1;
	}
	v++;
	while (*v && *v != '}' && n < max) {
		out[n++] = strtoull(v, &e, 0);
		if (e == v)
			break;
		v = e;
		if (*v == ',')
			v++;
	}
	return n;
}

/* A process's executable mappings, read once, for user frames' objects. */
struct tmap {
	uint64_t start, end, off;
	const char *path;
};

static struct tpid {
	uint32_t pid;
	struct tmap *m;
	size_t n;
} *tpids;
static size_t ntpids;

static const struct tpid *trace_maps(uint32_t pid)
{
	char path[64], line[4096];
	struct tpid *t;
	size_t i, cap = 0;
	FILE *f;

	for (i = 0; i < ntpids; i++)
		if (tpids[i].pid == pid)
			return &tpids[i];
	tpids = xrealloc(tpids, (ntpids + 1) * sizeof(*tpids));
	t = &tpids[ntpids++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return t;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b, off;
		char perms[8], *nm, *nl;
		int pos = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &a, &b, perms,
			   &off, &pos) < 4 || !strchr(perms, 'x'))
			continue;
		if (t->n == cap) {
			cap = cap ? 2 * cap : 32;
			t->m = xrealloc(t->m, cap * sizeof(*t->m));
		}
		nm = skip_ws(line + pos);
		nl = strchr(nm, '\n');
		if (nl)
			*nl = '\0';
		t->m[t->n++] = (struct tmap){ a, b, off,
			internz(*nm ? nm : "[anon]") };
	}
	fclose(f);
	return t;
}

static void trace_uframe(struct uframe *f, uint64_t ip, const struct tpid *t)
{
	size_t i;

	f->ip = ip;
	f->off = ip;
	f->obj = internz("[unknown]");
	for (i = 0; i < t->n; i++) {
		if (ip < t->m[i].start || ip >= t->m[i].end)
			continue;
		f->obj = t->m[i].path;
		if (!strcmp(f->obj, "[vdso]"))
			f->off = ip - t->m[i].start;
		else if (f->obj[0] == '/')
			f->off = ip - t->m[i].start + t->m[i].off;
		break;
	}
}

/*
 * ftrace prints "<...>" for a task whose name it has not saved yet (its
 * cmdline cache is filled at context switches): a sample taken so names
 * no program.  Every line of a thread, the user_stack at its return to
 * user space among them, may know the name: the last one known is used.
 */
static struct tcomm {
	uint32_t tid;
	const char *comm;
} *tcomms;
static size_t ntcomms;

static void trace_comm_seen(uint32_t tid, const char *comm)
{
	size_t i;

	if (!strcmp(comm, "<...>") || !strcmp(comm, "[unknown]"))
		return;
	for (i = 0; i < ntcomms; i++)
		if (tcomms[i].tid == tid)
			break;
	if (i == ntcomms) {
		tcomms = xrealloc(tcomms, (ntcomms + 1) * sizeof(*tcomms));
		tcomms[ntcomms++].tid = tid;
	}
	tcomms[i].comm = comm;
}

static void trace_comm_fill(struct recs *r)
{
	size_t i, j;

	for (i = 0; i < r->ns; i++) {
		if (strcmp(r->s[i].comm, "<...>"))
			continue;
		for (j = 0; j < ntcomms; j++)
			if (tcomms[j].tid == r->s[i].tid)
				r->s[i].comm = tcomms[j].comm;
	}
}

/*
 * The arrays of one trace line (kstack or ips, methods), into the static
 * buffers of trace_line(); perf script continues the last array named
 * with bare numbers.
 */
struct trace_arrays {
	uint64_t *a, *m;
	size_t na, nm;
	size_t *more;		/* the array being continued, or NULL */
	uint64_t *more_to;
};

/* One key=value of a sample @s or a user stack @u. */
static void trace_field(struct trace_arrays *ta, struct sample *s,
			struct user *u, const char *w, char *v)
{
	if (!strcmp(w, "cookie")) {
		if (s)
			s->cookie = num(v, 16);
		else
			u->cookie = num(v, 16);
	} else if (!strcmp(w, "pid") || !strcmp(w, "tid")) {
		uint32_t x = num(v, 10);

		if (s && w[0] == 'p')
			s->pid = x;
		else if (s)
			s->tid = x;
		else if (w[0] == 'p')
			u->pid = x;
		else
			u->tid = x;
	} else if (s && !strcmp(w, "event")) {
		s->event = internz(v);
	} else if ((s && !strcmp(w, "kstack")) || (u && !strcmp(w, "ips"))) {
		ta->na = trace_array(v, ta->a, MAX_FRAMES);
		ta->more = &ta->na, ta->more_to = ta->a;
	} else if (u && !strcmp(w, "end")) {
		u->end = internz(v);
	} else if (u && !strcmp(w, "methods")) {
		ta->nm = trace_array(v, ta->m, MAX_FRAMES);
		ta->more = &ta->nm, ta->more_to = ta->m;
	}
}

/* The words after the event name: key=value, or an array's next number. */
static void trace_fields(struct trace_arrays *ta, struct sample *s,
			 struct user *u, char *p)
{
	char *w, *e;

	while ((w = next_word(&p))) {
		char *v = strchr(w, '=');

		if (!v) {
			/* perf script: the next number of the last array */
			if (ta->more && *ta->more && *ta->more < MAX_FRAMES &&
			    isdigit((unsigned char)*w)) {
				ta->more_to[*ta->more] = strtoull(w, &e, 0);
				if (!*e)
					++*ta->more;
			}
			continue;
		}
		*v++ = '\0';
		ta->more = NULL;
		trace_field(ta, s, u, w, v);
	}
}

static void trace_line(struct recs *r, char *line, char *ev, int kind)
{
	static uint64_t a[MAX_FRAMES], m[MAX_FRAMES];
	struct trace_arrays ta = { .a = a, .m = m };
	struct sample *s = NULL, pre = { .comm = "[unknown]" };
	struct user *u = NULL;
	const struct tpid *t;
	char *pre_end = ev;
	size_t i;

	/* "ustack:sample:" in perf: the prefix ends before "ustack:" */
	if (ev - line >= 7 && !strncmp(ev - 7, "ustack:", 7))
		pre_end = ev - 7;
	if (kind == TRACE_EV_SAMPLE) {
		s = recs_new_sample(r);
		s->event = internz("unknown");
		s->comm = internz("[unknown]");
	} else {
		u = recs_new_user(r);
		u->end = internz("unknown");
	}
	trace_fields(&ta, s, u, strchr(ev, ':') + 1);
	*pre_end = '\0';
	if (s) {
		trace_prefix(line, s);
		trace_comm_seen(s->tid, s->comm);
		s->nk = ta.na;
		s->k = xalloc(ta.na * sizeof(*s->k));
		for (i = 0; i < ta.na; i++) {
			s->k[i].addr = a[i];
			s->k[i].sym = NULL;
		}
		return;
	}
	trace_prefix(line, &pre);
	trace_comm_seen(u->tid, pre.comm);
	t = trace_maps(u->pid);
	u->nr = ta.na;
	u->f = xalloc(ta.na * sizeof(*u->f));
	for (i = 0; i < ta.na; i++) {
		memset(&u->f[i], 0, sizeof(u->f[i]));
		trace_uframe(&u->f[i], a[i], t);
		u->f[i].method = method_name(i < ta.nm ? m[i] : USTACK_METHOD_MAX);
	}
}

static void parse_trace(struct recs *r, char *buf, size_t len)
{
	char *p = buf, *end = buf + len;

	while (p < end) {
		char *nl = memchr(p, '\n', end - p), *le = nl ? nl : end, *ev;
		int kind;

		*le = '\0';
		if (le > p && le[-1] == '\r')
			le[-1] = '\0';
		ev = trace_event_at(p, &kind);
		/* other events and the tools' headers are not ours */
		if (ev)
			trace_line(r, p, ev, kind);
		p = le + 1;
	}
	trace_comm_fill(r);
}

void parse_buffer(struct recs *r, char *buf, size_t len)
{
	unsigned char c = len ? (unsigned char)buf[0] : 'x';

	/* binary records start with a small little-endian u16 type */
	if (len >= 8 && c < 0x20 && c != '\n' && c != '\r' && c != '\t' &&
	    c != ' ' && buf[1] == 0) {
		r->binary = 1;
		parse_binary(r, buf, len);
	} else if (is_trace_text(buf, len)) {
		r->trace = 1;
		parse_trace(r, buf, len);
	} else if (perf_script_is(buf, len)) {
		r->perf = 1;
		perf_script_parse(r, buf, len);
	} else {
		parse_text(r, buf, len);
	}
}
