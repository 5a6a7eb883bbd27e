// SPDX-License-Identifier: GPL-2.0
/*
 * tests/report: decode a pprof profile (uncompressed, on stdin) with
 * protoc-c's own decoder and print it line by line for the tests to
 * compare with what ustack-report was given:
 *     type NAME UNIT              (one per sample type, in order)
 *     default NAME
 *     sample V1,V2,... pid=N tid=N comm=S: LOC LOC ...   (leaf first)
 *     mapping ID START LIMIT OFFSET FILE BUILD-ID|- [FN]
 *     location ID MAPPING ADDR FUNCTION FILE:LINE
 * Exits 1 on a profile pprof would refuse: a string index out of the
 * table, string 0 not "", a reference to no mapping, location or function,
 * a sample whose value count is not the type count.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "profile.pb-c.h"

static const struct Perftools__Profiles__Profile *P;

static const char *str(int64_t i)
{
	if (i < 0 || (size_t)i >= P->n_string_table) {
		fprintf(stderr, "string index %" PRId64 " out of range\n", i);
		exit(1);
	}
	return P->string_table[i];
}

static void check_id(uint64_t id, size_t n, const char *what)
{
	if (id == 0 || id > n) {
		fprintf(stderr, "%s id %" PRIu64 " of %zu\n", what, id, n);
		exit(1);
	}
}

int main(void)
{
	static uint8_t buf[64 << 20];
	size_t len = fread(buf, 1, sizeof(buf), stdin), i, j;
	struct Perftools__Profiles__Profile *p;

	if (len == sizeof(buf))
		return fprintf(stderr, "too large\n"), 1;
	p = perftools__profiles__profile__unpack(NULL, len, buf);
	if (!p)
		return fprintf(stderr, "profile__unpack failed\n"), 1;
	P = p;
	if (!p->n_string_table || p->string_table[0][0])
		return fprintf(stderr, "string_table[0] is not \"\"\n"), 1;
	for (i = 0; i < p->n_sample_type; i++)
		printf("type %s %s\n", str(p->sample_type[i]->type),
		       str(p->sample_type[i]->unit));
	printf("default %s\n", str(p->default_sample_type));
	for (i = 0; i < p->n_sample; i++) {
		const struct Perftools__Profiles__Sample *s = p->sample[i];

		if (s->n_value != p->n_sample_type)
			return fprintf(stderr, "sample %zu: %zu values\n", i,
				       s->n_value), 1;
		printf("sample ");
		for (j = 0; j < s->n_value; j++)
			printf("%s%" PRId64, j ? "," : "", s->value[j]);
		for (j = 0; j < s->n_label; j++) {
			const struct Perftools__Profiles__Label *l = s->label[j];

			if (l->str)
				printf(" %s=%s", str(l->key), str(l->str));
			else
				printf(" %s=%" PRId64, str(l->key), l->num);
		}
		printf(":");
		for (j = 0; j < s->n_location_id; j++) {
			check_id(s->location_id[j], p->n_location, "location");
			printf(" %" PRIu64, s->location_id[j]);
		}
		printf("\n");
	}
	for (i = 0; i < p->n_mapping; i++) {
		const struct Perftools__Profiles__Mapping *m = p->mapping[i];

		check_id(m->id, p->n_mapping, "mapping");
		if (m->id != i + 1)
			return fprintf(stderr, "mapping %zu has id %" PRIu64 "\n",
				       i, m->id), 1;
		printf("mapping %" PRIu64 " 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64
		       " %s %s%s\n", m->id, m->memory_start, m->memory_limit,
		       m->file_offset, str(m->filename),
		       m->build_id ? str(m->build_id) : "-",
		       m->has_functions ? " FN" : "");
	}
	for (i = 0; i < p->n_location; i++) {
		const struct Perftools__Profiles__Location *l = p->location[i];

		if (l->id != i + 1)
			return fprintf(stderr, "location %zu has id %" PRIu64 "\n",
				       i, l->id), 1;
		if (l->mapping_id)
			check_id(l->mapping_id, p->n_mapping, "mapping");
		for (j = 0; j < l->n_line; j++) {
			const struct Perftools__Profiles__Function *f;

			check_id(l->line[j]->function_id, p->n_function,
				 "function");
			f = p->function[l->line[j]->function_id - 1];
			if (f->id != l->line[j]->function_id)
				return fprintf(stderr, "function ids\n"), 1;
			printf("location %" PRIu64 " %" PRIu64 " 0x%" PRIx64
			       " %s %s:%" PRId64 "\n", l->id, l->mapping_id,
			       l->address, str(f->name), str(f->filename),
			       l->line[j]->line);
		}
	}
	perftools__profiles__profile__free_unpacked(p, NULL);
	return 0;
}
