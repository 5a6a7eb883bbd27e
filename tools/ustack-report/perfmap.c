// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: names of JIT code from perf maps.  A runtime that
 * compiles code at run time (node --perf-basic-prof, python -X perf, java
 * with a perf map agent, .NET, LuaJIT) writes /tmp/perf-<pid>.map, one
 * "START SIZE name" line (hex, hex, the rest of the line) per piece of
 * code, as perf reads it.  User frames in anonymous memory ([anon]) are
 * named from the map of their process: the entry that covers the address,
 * the last one written where entries overlap (code freed and reused).
 *
 * Maps are read while the processes run (live.c: --duration), through
 * /proc/<pid>/root (the process's own mount namespace and /tmp), as
 * perf does, refreshed as they grow, and kept in a recording saved with
 * --save: appended as records of their own (binary: USTACK_REC_PERFMAP;
 * text: a "perfmap pid=<pid> entries=<n>" record, one "    jit START
 * SIZE name" line each, the name escaped as the kernel escapes paths),
 * which older readers skip as unknown records.  A saved recording is
 * named from its own maps only: a process of the same number running
 * now may be another.
 *
 * The map is any user's file and ustack-report may run as root: it is
 * opened as a regular file only, not through a symlink at its end, owned
 * by the process's owner or root; at most PERFMAP_MAX_BYTES of it are
 * read, PERFMAP_MAX_ENTRIES entries kept per process, names cut at
 * PERFMAP_MAX_NAME bytes, PERFMAP_MAX_PIDS processes.  A line that does
 * not parse is skipped; an absent, truncated or hostile map costs
 * nothing but the names (lookups scan a bounded number of overlapping
 * entries).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"
#include "uapi/ustack.h"

#define PERFMAP_MAX_BYTES	(64u << 20)
#define PERFMAP_MAX_ENTRIES	(1u << 20)
#define PERFMAP_MAX_NAME	512
#define PERFMAP_MAX_PIDS	4096
#define PERFMAP_SCAN		64	/* overlapping entries looked at */

struct pment {
	uint64_t start, end;	/* [start, end) */
	uint32_t seq;		/* line order: the later wins */
	const char *name;	/* interned, raw bytes (no NUL, no newline) */
};

struct pmap {
	uint32_t pid;
	int sorted;
	uint64_t read_off;	/* bytes of the file consumed */
	dev_t dev;
	ino_t ino;
	char part[PERFMAP_MAX_NAME + 64];	/* a line not ended yet */
	size_t npart;
	size_t n, cap;
	struct pment *e;
};

static struct pmap *maps;
static size_t nmaps;

static struct pmap *pmap_get(uint32_t pid, int create)
{
	size_t i;

	for (i = 0; i < nmaps; i++)
		if (maps[i].pid == pid)
			return &maps[i];
	if (!create || nmaps == PERFMAP_MAX_PIDS)
		return NULL;
	maps = xrealloc(maps, (nmaps + 1) * sizeof(*maps));
	memset(&maps[nmaps], 0, sizeof(*maps));
	maps[nmaps].pid = pid;
	return &maps[nmaps++];
}

static int hexnum(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	int n = 0;

	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	*v = 0;
	for (; s < end && n < 17; s++, n++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' :
			*s >= 'a' && *s <= 'f' ? *s - 'a' + 10 :
			*s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : -1;

		if (d < 0)
			break;
		*v = *v << 4 | d;
	}
	if (!n || n > 16)
		return -1;
	*p = s;
	return 0;
}

/* One "START SIZE name" line of @len bytes (no newline). */
static void add_line(struct pmap *m, const char *s, size_t len)
{
	const char *end = s + len, *name;
	uint64_t start, size;
	struct pment *e;
	size_t nlen;

	if (m->n >= PERFMAP_MAX_ENTRIES)
		return;
	if (hexnum(&s, end, &start) || s == end || *s++ != ' ' ||
	    hexnum(&s, end, &size) || s == end || *s++ != ' ' ||
	    !size || start + size < start)
		return;
	name = s;
	nlen = end - s;
	if (nlen && name[nlen - 1] == '\r')
		nlen--;
	if (!nlen)
		return;
	if (nlen > PERFMAP_MAX_NAME)
		nlen = PERFMAP_MAX_NAME;
	if (memchr(name, '\0', nlen))
		nlen = strnlen(name, nlen);
	if (!nlen)
		return;
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 256;
		m->e = xrealloc(m->e, m->cap * sizeof(*m->e));
	}
	e = &m->e[m->n];
	e->start = start;
	e->end = start + size;
	e->seq = m->n;
	e->name = intern(name, nlen);
	m->n++;
	m->sorted = 0;
}

/* Bytes of the map (from a file or a saved record): complete lines only. */
static void add_bytes(struct pmap *m, const char *p, size_t len)
{
	while (len) {
		const char *nl = memchr(p, '\n', len);
		size_t take = nl ? (size_t)(nl - p) : len;

		if (m->npart || !nl) {
			size_t room = sizeof(m->part) - m->npart;
			size_t k = take < room ? take : room;

			memcpy(m->part + m->npart, p, k);
			m->npart += k;
			if (nl) {
				add_line(m, m->part, m->npart);
				m->npart = 0;
			}
		} else {
			add_line(m, p, take);
		}
		if (!nl)
			break;
		len -= take + 1;
		p += take + 1;
	}
}

/*
 * Read what is new in the map of @pid, through its own root while it
 * runs (else, once, as this process sees /tmp).  Refreshing: a file that
 * grew is read from where the last read ended; one replaced or shorter
 * is read again from its start.
 */
void perfmap_read(uint32_t pid)
{
	struct pmap *m = pmap_get(pid, 1);
	char path[96], buf[65536];
	struct stat st, ps;
	ssize_t got;
	int fd;

	if (!m)
		return;
	snprintf(path, sizeof(path), "/proc/%" PRIu32, pid);
	if (stat(path, &ps))
		return;		/* gone: what was read is kept */
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/root/tmp/perf-%" PRIu32
		 ".map", pid, pid);
	fd = open_regular(AT_FDCWD, path, 1);
	if (fd < 0)
		return;
	if (fstat(fd, &st) || (st.st_uid != ps.st_uid && st.st_uid != 0)) {
		close(fd);
		return;
	}
	if (st.st_dev != m->dev || st.st_ino != m->ino ||
	    (uint64_t)st.st_size < m->read_off) {
		m->n = 0;
		m->npart = 0;
		m->read_off = 0;
		m->dev = st.st_dev;
		m->ino = st.st_ino;
	}
	while (m->read_off < PERFMAP_MAX_BYTES) {
		size_t want = sizeof(buf);

		if (want > PERFMAP_MAX_BYTES - m->read_off)
			want = PERFMAP_MAX_BYTES - m->read_off;
		got = pread(fd, buf, want, m->read_off);
		if (got <= 0)
			break;
		add_bytes(m, buf, got);
		m->read_off += got;
	}
	close(fd);
}

