// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: kernel symbols for binary records, which carry kernel
 * return addresses only.  Reads a kallsyms file ("addr type name [mod]");
 * text symbols only.  Text records already name their kernel frames.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

struct ksym {
	uint64_t addr;
	const char *name;
};

static struct ksym *ks;
static size_t nks;

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int ksyms_load(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t cap = 0, nonzero = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char type, name[256], mod[128] = "";
		unsigned long long a;
		int n = sscanf(line, "%llx %c %255s %127s", &a, &type, name, mod);

		if (n < 3 || (type != 't' && type != 'T' && type != 'w' &&
			      type != 'W'))
			continue;
		if (nks == cap) {
			cap = cap ? cap * 2 : 65536;
			ks = xrealloc(ks, cap * sizeof(*ks));
		}
		if (n == 4 && mod[0] == '[') {
			char full[400];

			snprintf(full, sizeof(full), "%s %s", name, mod);
			ks[nks].name = internz(full);
		} else {
			ks[nks].name = internz(name);
		}
		ks[nks++].addr = a;
		nonzero += a != 0;
	}
	fclose(f);
	if (!nonzero) {		/* kptr_restrict: all zero */
		nks = 0;
		return -1;
	}
	qsort(ks, nks, sizeof(*ks), cmp_ksym);
	return 0;
}

static const char *ksym_of(uint64_t a)
{
	size_t lo = 0, hi = nks;
	char b[512];
	const char *mod;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || a - ks[lo - 1].addr > (1u << 20))
		return NULL;
	/* "name [mod]" -> "name+0xoff [mod]" */
	mod = strchr(ks[lo - 1].name, ' ');
	snprintf(b, sizeof(b), "%.*s+0x%llx%s",
		 (int)(mod ? mod - ks[lo - 1].name : (long)strlen(ks[lo - 1].name)),
		 ks[lo - 1].name, (unsigned long long)(a - ks[lo - 1].addr),
		 mod ? mod : "");
	return internz(b);
}

void ksyms_resolve(struct recs *r)
{
	size_t i;
	uint32_t j;

	if (!nks)
		return;
	for (i = 0; i < r->ns; i++)
		for (j = 0; j < r->s[i].nk; j++)
			if (!r->s[i].k[j].sym)
				r->s[i].k[j].sym = ksym_of(r->s[i].k[j].addr);
}
