// SPDX-License-Identifier: GPL-2.0
/*
 * cachecheck CACHE GENFILE BASE: relocate the shim's cache entry CACHE as
 * the shim does (sframe_section_relocate) for an object loaded with bias BASE,
 * then compare, PC by PC, its rules at pc + BASE (ustack_sframe's
 * ustack_sframe_find) with those of GENFILE's .sframe (`gen --version 3` output of
 * the same object) at pc.  Prints "cachecheck: N PCs, M differ".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sframe_entry.h"
#include "sframe_section.h"
#include "elf_sframe.h"
#include "ustack_sframe.h"

static int same(const struct sframe_rule *a, const struct sframe_rule *b)
{
	return a->cfa.kind == b->cfa.kind && a->cfa.reg == b->cfa.reg &&
	       a->cfa.off == b->cfa.off && a->ra.kind == b->ra.kind &&
	       a->ra.off == b->ra.off && a->fp.kind == b->fp.kind &&
	       a->fp.off == b->fp.off &&
	       (a->flags & SFRAME_R_OUTERMOST) == (b->flags & SFRAME_R_OUTERMOST);
}

int main(int argc, char **argv)
{
	struct cache_hdr h;
	struct elf_sframe es;
	struct sframe_sec c, g;
	const char *msg = "";
	unsigned long long n = 0, bad = 0;
	uint64_t base;
	uint8_t *buf;
	FILE *f;

	if (argc != 4)
		return 2;
	base = strtoull(argv[3], NULL, 0);
	f = fopen(argv[1], "rb");
	if (!f || fread(&h, sizeof(h), 1, f) != 1 ||
	    memcmp(h.magic, CACHE_MAGIC, 8) || h.sframe_len > (1u << 30)) {
		printf("cachecheck: bad cache file\n");
		return 1;
	}
	buf = malloc(h.sframe_len);
	if (!buf || fread(buf, 1, h.sframe_len, f) != h.sframe_len) {
		printf("cachecheck: short cache file\n");
		return 1;
	}
	if (sframe_section_relocate(buf, h.sframe_len,
				 (int64_t)(base - (uintptr_t)buf))) {
		printf("cachecheck: relocate refused\n");
		return 1;
	}
	if (ustack_sframe_sec_init(&c, (unsigned long)buf, h.sframe_len,
			    (uintptr_t)buf, 0, 0) || ustack_sframe_validate(&c)) {
		printf("cachecheck: relocated section invalid\n");
		return 1;
	}
	if (elf_sframe_read(argv[2], &es, &msg) ||
	    ustack_sframe_sec_init(&g, (unsigned long)es.data, es.size, es.vaddr,
			    0, 0)) {
		printf("cachecheck: %s: %s\n", argv[2], msg);
		return 1;
	}
	if (c.num_fdes != g.num_fdes)
		printf("cachecheck: %u FDEs vs %u\n", c.num_fdes, g.num_fdes),
		bad++;
	for (uint32_t i = 0; i < g.num_fdes; i++) {
		struct sframe_fde fde;

		if (ustack_sframe_read_fde(&g, i, &fde))
			break;
		for (uint64_t pc = fde.func_start;
		     pc < fde.func_start + fde.func_size; pc++) {
			struct sframe_rule a, b;
			int ra = ustack_sframe_find(&g, pc, &a);
			int rb = ustack_sframe_find(&c, pc + base, &b);

			n++;
			if (ra != rb || (!ra && !same(&a, &b))) {
				if (!bad)
					printf("first difference at %#llx\n",
					       (unsigned long long)pc);
				bad++;
			}
		}
	}
	printf("cachecheck: %llu PCs, %llu differ\n", n, bad);
	return bad || !n;
}
