// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-register check FILE [-v] [--max N]
 *
 * Compare FILE's .sframe with its .eh_frame, PC by PC.  For every PC of
 * every .eh_frame FDE, the .eh_frame row (libdw, cfi_rules.c) is compared
 * with ustack_sframe_find()'s rule (module/ustack_sframe.c, the walker's decoder):
 * CFA base register and offset, rbp rule, RA rule, outermost.
 *
 * Per PC, one of:
 *   agree     both give the same rule;
 *   mismatch  both give a rule, and they differ; or .eh_frame says the
 *             function is outermost / inexpressible and .sframe gives an
 *             ordinary rule anyway (a walker would go wrong there);
 *   left out  .sframe has no rule (no FDE) where .eh_frame has one; counted
 *             apart when .eh_frame's rule is inexpressible or outermost,
 *             which is the generator's documented choice;
 * PCs covered by .sframe but by no .eh_frame FDE are counted as "extra".
 * Prints the first mismatches (all with -v) and a summary line; exits 1 on
 * any mismatch or a malformed section, 2 on usage errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gelf.h>
#include "cmds.h"
#include "cfi_rules.h"

struct counts {
	uint64_t pcs, agree, mismatch, missing, left_bad, left_outer, extra;
	uint64_t outer_agree;
};

static void fmt_sf(char *b, size_t n, const struct sframe_rule *r);

static void fmt_eh(char *b, size_t n, const struct cfi_row *r, uint64_t pc)
{
	struct sframe_rule s = { 0 };

	switch (r->kind) {
	case CFI_ROW_OUTERMOST:
		snprintf(b, n, "outermost");
		return;
	case CFI_ROW_BAD:
		snprintf(b, n, "inexpressible(%s)", cfi_bad_name(r->bad));
		return;
	}
	cfi_row_locs(r, pc, &s.cfa, &s.ra, &s.fp);
	fmt_sf(b, n, &s);
}

static void fmt_loc(char *b, size_t n, const struct sframe_loc *l)
{
	switch (l->kind) {
	case SFRAME_LOC_SAME:
		snprintf(b, n, "u");
		break;
	case SFRAME_LOC_CFA_DEREF:
		snprintf(b, n, "c%+d", l->off);
		break;
	case SFRAME_LOC_CFA_VAL:
		snprintf(b, n, "cfa%+d", l->off);
		break;
	case SFRAME_LOC_REG_DEREF:
		snprintf(b, n, "*(r%d%+d)", l->reg, l->off);
		break;
	default:
		snprintf(b, n, "r%d%+d", l->reg, l->off);
		break;
	}
}

static void fmt_sf(char *b, size_t n, const struct sframe_rule *r)
{
	char c[40], f[40], a[40];

	if (r->flags & SFRAME_R_OUTERMOST) {
		snprintf(b, n, "outermost");
		return;
	}
	if (r->cfa.kind == SFRAME_LOC_REG_VAL &&
	    (r->cfa.reg == SFRAME_REG_RSP || r->cfa.reg == SFRAME_REG_RBP))
		snprintf(c, sizeof(c), "%s%+d",
			 r->cfa.reg == SFRAME_REG_RSP ? "sp" : "fp",
			 r->cfa.off);
	else
		fmt_loc(c, sizeof(c), &r->cfa);
	fmt_loc(f, sizeof(f), &r->fp);
	fmt_loc(a, sizeof(a), &r->ra);
	snprintf(b, n, "cfa=%s fp=%s ra=%s", c, f, a);
}

static bool same_loc(const struct sframe_loc *a, const struct sframe_loc *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case SFRAME_LOC_SAME:
		return true;
	case SFRAME_LOC_CFA_DEREF:
	case SFRAME_LOC_CFA_VAL:
		return a->off == b->off;
	default:
		return a->reg == b->reg && a->off == b->off;
	}
}

static bool same_rule(const struct cfi_row *e, uint64_t pc,
		      const struct sframe_rule *s)
{
	struct sframe_loc cfa, ra, fp;

	if (s->flags & SFRAME_R_OUTERMOST)
		return false;
	cfi_row_locs(e, pc, &cfa, &ra, &fp);
	return same_loc(&s->cfa, &cfa) && same_loc(&s->ra, &ra) &&
	       same_loc(&s->fp, &fp);
}

