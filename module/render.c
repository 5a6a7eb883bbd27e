// SPDX-License-Identifier: GPL-2.0
/*
 * The text form of the records of /dev/ustack, one line at a time, and
 * USTACK_FORMAT_BINARY's form of the user stacks the ring holds packed.
 *
 * A reader renders the record it popped line by line (line 0 is the
 * record's first line, then one per frame), so that a record of any size
 * reaches user space whole, with no buffer sized for the worst case.
 *
 * Names a user chose (comm, the paths of mapped files) are escaped: every
 * byte below 0x21 (controls and the space), DEL and the backslash is
 * written as a backslash and three octal digits, as /proc/mounts does.  No
 * name can then end a line, split a field or start a record of its own.
 */
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <ustack_names.h>
#include "render.h"
#include "syscalls.h"

static const char *const method_names[USTACK_METHOD_MAX] = {
	USTACK_METHOD_NAMES(USTACK_NAME_INIT)
};

static const char *const end_names[USTACK_END_MAX] = {
	USTACK_END_NAMES(USTACK_NAME_INIT)
};

static const char *const event_names[USTACK_EVENT_MAX] = {
	USTACK_EVENT_NAMES(USTACK_NAME_INIT)
};

static const char *name_of(const char *const *names, u32 n, u32 i)
{
	return i < n && names[i] ? names[i] : "unknown";
}

const char *ustack_render_method(unsigned int m)
{
	return name_of(method_names, USTACK_METHOD_MAX, m);
}

const char *ustack_render_end(unsigned int e)
{
	return name_of(end_names, USTACK_END_MAX, e);
}

struct out {
	char *buf;
	size_t len, cap;
};

static __printf(2, 3) void put(struct out *o, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	o->len += vscnprintf(o->buf + o->len, o->cap - o->len, fmt, args);
	va_end(args);
}

/*
 * @s, at most @max bytes of it, escaped (see the top of this file).  By
 * hand, not a printf a byte: a reader renders every frame's path.
 */
static void put_escaped(struct out *o, const char *s, size_t max)
{
	size_t i;

	for (i = 0; i < max && s[i] && o->len + 5 < o->cap; i++) {
		unsigned char c = s[i];

		if (c < 0x21 || c == 0x7f || c == '\\') {
			o->buf[o->len++] = '\\';
			o->buf[o->len++] = '0' + (c >> 6);
			o->buf[o->len++] = '0' + ((c >> 3) & 7);
			o->buf[o->len++] = '0' + (c & 7);
		} else {
			o->buf[o->len++] = c;
		}
	}
	o->buf[o->len] = 0;
}

/*
 * The name a tp or kprobe sample carries after its kernel frames (bounded
 * by the record's size, in case it lacks its NUL).
 */
static const char *sample_arg(const struct ustack_rec_sample *s, size_t *len)
{
	const char *arg = (const char *)((const u64 *)(s + 1) + s->nr_kernel);
	size_t room = s->hdr.size - sizeof(*s) - s->nr_kernel * sizeof(u64);

	if (s->hdr.size < sizeof(*s) + s->nr_kernel * sizeof(u64))
		return NULL;
	*len = strnlen(arg, room);
	return *len ? arg : NULL;
}

/**
 * ustack_render_event - the text of a sample's event (syscall:write)
 * @s: a whole sample record
 * @buf: where to write it, NUL-terminated
 * @cap: bytes at @buf
 *
 * Return: the bytes written (no NUL counted).
 */
size_t ustack_render_event(const struct ustack_rec_sample *s, char *buf,
			   size_t cap)
{
	struct out o = { .buf = buf, .cap = cap };
	const char *arg;
	size_t len;

	put(&o, "%s", name_of(event_names, USTACK_EVENT_MAX, s->event));
	if (s->event == USTACK_EVENT_SYSCALL) {
		const char *sc = ustack_syscalls_name(s->syscall_nr);

		if (sc)
			put(&o, ":%s", sc);
		else
			put(&o, ":%d", s->syscall_nr);
	} else if (s->event == USTACK_EVENT_TP ||
		   s->event == USTACK_EVENT_KPROBE) {
		arg = sample_arg(s, &len);
		if (arg)
			put(&o, ":%.*s", (int)len, arg);
	}
	return o.len;
}

