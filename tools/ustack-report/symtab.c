// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: an object's symbols sorted by address, so that naming a
 * frame is a binary search.  dwfl_module_addrinfo() scans the whole table
 * for every address: with libnode's symbols, a minute of node sampled at
 * 999 Hz took 73 s to report on the host (81% in that scan) and more than
 * 20 minutes in a TCG guest.  The symbols are libdwfl's own
 * (dwfl_module_getsym_info(): .symtab, else .dynsym, and MiniDebugInfo),
 * read once.  The choice follows libdwfl's: the nearest symbol that
 * contains the address (global before weak before local, sized before
 * sizeless, at one address), else the nearest symbol if it is sizeless
 * and in the address's section.
 */
#include <stddef.h>
#include <stdlib.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "report.h"

struct sym {
	uint64_t lo, size;
	uint64_t hi;		/* sizeless: the end of its section */
	const char *name;	/* libdwfl's, valid while the module is */
	int rank;		/* lower wins at one address */
};

struct symtab {
	struct sym *s;
	size_t n;
};

/* How far back a symbol containing the address is looked for (nesting). */
#define SYMTAB_BACK	64

static int rank_of(const GElf_Sym *sym)
{
	int bind = GELF_ST_BIND(sym->st_info);
	int r = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;

	return 2 * r + !sym->st_size;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static int wanted(const GElf_Sym *sym, GElf_Word shndx, const char *name)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return name && *name && shndx != SHN_UNDEF && shndx != SHN_ABS &&
	       shndx != SHN_COMMON && type != STT_SECTION &&
	       type != STT_FILE && type != STT_TLS;
}

/*
 * How far a sizeless symbol reaches: to its section's end, that byte
 * included, as libdwfl takes it (eu-addr2line names the byte after .init
 * by _init, the next not).
 */
static uint64_t section_end(Elf *elf, GElf_Word shndx, GElf_Addr bias,
			    uint64_t lo)
{
	GElf_Shdr sh;

	if (!elf || !gelf_getshdr(elf_getscn(elf, shndx), &sh) ||
	    sh.sh_addr + bias > lo)
		return lo;
	return sh.sh_addr + bias + sh.sh_size + 1;
}

/* The symbols of @mod, sorted; NULL if it has none. */
struct symtab *symtab_build(Dwfl_Module *mod)
{
	int i, n = dwfl_module_getsymtab(mod);
	struct symtab *t;

	if (n <= 1)
		return NULL;
	t = xalloc(sizeof(*t));
	t->s = xrealloc(NULL, n * sizeof(*t->s));
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		GElf_Word shndx;
		Elf *elf;
		Dwarf_Addr bias;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &a,
							   &shndx, &elf, &bias);

		if (!wanted(&sym, shndx, name))
			continue;
		t->s[t->n++] = (struct sym){
			a, sym.st_size, sym.st_size ? a + sym.st_size :
				section_end(elf, shndx, bias, a),
			name, rank_of(&sym) };
	}
	qsort(t->s, t->n, sizeof(*t->s), cmp_sym);
	return t;
}

/* The name of the symbol for @addr (as libdwfl biases it), *@off in it. */
const char *symtab_lookup(const struct symtab *t, uint64_t addr,
			  uint64_t *off)
{
	size_t lo, k;
	const struct sym *best = NULL;

	if (!t)
		return NULL;
	lo = first_above(t->s, t->n, sizeof(*t->s), offsetof(struct sym, lo),
			 addr);
	/* nearest first; at one address the better ranks come first */
	for (k = lo; k-- > 0 && lo - k <= SYMTAB_BACK;) {
		const struct sym *s = &t->s[k];

		if (best && s->lo != best->lo)
			break;
		if (s->size && addr - s->lo < s->size)
			best = s;
	}
	/* else the nearest address's best sizeless symbol */
	for (k = best ? 0 : lo; k-- > 0 && t->s[k].lo == t->s[lo - 1].lo;)
		if (!t->s[k].size && addr < t->s[k].hi)
			best = &t->s[k];
	if (!best)
		return NULL;
	*off = addr - best->lo;
	return best->name;
}
