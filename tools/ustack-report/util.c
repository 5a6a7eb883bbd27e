// SPDX-License-Identifier: GPL-2.0
/* ustack-report: arena allocator, string interning, errors. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define CHUNK (1u << 20)

static char *arena_cur;
static size_t arena_left;

static void vwarn(const char *fmt, va_list ap)
{
	fputs("ustack-report: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	exit(1);
}

void warnx_(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

void *xalloc(size_t n)
{
	void *p;

	n = (n + 7) & ~(size_t)7;
	if (n > CHUNK / 4) {
		p = calloc(1, n);
		if (!p)
			die("out of memory");
		return p;
	}
	if (n > arena_left) {
		arena_cur = calloc(1, CHUNK);
		if (!arena_cur)
			die("out of memory");
		arena_left = CHUNK;
	}
	p = arena_cur;
	arena_cur += n;
	arena_left -= n;
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

/* Open-addressing table of interned strings. */
static const char **itab;
static size_t icap, icount;

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	while (n--) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ull;
	}
	return h;
}

static void intern_grow(void)
{
	size_t ncap = icap ? icap * 2 : 1024, i;
	const char **nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		die("out of memory");
	for (i = 0; i < icap; i++) {
		const char *s = itab[i];
		size_t j;

		if (!s)
			continue;
		j = hash_bytes(s, strlen(s)) & (ncap - 1);
		while (nt[j])
			j = (j + 1) & (ncap - 1);
		nt[j] = s;
	}
	free(itab);
	itab = nt;
	icap = ncap;
}

const char *intern(const char *s, size_t n)
{
	size_t j;
	char *c;

	if (icount * 2 >= icap)
		intern_grow();
	j = hash_bytes(s, n) & (icap - 1);
	while (itab[j]) {
		if (!strncmp(itab[j], s, n) && itab[j][n] == '\0')
			return itab[j];
		j = (j + 1) & (icap - 1);
	}
	c = xalloc(n + 1);
	memcpy(c, s, n);
	c[n] = '\0';
	itab[j] = c;
	icount++;
	return c;
}

const char *internz(const char *s)
{
	return intern(s, strlen(s));
}

const char *basename_of(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/*
 * In @n elements of @size bytes sorted by the u64 at byte @field of each:
 * the index of the first whose value is above @key (n if none).
 */
size_t first_above(const void *v, size_t n, size_t size, size_t field,
		   uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t x;

		memcpy(&x, (const char *)v + mid * size + field, sizeof(x));
		if (x <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Pointer-keyed memo tables (open addressing), for derived names. */
const void *memo_get(struct memo *m, const void *key)
{
	size_t j;

	if (!m->cap)
		return NULL;
	j = ((uintptr_t)key * 0x9e3779b97f4a7c15ull >> 32) & (m->cap - 1);
	for (; m->keys[j]; j = (j + 1) & (m->cap - 1))
		if (m->keys[j] == key)
			return m->vals[j];
	return NULL;
}

void memo_put(struct memo *m, const void *key, const void *val)
{
	size_t j, i;

	if ((m->count + 1) * 2 > m->cap) {
		struct memo n = { .cap = m->cap ? m->cap * 2 : 1024 };

		n.keys = calloc(n.cap, sizeof(*n.keys));
		n.vals = calloc(n.cap, sizeof(*n.vals));
		if (!n.keys || !n.vals)
			die("out of memory");
		for (i = 0; i < m->cap; i++)
			if (m->keys[i])
				memo_put(&n, m->keys[i], m->vals[i]);
		free(m->keys);
		free(m->vals);
		*m = n;
	}
	j = ((uintptr_t)key * 0x9e3779b97f4a7c15ull >> 32) & (m->cap - 1);
	while (m->keys[j] && m->keys[j] != key)
		j = (j + 1) & (m->cap - 1);
	if (!m->keys[j])
		m->count++;
	m->keys[j] = key;
	m->vals[j] = val;
}

/*
 * Length of the valid UTF-8 sequence at @s (@n bytes there), or 0: not
 * UTF-8, overlong, a surrogate, or a C1 control (U+0080..U+009F, which
 * some terminals obey).
 */
size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xc2 && s[1] < 0xa0) || (s[0] == 0xe0 && s[1] < 0xa0) ||
	    (s[0] == 0xed && s[1] >= 0xa0) || (s[0] == 0xf0 && s[1] < 0x90) ||
	    (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return len;
}

/*
 * Write @n bytes of @s to @out (room for 4 * @n + 1) with control
 * characters, backslash and bytes that are not UTF-8 as "\ooo", the
 * kernel's escape; returns the length.  Names come from any user (comm,
 * paths, ELF symbols): a newline would forge output lines, an ESC drive
 * the terminal.
 */
size_t esc_bytes(const char *s, size_t n, char *out)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, j = 0, l;

	while (i < n) {
		l = utf8_len(u + i, n - i);
		if (!l || u[i] < 0x20 || u[i] == 0x7f || u[i] == '\\') {
			j += sprintf(out + j, "\\%03o", u[i]);
			i++;
			continue;
		}
		memcpy(out + j, s + i, l);
		i += l;
		j += l;
	}
	out[j] = '\0';
	return j;
}

static struct memo escaped;

/* esc_bytes() of an interned string, interned (and memoized) */
const char *esc_text(const char *s)
{
	const char *r = memo_get(&escaped, s);
	size_t n;
	char *b;

	if (r)
		return r;
	n = strlen(s);
	b = xrealloc(NULL, 4 * n + 1);
	n = esc_bytes(s, n, b);
	r = intern(b, n);
	free(b);
	memo_put(&escaped, s, r);
	return r;
}

char *skip_ws(char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Next whitespace-separated word; NUL-terminates it.  NULL at the end. */
char *next_word(char **pp)
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

/*
 * The next key=value word: NUL-terminates the key and sets *val to the
 * value.  Words without '=' are skipped.  NULL at the end.
 */
char *next_kv(char **pp, char **val)
{
	char *w, *v;

	while ((w = next_word(pp))) {
		v = strchr(w, '=');
		if (v) {
			*v++ = '\0';
			*val = v;
			return w;
		}
	}
	return NULL;
}

/* Decode the kernel's "\ooo" escapes in place; other backslashes stay. */
char *text_unescape(char *v)
{
	char *r = v, *w = v;

	while (*r) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' &&
		    r[2] >= '0' && r[2] <= '7' && r[3] >= '0' && r[3] <= '7' &&
		    (r[1] != '0' || r[2] != '0' || r[3] != '0')) {
			*w++ = (char)((r[1] - '0') << 6 | (r[2] - '0') << 3 |
				      (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	return v;
}

/* "secs.frac" to ns; 0 when it is not such a number. */
uint64_t parse_secs(const char *t)
{
	uint64_t sec = 0, frac = 0;
	int digits = 0;

	if (!isdigit((unsigned char)*t))
		return 0;
	while (isdigit((unsigned char)*t))
		sec = sec * 10 + (*t++ - '0');
	if (*t++ != '.')
		return 0;
	while (isdigit((unsigned char)*t) && digits < 9) {
		frac = frac * 10 + (*t++ - '0');
		digits++;
	}
	while (digits++ < 9)
		frac *= 10;
	return sec * 1000000000ull + frac;
}