/* Every process whose maps were read, again (the end of a recording). */
void perfmap_refresh(void)
{
	size_t i;

	for (i = 0; i < nmaps; i++)
		perfmap_read(maps[i].pid);
}

/*
 * The processes in binary records [from, len) of @buf that have frames in
 * anonymous memory: their maps are read (once each; perfmap_refresh()
 * reads them again).  Returns where the next call should start.
 */
size_t perfmap_scan(const char *buf, size_t from, size_t len)
{
	while (len - from >= sizeof(struct ustack_rec_hdr)) {
		struct ustack_rec_hdr h;
		struct ustack_rec_user ru;
		const char *p = buf + from;

		memcpy(&h, p, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > len - from)
			break;
		/* A packed user stack's first fields are the same. */
		if ((h.type == USTACK_REC_USER ||
		     h.type == USTACK_REC_USER_PACKED) && h.size >= sizeof(ru)) {
			memcpy(&ru, p, sizeof(ru));
			if (!pmap_get(ru.pid, 0) && memmem(p, h.size, "[anon]", 7))
				perfmap_read(ru.pid);
		}
		from += h.size;
	}
	return from;
}

/* ---- saved recordings ---------------------------------------------------- */

static int cmp_seq(const void *a, const void *b)
{
	const struct pment *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The maps read, appended to a recording (binary or text records). */
void perfmap_save(FILE *f, int binary)
{
	size_t i, j;

	for (i = 0; i < nmaps; i++) {
		struct pmap *m = &maps[i];
		struct ustack_rec_perfmap rec;
		size_t bytes = 0;
		char line[PERFMAP_MAX_NAME * 4 + 64];

		if (!m->n)
			continue;
		if (m->sorted) {
			qsort(m->e, m->n, sizeof(*m->e), cmp_seq);
			m->sorted = 0;
		}
		for (j = 0; j < m->n; j++)
			bytes += snprintf(line, sizeof(line), "%" PRIx64 " %" PRIx64
					  " %s\n", m->e[j].start,
					  m->e[j].end - m->e[j].start,
					  m->e[j].name);
		if (!binary) {
			fprintf(f, "perfmap pid=%" PRIu32 " entries=%zu\n", m->pid, m->n);
			for (j = 0; j < m->n; j++) {
				esc_bytes(m->e[j].name, strlen(m->e[j].name), line);
				fprintf(f, "    jit %" PRIx64 " %" PRIx64 " %s\n",
					m->e[j].start, m->e[j].end - m->e[j].start,
					line);
			}
			continue;
		}
		memset(&rec, 0, sizeof(rec));
		rec.hdr.type = USTACK_REC_PERFMAP;
		rec.hdr.size = (sizeof(rec) + bytes + 7) & ~7u;
		rec.pid = m->pid;
		rec.len = bytes;
		fwrite(&rec, sizeof(rec), 1, f);
		for (j = 0; j < m->n; j++) {
			int n = snprintf(line, sizeof(line), "%" PRIx64 " %" PRIx64
					 " %s\n", m->e[j].start,
					 m->e[j].end - m->e[j].start,
					 m->e[j].name);

			fwrite(line, 1, n, f);
		}
		fwrite("\0\0\0\0\0\0\0", 1, rec.hdr.size - sizeof(rec) - bytes, f);
	}
}

/* A binary USTACK_REC_PERFMAP record of @size bytes: 0, or -1. */
int perfmap_record(const char *p, size_t size)
{
	struct ustack_rec_perfmap rec;
	struct pmap *m;

	if (size < sizeof(rec))
		return -1;
	memcpy(&rec, p, sizeof(rec));
	if (rec.len > size - sizeof(rec))
		return -1;
	m = pmap_get(rec.pid, 1);
	if (!m)
		return 0;
	add_bytes(m, p + sizeof(rec), rec.len);
	if (m->npart) {
		add_line(m, m->part, m->npart);
		m->npart = 0;
	}
	return 0;
}

/* Text: "perfmap pid=<pid> ..." starts one; its lines follow. */
static struct pmap *text_cur;

void perfmap_text_record(char *p)
{
	char *w = strstr(p, "pid=");

	text_cur = w ? pmap_get(strtoul(w + 4, NULL, 10), 1) : NULL;
}

void perfmap_text_line(char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	if (!text_cur || strncmp(p, "jit ", 4))
		return;
	p += 4;
	/* the name was escaped like a path: decode it */
	text_unescape(p);
	add_line(text_cur, p, strlen(p));
}

/* ---- lookups ------------------------------------------------------------- */

static int cmp_start(const void *a, const void *b)
{
	const struct pment *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const struct pment *find(struct pmap *m, uint64_t addr)
{
	const struct pment *best = NULL;
	size_t lo, k;

	if (!m->sorted) {
		qsort(m->e, m->n, sizeof(*m->e), cmp_start);
		m->sorted = 1;
	}
	lo = first_above(m->e, m->n, sizeof(*m->e),
			 offsetof(struct pment, start), addr);
	for (k = 0; k < PERFMAP_SCAN && lo > k; k++) {
		const struct pment *e = &m->e[lo - 1 - k];

		if (addr < e->end && (!best || e->seq > best->seq))
			best = e;
	}
	return best;
}

/* Name the frames in anonymous memory from their processes' maps. */
void perfmap_resolve(struct recs *r)
{
	const char *anon = internz("[anon]");
	size_t i, j;

	if (!nmaps)
		return;
	for (i = 0; i < r->nu; i++) {
		struct user *u = &r->u[i];
		struct pmap *m = NULL;
		int looked = 0;

		for (j = 0; j < u->nr; j++) {
			struct uframe *f = &u->f[j];
			const struct pment *e;
			struct symres *res;

			if (f->obj != anon || (f->res && f->res->name))
				continue;
			if (!looked) {
				m = pmap_get(u->pid, 0);
				looked = 1;
			}
			/* a return address is looked up at the call */
			if (!m || !m->n || !(e = find(m, f->ip - (j ? 1 : 0))))
				continue;
			res = xalloc(sizeof(*res));
			res->name = e->name;
			res->symoff = f->ip - e->start;
			f->res = res;
		}
	}
}