static void render_sample(struct out *o, const struct ustack_rec_sample *s,
			  u32 line)
{
	const u64 *ips = (const u64 *)(s + 1);
	char sym[KSYM_SYMBOL_LEN], *slash;

	if (line) {
		sprint_symbol(sym, ips[line - 1]);
		slash = strchr(sym, '/');	/* drop "/size [module]" */
		if (slash)
			*slash = 0;
		put(o, "    kernel 0x%llx %s\n", ips[line - 1], sym);
		return;
	}
	put(o, "sample cookie=0x%016llx pid=%u tid=%u cpu=%u time=%llu event=",
	    s->cookie, s->pid, s->tid, s->cpu, s->time_ns);
	o->len += ustack_render_event(s, o->buf + o->len, o->cap - o->len);
	put(o, " comm=");
	put_escaped(o, s->comm, sizeof(s->comm));
	put(o, "\n");
}

/* A packed user stack's arrays (include/uapi/ustack.h). */
struct packed {
	const u64 *ips;
	const struct ustack_object *objects;
	const u16 *index;
	const u8 *methods;
	const char *strtab;
};

static void unpack(const struct ustack_rec_user_packed *u, struct packed *p)
{
	p->ips = (const u64 *)(u + 1);
	p->objects = (const void *)(p->ips + u->nr_frames);
	p->index = (const u16 *)(p->objects + u->nr_objects);
	p->methods = (const u8 *)(p->index + u->nr_frames);
	p->strtab = (const char *)(p->methods + u->nr_frames);
}

/* Frame @i as struct ustack_frame gives it. */
static struct ustack_frame frame_of(const struct ustack_rec_user_packed *u,
				    const struct packed *p, u32 i)
{
	struct ustack_object o = { .name = U32_MAX };

	if (p->index[i] < u->nr_objects)
		o = p->objects[p->index[i]];
	return (struct ustack_frame) {
		.ip = p->ips[i],
		.offset = p->ips[i] - o.bias,
		.object = o.name,
		.method = p->methods[i],
	};
}

static void render_user(struct out *o, const struct ustack_rec_user_packed *u,
			u32 line)
{
	struct ustack_frame f;
	struct packed p;

	if (line) {
		unpack(u, &p);
		f = frame_of(u, &p, line - 1);
		put(o, "    user 0x%llx %s ", f.ip,
		    ustack_render_method(f.method));
		if (f.object < u->strtab_len)
			put_escaped(o, p.strtab + f.object,
				    u->strtab_len - f.object);
		else
			put(o, "[unknown]");
		put(o, "+0x%llx\n", f.offset);
		return;
	}
	put(o, "user cookie=0x%016llx pid=%u tid=%u frames=%u end=%s\n",
	    u->cookie, u->pid, u->tid, u->nr_frames,
	    ustack_render_end(u->end_reason));
}

/**
 * ustack_render_binary - a record as USTACK_FORMAT_BINARY gives it
 * @rec: a whole record, as popped from the ring
 * @buf: where to write a user stack unpacked, USTACK_REC_MAX bytes
 *
 * The ring holds user stacks packed (USTACK_FORMAT_PACKED's form); that
 * format's readers get them with a struct ustack_frame for each frame.
 *
 * Return: the record to give, @rec or @buf.
 */