/* One PC of .eh_frame row @r of function @f against .sframe's rule there. */
static void check_pc(const struct sframe_sec *sec, const struct cfi_func *f,
		     const struct cfi_row *r, uint64_t pc, struct counts *c,
		     unsigned long max_show)
{
	struct sframe_rule s;
	char a[160], b[160];
	bool bad;
	int rc;

	c->pcs++;
	rc = ustack_sframe_find(sec, pc, &s);
	if (rc == SFRAME_E_NOINFO) {
		if (f->worst == CFI_ROW_BAD || f->worst == CFI_ROW_PLT ||
		    f->worst == CFI_ROW_REG)
			c->left_bad++;
		else if (f->worst == CFI_ROW_OUTERMOST)
			c->left_outer++;
		else
			c->missing++;
		return;
	}
	if (rc) {
		fprintf(stderr, "check: %#llx: %s\n", (unsigned long long)pc,
			ustack_sframe_strerror(rc));
		c->mismatch++;
		return;
	}
	if (r->kind == CFI_ROW_OUTERMOST) {
		bad = !(s.flags & SFRAME_R_OUTERMOST);
		c->outer_agree += !bad;
	} else {
		bad = r->kind == CFI_ROW_BAD || !same_rule(r, pc, &s);
	}
	if (!bad) {
		c->agree++;
		return;
	}
	if (c->mismatch++ < max_show) {
		fmt_eh(a, sizeof(a), r, pc);
		fmt_sf(b, sizeof(b), &s);
		printf("mismatch %#llx eh_frame: %s sframe: %s\n",
		       (unsigned long long)pc, a, b);
	}
}

/* Every PC of every .eh_frame FDE. */
static void check_eh_frame(const struct sframe_sec *sec,
			   const struct cfi_table *t, struct counts *c,
			   unsigned long max_show)
{
	for (size_t i = 0; i < t->nfuncs; i++) {
		const struct cfi_func *f = &t->funcs[i];
		const struct cfi_row *rows = t->rows + f->first_row;

		for (uint32_t j = 0; j < f->nrows; j++)
			for (uint64_t pc = rows[j].start; pc < rows[j].end; pc++)
				check_pc(sec, f, &rows[j], pc, c, max_show);
	}
}

/* PCs .sframe covers that no .eh_frame FDE does. */
static void count_extra(const struct sframe_sec *sec,
			const struct cfi_table *t, struct counts *c)
{
	for (uint32_t i = 0; i < sec->num_fdes; i++) {
		struct sframe_fde fde;

		if (ustack_sframe_read_fde(sec, i, &fde))
			break;
		if (fde.func_size > (1u << 24)) {
			c->extra += fde.func_size;	/* do not walk 4 GiB */
			continue;
		}
		for (uint64_t pc = fde.func_start;
		     pc < fde.func_start + fde.func_size; pc++)
			if (!cfi_find_func(t, pc))
				c->extra++;
	}
}

/* FILE's .sframe, read and validated for the decoder; 0 or 1. */
static int load_sframe(const char *file, struct elf_sframe *es,
		       struct sframe_sec *sec)
{
	const char *msg = "";
	int rc;

	rc = elf_sframe_read(file, es, &msg);
	if (rc) {
		fprintf(stderr, "check: %s: %s\n", file,
			rc == -ENOENT ? "no .sframe section" : msg);
		return 1;
	}
	rc = ustack_sframe_sec_init(sec, (unsigned long)es->data, es->size,
				    es->vaddr, 0, 0);
	if (!rc)
		rc = ustack_sframe_validate(sec);
	if (rc) {
		fprintf(stderr, "check: %s: bad .sframe: %s\n", file,
			ustack_sframe_strerror(rc));
		elf_sframe_free(es);
		return 1;
	}
	return 0;
}

static void print_counts(const char *file, const struct sframe_sec *sec,
			 const struct cfi_table *t, const struct counts *c)
{
	printf("check: %s: v%u, %zu .eh_frame FDEs, %llu PCs: %llu agree "
	       "(%llu outermost), %llu mismatch, %llu missing, left out "
	       "%llu inexpressible + %llu outermost, %llu extra\n",
	       file, sec->version, t->nfuncs, (unsigned long long)c->pcs,
	       (unsigned long long)c->agree, (unsigned long long)c->outer_agree,
	       (unsigned long long)c->mismatch, (unsigned long long)c->missing,
	       (unsigned long long)c->left_bad,
	       (unsigned long long)c->left_outer,
	       (unsigned long long)c->extra);
}

int cmd_check(int argc, char **argv)
{
	const char *file = NULL;
	unsigned long max_show = 20;
	struct elf_sframe es;
	struct cfi_table t;
	struct sframe_sec sec;
	struct counts c = { 0 };
	char err[256];
	int fd, ret = 1;
	Elf *elf;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			max_show = ~0ul;
		else if (!strcmp(argv[i], "--max") && i + 1 < argc)
			max_show = strtoul(argv[++i], NULL, 0);
		else if (argv[i][0] == '-' || file) {
			fprintf(stderr, "usage: sframe-register check FILE "
				"[-v] [--max N]\n");
			return 2;
		} else
			file = argv[i];
	}
	if (!file) {
		fprintf(stderr, "usage: sframe-register check FILE\n");
		return 2;
	}
	if (load_sframe(file, &es, &sec))
		return 1;
	elf_version(EV_CURRENT);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	if (!elf || cfi_rules_load(elf, &t, err, sizeof(err))) {
		fprintf(stderr, "check: %s: %s\n", file,
			elf ? err : "cannot open");
	} else {
		check_eh_frame(&sec, &t, &c, max_show);
		count_extra(&sec, &t, &c);
		print_counts(file, &sec, &t, &c);
		ret = c.mismatch ? 1 : 0;
		cfi_rules_free(&t);
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	elf_sframe_free(&es);
	return ret;
}
