// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: frame names as stackcollapse-perf.pl names them from our
 * perf output: offsets stripped, unsymbolized frames as "[object
 * basename]", ';' as ':', no quotes, no C++ argument lists; control
 * characters, backslash and non-UTF-8 bytes as "\ooo" (a frame holds no
 * ';' and no newline, whatever a user named a program or file).  The
 * folded stacks (stacks.c) and the profile formats' frames (frames.c)
 * both name frames here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "uapi/ustack.h"

const char *collapse_name(const char *s, size_t n, int args)
{
	char *b = xrealloc(NULL, n + 1), *e = xrealloc(NULL, 4 * n + 1);
	const char *r;
	size_t i, j = 0;

	/* C++ arguments go: "ns::f(int)" -> "ns::f", but not "(anonymous" */
	for (i = 0; args && i < n; i++)
		if (s[i] == '(' && strncmp(s + i, "(anonymous namespace)", 21)) {
			n = i;
			break;
		}
	for (i = 0; i < n; i++) {
		if (s[i] == '"' || s[i] == '\'')
			continue;
		b[j++] = s[i] == ';' ? ':' : s[i];
	}
	j = esc_bytes(b, j, e);
	r = intern(e, j);
	free(b);
	free(e);
	return r;
}

static const char *tidy(const char *s, size_t n)
{
	return collapse_name(s, n, 1);
}

const char *comm_frame_name(const char *comm)
{
	char b[64];
	size_t i;

	snprintf(b, sizeof(b), "%s", comm);
	for (i = 0; b[i]; i++)
		if (b[i] == ' ')
			b[i] = '_';
	return collapse_name(b, strlen(b), 0);
}

static struct memo user_names, kernel_names;

const char *user_frame_name(const struct uframe *f)
{
	const char *key = f->res && f->res->name ? f->res->name : f->obj;
	const char *r = memo_get(&user_names, key);
	char b[512];

	if (r)
		return r;
	if (f->res && f->res->name) {
		r = tidy(f->res->name, strlen(f->res->name));
	} else if (f->obj[0] == '[') {
		r = tidy(f->obj, strlen(f->obj));
	} else {
		snprintf(b, sizeof(b), "[%s]", basename_of(f->obj));
		r = tidy(b, strlen(b));
	}
	memo_put(&user_names, key, r);
	return r;
}

/* "name+0x1a [mod]" -> "name" */
const char *kernel_frame_name(const struct kframe *k)
{
	const char *s = k->sym, *e;

	const char *r;

	if (!s)
		return internz("[kernel.kallsyms]");
	r = memo_get(&kernel_names, s);
	if (r)
		return r;
	e = s + strcspn(s, " ");
	for (const char *p = s; p < e; p++)
		if (p[0] == '+' && p[1] == '0' && p[2] == 'x') {
			e = p;
			break;
		}
	r = tidy(s, e - s);
	memo_put(&kernel_names, s, r);
	return r;
}

const char *incomplete_mark(const struct user *u)
{
	char b[96];

	/* interned: the same pointers as the parser's */
	if (u->end == end_name(USTACK_END_OUTERMOST) ||
	    u->end == end_name(USTACK_END_KTHREAD))
		return NULL;
	snprintf(b, sizeof(b), "[incomplete: %s]", u->end);
	return tidy(b, strlen(b));
}