const void *ustack_render_binary(const void *rec, void *buf)
{
	const struct ustack_rec_user_packed *u = rec;
	struct ustack_rec_user *c = buf;
	struct ustack_frame *f = (void *)(c + 1);
	struct packed p;
	size_t len;
	u32 i;

	if (u->hdr.type != USTACK_REC_USER_PACKED)
		return rec;
	unpack(u, &p);
	len = sizeof(*c) + u->nr_frames * sizeof(*f) + u->strtab_len;
	*c = (struct ustack_rec_user) {
		.hdr = { .type = USTACK_REC_USER, .size = ALIGN(len, 8) },
		.cookie = u->cookie,
		.pid = u->pid,
		.tid = u->tid,
		.nr_frames = u->nr_frames,
		.end_reason = u->end_reason,
		.strtab_len = u->strtab_len,
	};
	for (i = 0; i < u->nr_frames; i++)
		f[i] = frame_of(u, &p, i);
	memcpy(f + u->nr_frames, p.strtab, u->strtab_len);
	memset((char *)buf + len, 0, c->hdr.size - len);
	return buf;
}

static void render_interp(struct out *o, const struct ustack_rec_interp *r,
			  u32 line)
{
	const struct ustack_coop_frame *f = (const void *)(r + 1);
	const char *strtab = (const char *)(f + r->nr_frames);

	if (line) {
		f += line - 1;
		put(o, "    interp ");
		if (f->function < r->strtab_len)
			put_escaped(o, strtab + f->function,
				    r->strtab_len - f->function);
		put(o, " ");
		if (f->file < r->strtab_len)
			put_escaped(o, strtab + f->file,
				    r->strtab_len - f->file);
		put(o, ":%u%s%s\n", f->line,
		    f->flags & USTACK_INTERP_ENTRY ? " " : "",
		    f->flags & USTACK_INTERP_ENTRY ? USTACK_INTERP_ENTRY_NAME : "");
		return;
	}
	put(o, "interp cookie=0x%016llx pid=%u tid=%u frames=%u lang=",
	    r->cookie, r->pid, r->tid, r->nr_frames);
	put_escaped(o, r->lang, sizeof(r->lang));
	put(o, "\n");
}

/**
 * ustack_render_lines - how many lines the text form of a record has
 * @rec: a whole record, as popped from the ring
 *
 * Return: the count; 0 for a record of an unknown type (skipped).
 */
u32 ustack_render_lines(const void *rec)
{
	const struct ustack_rec_hdr *hdr = rec;

	switch (hdr->type) {
	case USTACK_REC_SAMPLE:
		return 1 + ((const struct ustack_rec_sample *)rec)->nr_kernel;
	case USTACK_REC_USER_PACKED:
		return 1 + ((const struct ustack_rec_user_packed *)rec)->nr_frames;
	case USTACK_REC_LOST:
		return 1;
	case USTACK_REC_INTERP:
		return 1 + ((const struct ustack_rec_interp *)rec)->nr_frames;
	}
	return 0;
}

/**
 * ustack_render_line - the text of one line of a record
 * @rec: a whole record, as popped from the ring
 * @line: which line, below ustack_render_lines(@rec)
 * @buf: where to write it, with its newline
 * @cap: bytes at @buf, at least USTACK_RENDER_LINE_MAX
 *
 * Return: the bytes written (no NUL counted).
 */
size_t ustack_render_line(const void *rec, u32 line, char *buf, size_t cap)
{
	const struct ustack_rec_hdr *hdr = rec;
	const struct ustack_rec_lost *l = rec;
	struct out o = { .buf = buf, .cap = cap };

	switch (hdr->type) {
	case USTACK_REC_SAMPLE:
		render_sample(&o, rec, line);
		break;
	case USTACK_REC_USER_PACKED:
		render_user(&o, rec, line);
		break;
	case USTACK_REC_INTERP:
		render_interp(&o, rec, line);
		break;
	case USTACK_REC_LOST:
		put(&o, "lost samples=%llu users=%llu time=%llu\n",
		    l->samples, l->users, l->time_ns);
		break;
	}
	return o.len;
}
