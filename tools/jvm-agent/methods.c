// SPDX-License-Identifier: GPL-2.0
/*
 * methods.c - the names of the JVM's methods, learnt outside any signal
 * handler, for the agent's unwinder to find inside one.
 *
 * jmeth_learn_class() asks JVMTI, for each method of a prepared class,
 * its name, its class's name and source file and its line number table,
 * copies them into memory of its own and publishes the entry in an
 * open-addressing table keyed by the method ID, with a release store of
 * the ID last; jmeth_find() reads the table lock-free (acquire loads)
 * and never waits, so the handler can use it at any moment.  Entries are
 * never removed or changed (HotSpot does not reuse method IDs).
 *
 * Bounded: JMETH_SLOTS methods (2^18) and JMETH_BYTES of names and line
 * tables (64 MiB); methods beyond are not named ("?").  Learning runs
 * under one mutex (JVMTI sends ClassPrepare from any thread).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "jvm_agent.h"

#define JMETH_SLOTS	(1u << 18)
#define JMETH_PROBE	64
#define JMETH_BYTES	(64u << 20)

static struct jmeth *table;	/* mapped at the first class */
static size_t bytes_used;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static size_t slot_of(jmethodID id)
{
	uint64_t h = (uint64_t)(uintptr_t)id * 0x9e3779b97f4a7c15ull;

	return (h >> 32) & (JMETH_SLOTS - 1);
}

const struct jmeth *jmeth_find(jmethodID id)
{
	struct jmeth *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	size_t i, j;

	if (!t || !id)
		return NULL;
	for (i = 0, j = slot_of(id); i < JMETH_PROBE; i++, j = (j + 1) & (JMETH_SLOTS - 1)) {
		jmethodID k = __atomic_load_n(&t[j].id, __ATOMIC_ACQUIRE);

		if (k == id)
			return &t[j];
		if (!k)
			return NULL;
	}
	return NULL;
}

int jmeth_line(const struct jmeth *m, jint bci)
{
	int32_t lo = 0, hi = m->nlines;

	if (bci < 0 || !m->nlines)
		return 0;
	while (hi - lo > 1) {	/* the last entry starting at or before bci */
		int32_t mid = lo + (hi - lo) / 2;

		if (m->lines[mid].bci <= bci)
			lo = mid;
		else
			hi = mid;
	}
	return m->lines[lo].bci <= bci ? m->lines[lo].line : m->lines[0].line;
}

/* A copy of @s (JVMTI's) in memory of our own, counted; NULL when full. */
static char *keep(const char *s, size_t n)
{
	char *c;

	if (bytes_used + n + 1 > JMETH_BYTES || !(c = malloc(n + 1)))
		return NULL;
	memcpy(c, s, n);
	c[n] = '\0';
	bytes_used += n + 1;
	return c;
}

/* "Lpkg/Name;" -> "pkg.Name." (the prefix of its methods' names) */
static char *class_prefix(jvmtiEnv *j, jclass klass)
{
	char *sig = NULL, *p, *out;
	size_t n;

	if ((*j)->GetClassSignature(j, klass, &sig, NULL) != JVMTI_ERROR_NONE || !sig)
		return NULL;
	p = sig[0] == 'L' ? sig + 1 : sig;
	n = strlen(p);
	if (n && p[n - 1] == ';')
		n--;
	out = malloc(n + 2);
	if (out) {
		for (size_t i = 0; i < n; i++)
			out[i] = p[i] == '/' ? '.' : p[i];
		out[n] = '.';
		out[n + 1] = '\0';
	}
	(*j)->Deallocate(j, (unsigned char *)sig);
	return out;
}

static int cmp_line(const void *a, const void *b)
{
	const struct jline *x = a, *y = b;

	return x->bci < y->bci ? -1 : x->bci > y->bci;
}

static void learn_method(jvmtiEnv *j, jmethodID id, const char *prefix,
			 const char *file)
{
	struct jmeth e = { .id = id, .file = file };
	jvmtiLineNumberEntry *lt = NULL;
	char *name = NULL, full[1024];
	jint n = 0;
	size_t i, k;

	if (jmeth_find(id))
		return;
	if ((*j)->GetMethodName(j, id, &name, NULL, NULL) != JVMTI_ERROR_NONE || !name)
		return;
	snprintf(full, sizeof(full), "%s%s", prefix, name);
	(*j)->Deallocate(j, (unsigned char *)name);
	e.name = keep(full, strlen(full));
	if (!e.name)
		return;
	if ((*j)->GetLineNumberTable(j, id, &n, &lt) == JVMTI_ERROR_NONE && n > 0) {
		struct jline *l = malloc(n * sizeof(*l));

		if (l && bytes_used + n * sizeof(*l) <= JMETH_BYTES) {
			for (i = 0; i < (size_t)n; i++) {
				l[i].bci = (int32_t)lt[i].start_location;
				l[i].line = lt[i].line_number;
			}
			qsort(l, n, sizeof(*l), cmp_line);
			bytes_used += n * sizeof(*l);
			e.lines = l;
			e.nlines = n;
		} else {
			free(l);
		}
		(*j)->Deallocate(j, (unsigned char *)lt);
	}
	for (i = 0, k = slot_of(id); i < JMETH_PROBE; i++, k = (k + 1) & (JMETH_SLOTS - 1)) {
		if (table[k].id)
			continue;
		table[k].name = e.name;
		table[k].file = e.file;
		table[k].nlines = e.nlines;
		table[k].lines = e.lines;
		__atomic_store_n(&table[k].id, id, __ATOMIC_RELEASE);
		return;
	}
}

void jmeth_learn_class(jvmtiEnv *j, jclass klass)
{
	jmethodID *ms = NULL;
	char *prefix, *src = NULL;
	const char *file = "?";
	jint n = 0, i;

	pthread_mutex_lock(&lock);
	if (!table) {
		void *m = mmap(NULL, JMETH_SLOTS * sizeof(*table), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m != MAP_FAILED)
			__atomic_store_n(&table, (struct jmeth *)m, __ATOMIC_RELEASE);
	}
	prefix = table ? class_prefix(j, klass) : NULL;
	if (!prefix)
		goto out;
	if ((*j)->GetSourceFileName(j, klass, &src) == JVMTI_ERROR_NONE && src) {
		const char *kept = keep(src, strlen(src));

		if (kept)
			file = kept;
		(*j)->Deallocate(j, (unsigned char *)src);
	}
	/* Asking for the methods makes HotSpot create their IDs, which
	 * AsyncGetCallTrace() needs. */
	if ((*j)->GetClassMethods(j, klass, &n, &ms) == JVMTI_ERROR_NONE) {
		for (i = 0; i < n; i++)
			learn_method(j, ms[i], prefix, file);
		(*j)->Deallocate(j, (unsigned char *)ms);
	}
	free(prefix);
out:
	pthread_mutex_unlock(&lock);
}
