// SPDX-License-Identifier: GPL-2.0
/*
 * cfi_rules.c - per-function CFI row tables from .eh_frame via libdw.
 *
 * The FDE list (PC ranges) comes from a walk of .eh_frame with
 * dwarf_next_cfi(), decoding each FDE's initial_location with its CIE's 'R'
 * pointer encoding.  The rules come from libdw itself: for each FDE,
 * dwarf_cfi_addrframe() at its start, then at the end of each row that
 * dwarf_frame_info() reports, so libdw's CFI interpreter (the one elfutils'
 * unwinder uses) is the only interpreter here.  Each row is classified by
 * what SFrame on x86-64 can say (cfi_classify.c; the kinds: cfi_row.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include "cfi_rules.h"
#include "cfi_classify.h"
#include "elf_object.h"
#include "ustack_sframe.h"	/* arch.h: the machine's name */

/* Bound on rows per function: one per byte is the most CFI can make. */
#define MAX_ROWS_PER_FUNC (1u << 20)

struct cie_enc {
	Dwarf_Off off;
	uint8_t enc;		/* DW_EH_PE_* of FDE pointers */
};

/* A LEB128 value at *pp (signed: sign-extended); -1 if it runs past @end. */
static int read_leb(const uint8_t **pp, const uint8_t *end, bool sign,
		    uint64_t *v)
{
	uint64_t r = 0;
	unsigned int shift = 0;

	while (*pp < end && shift < 64) {
		uint8_t b = *(*pp)++;

		r |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (sign && shift < 64 && (b & 0x40))
				r |= ~0ull << shift;
			*v = r;
			return 0;
		}
	}
	return -1;
}

/* The value of DW_EH_PE format @fmt (enc & 0x0f) at *pp; -1 if unknown. */
static int read_value(uint8_t fmt, const uint8_t **pp, const uint8_t *end,
		      uint64_t *v)
{
	const uint8_t *p = *pp;
	bool sign = fmt & 0x08;
	uint32_t u32;
	uint16_t u16;

	switch (fmt) {
	case DW_EH_PE_uleb128:
	case DW_EH_PE_sleb128:
		return read_leb(pp, end, fmt == DW_EH_PE_sleb128, v);
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		if (end - p < 8)
			return -1;
		memcpy(v, p, 8);
		*pp = p + 8;
		return 0;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		if (end - p < 4)
			return -1;
		memcpy(&u32, p, 4);
		*v = sign ? (uint64_t)(int64_t)(int32_t)u32 : u32;
		*pp = p + 4;
		return 0;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		if (end - p < 2)
			return -1;
		memcpy(&u16, p, 2);
		*v = sign ? (uint64_t)(int64_t)(int16_t)u16 : u16;
		*pp = p + 2;
		return 0;
	default:
		return -1;
	}
}

/*
 * Read one DW_EH_PE-encoded pointer at *pp (whose vaddr is @vaddr).  Only
 * absptr and pcrel application are meaningful in .eh_frame FDE headers.
 */
static int read_encoded(uint8_t enc, const uint8_t **pp, const uint8_t *end,
			uint64_t vaddr, uint64_t *val)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;

	if (enc == DW_EH_PE_omit || read_value(enc & 0x0f, &p, end, &v))
		return -1;
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
		break;
	case DW_EH_PE_pcrel:
		v += vaddr;
		break;
	default:
		return -1;	/* textrel/datarel/funcrel: not used in .eh_frame */
	}
	if (enc & DW_EH_PE_indirect)
		return -1;
	*pp = p;
	*val = v;
	return 0;
}

/* The FDE pointer encoding from a CIE's augmentation ('zPLR...'). */
static int cie_fde_encoding(const Dwarf_CIE *cie, uint8_t *enc)
{
	const char *a = cie->augmentation;
	const uint8_t *p = cie->augmentation_data;
	const uint8_t *end = p ? p + cie->augmentation_data_size : NULL;

	*enc = DW_EH_PE_absptr;
	if (!a || a[0] != 'z')
		return (a && a[0]) ? -1 : 0;
	for (a++; *a; a++) {
		uint64_t dummy;

		switch (*a) {
		case 'P': {
			uint8_t penc;

			if (!p || p >= end)
				return -1;
			penc = *p++;
			/* the personality pointer; its value is irrelevant */
			if (read_encoded(penc & 0x7f, &p, end, 0, &dummy))
				return -1;
			break;
		}
		case 'L':
			if (!p || p >= end)
				return -1;
			p++;
			break;
		case 'R':
			if (!p || p >= end)
				return -1;
			*enc = *p++;
			return 0;
		case 'S':
		case 'B':
			break;
		default:
			return 0;	/* unknown letters: 'z' makes it skippable */
		}
	}
	return 0;
}

static int cmp_func(const void *a, const void *b)
{
	const struct cfi_func *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? 1 : (x->end > y->end ? -1 : 0);
}

#define MAX_EXEC_RANGES 64

struct range {
	uint64_t lo, hi;
};

/*
 * The code of an executable PT_LOAD: its file bytes (what lies past
 * p_filesz is zeros, no code), which must lie in the file.  A hostile
 * segment's p_memsz may reach the end of the address space, and every
 * FDE inside it would be taken (gen_synth.c's scans would wrap).
 */
static bool load_code(const GElf_Phdr *ph, size_t filesize, struct range *r)
{
	uint64_t len = ph->p_filesz < ph->p_memsz ? ph->p_filesz : ph->p_memsz;

	if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || !len ||
	    ph->p_offset > filesize || len > filesize - ph->p_offset ||
	    ph->p_vaddr + len < ph->p_vaddr)
		return false;
	*r = (struct range){ ph->p_vaddr, ph->p_vaddr + len };
	return true;
}

/* Executable PT_LOADs; without any (relocatable files), SHF_EXECINSTR. */
static size_t exec_ranges(Elf *elf, struct range *r)
{
	size_t n = 0, phnum, filesize = 0;
	Elf_Scn *scn = NULL;

	elf_rawfile(elf, &filesize);
	if (!elf_getphdrnum(elf, &phnum)) {
		for (size_t i = 0; i < phnum && n < MAX_EXEC_RANGES; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) &&
			    load_code(&ph, filesize, &r[n]))
				n++;
		}
	}
	if (n)
		return n;
	while ((scn = elf_nextscn(elf, scn)) && n < MAX_EXEC_RANGES) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) &&
		    sh.sh_addr + sh.sh_size > sh.sh_addr)
			r[n++] = (struct range){ sh.sh_addr,
						 sh.sh_addr + sh.sh_size };
	}
	return n;
}

static bool in_ranges(const struct range *r, size_t n,
		      const struct cfi_func *f)
{
	for (size_t i = 0; i < n; i++)
		if (f->start >= r[i].lo && f->end <= r[i].hi)
			return true;
	return false;
}

static int push_row(struct cfi_table *t, size_t *cap, const struct cfi_row *r)
{
	if (t->nrows == *cap) {
		size_t nc = *cap ? *cap * 2 : 4096;
		struct cfi_row *nr = realloc(t->rows, nc * sizeof(*nr));

		if (!nr)
			return -1;
		t->rows = nr;
		*cap = nc;
	}
	t->rows[t->nrows++] = *r;
	return 0;
}

static void note_bad(struct cfi_func *f, const struct cfi_row *r)
{
	if (r->kind > f->worst)
		f->worst = r->kind;
	if (r->kind == CFI_ROW_BAD && !f->bad)
		f->bad = r->bad;
}

/* Rows of @f via libdw; rows cover [f->start, f->end) exactly. */
static int func_rows(Dwarf_CFI *cfi, struct cfi_table *t, size_t *cap,
		     struct cfi_func *f)
{
	uint64_t pc = f->start;
	uint32_t n = 0;

	f->first_row = (uint32_t)t->nrows;
	while (pc < f->end && n < MAX_ROWS_PER_FUNC) {
		struct cfi_row r = { .start = pc, .end = f->end };
		Dwarf_Frame *fr = NULL;
		Dwarf_Addr s, e;
		bool signal = false;
		int ra;

		if (dwarf_cfi_addrframe(cfi, pc, &fr) ||
		    (ra = dwarf_frame_info(fr, &s, &e, &signal)) < 0 ||
		    e <= pc) {
			r.kind = CFI_ROW_BAD;
			r.bad = CFI_BAD_LIBDW;
		} else {
			if (e < f->end)
				r.end = e;
			cfi_classify(fr, ra, signal, &r);
		}
		free(fr);
		/* merge with an identical previous row */
		if (n && t->rows[t->nrows - 1].end == r.start) {
			struct cfi_row *p = &t->rows[t->nrows - 1];

			if (p->kind == r.kind && p->bad == r.bad &&
			    p->cfa_reg == r.cfa_reg && p->cfa_off == r.cfa_off &&
			    p->cfa_deref == r.cfa_deref &&
			    p->fp_saved == r.fp_saved &&
			    (!r.fp_saved || p->fp_off == r.fp_off) &&
			    p->plt_k == r.plt_k) {
				p->end = r.end;
				pc = r.end;
				continue;
			}
		}
		if (push_row(t, cap, &r))
			return -1;
		note_bad(f, &r);
		n++;
		pc = r.end;
	}
	f->nrows = n;
	return 0;
}

/* The .eh_frame section of @elf: its header and its bytes; NULL with @err. */
static Elf_Data *eh_frame_data(Elf *elf, GElf_Shdr *sh, char *err,
			       size_t errlen)
{
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	size_t shstrndx;
	const char *name;

	if (elf_getshdrstrndx(elf, &shstrndx)) {
		snprintf(err, errlen, "no section headers");
		return NULL;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (name && !strcmp(name, ".eh_frame") &&
		    sh->sh_type == SHT_PROGBITS)
			break;
	}
	if (!scn) {
		snprintf(err, errlen, "no .eh_frame section");
		return NULL;
	}
	if (!sh->sh_size) {
		snprintf(err, errlen, "empty .eh_frame section");
		return NULL;
	}
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf || data->d_size != sh->sh_size) {
		snprintf(err, errlen, "cannot read .eh_frame");
		return NULL;
	}
	return data;
}

/* Pass 1's state: the CIEs seen (their FDE pointer encodings), the FDEs. */
struct fde_walk {
	const GElf_Shdr *sh;
	const Elf_Data *data;
	struct cie_enc *cies;
	size_t ncie, ciecap, fcap;
};

static int add_cie(struct fde_walk *w, Dwarf_Off off, const Dwarf_CIE *cie)
{
	uint8_t enc;

	if (cie_fde_encoding(cie, &enc))
		enc = DW_EH_PE_omit;
	if (w->ncie == w->ciecap) {
		size_t nc = w->ciecap ? w->ciecap * 2 : 16;
		struct cie_enc *p = realloc(w->cies, nc * sizeof(*p));

		if (!p)
			return -1;
		w->cies = p;
		w->ciecap = nc;
	}
	w->cies[w->ncie].off = off;
	w->cies[w->ncie++].enc = enc;
	return 0;
}

/* An FDE's PC range, with its CIE's encoding; an unreadable one is skipped. */
static int add_fde(struct fde_walk *w, struct cfi_table *t,
		   const Dwarf_FDE *fde)
{
	const uint8_t *p = fde->start, *end = fde->end;
	uint64_t vaddr = w->sh->sh_addr +
			 (uint64_t)(p - (const uint8_t *)w->data->d_buf);
	uint8_t enc = DW_EH_PE_omit;
	uint64_t start, range;

	for (size_t i = w->ncie; i-- > 0;)
		if (w->cies[i].off == fde->CIE_pointer) {
			enc = w->cies[i].enc;
			break;
		}
	if (enc == DW_EH_PE_omit || read_encoded(enc, &p, end, vaddr, &start) ||
	    read_encoded(enc & 0x0f, &p, end, 0, &range) ||
	    !range || start + range <= start)
		return 0;
	if (t->nfuncs == w->fcap) {
		size_t nc = w->fcap ? w->fcap * 2 : 1024;
		struct cfi_func *nf = realloc(t->funcs, nc * sizeof(*nf));

		if (!nf)
			return -1;
		t->funcs = nf;
		w->fcap = nc;
	}
	t->funcs[t->nfuncs++] = (struct cfi_func){
		.start = start, .end = start + range };
	return 0;
}

/* Pass 1: the FDE list, sorted.  Bounded by the section size. */
static int list_fdes(struct fde_walk *w, const unsigned char *ident,
		     struct cfi_table *t)
{
	Dwarf_Off off = 0, next;
	int ret = 0;

	while (off < w->data->d_size && !ret) {
		Dwarf_CFI_Entry ent;
		int rc = dwarf_next_cfi(ident, (Elf_Data *)w->data, true, off,
					&next, &ent);

		if (rc > 0)
			break;
		if (rc < 0) {
			if (next == (Dwarf_Off)-1 || next <= off)
				break;
			off = next;
			continue;
		}
		if (dwarf_cfi_cie_p(&ent))
			ret = add_cie(w, off, &ent.cie);
		else
			ret = add_fde(w, t, &ent.fde);
		if (next == (Dwarf_Off)-1 || next <= off)
			break;
		off = next;
	}
	if (t->nfuncs)
		qsort(t->funcs, t->nfuncs, sizeof(*t->funcs), cmp_func);
	return ret;
}

/*
 * Drop FDEs outside the executable code (a corrupt range would make every
 * PC loop run for ever) and FDEs that overlap the previous one (keep the
 * first, longest).
 */
static void drop_bad_fdes(Elf *elf, struct cfi_table *t)
{
	struct range ex[MAX_EXEC_RANGES];
	size_t w = 0, nex = exec_ranges(elf, ex);

	for (size_t i = 0; i < t->nfuncs; i++) {
		if (!in_ranges(ex, nex, &t->funcs[i])) {
			t->bad_range++;
			continue;
		}
		if (w && t->funcs[i].start < t->funcs[w - 1].end) {
			t->dup_fdes++;
			continue;
		}
		t->funcs[w++] = t->funcs[i];
	}
	t->nfuncs = w;
}

int cfi_rules_load(Elf *elf, struct cfi_table *t, char *err, size_t errlen)
{
	struct fde_walk w = { 0 };
	Dwarf_CFI *cfi;
	GElf_Ehdr eh;
	GElf_Shdr sh = { 0 };
	size_t rcap = 0;
	int ret = -1;

	memset(t, 0, sizeof(*t));
	if (!elf_object_supported(elf, &eh)) {
		snprintf(err, errlen, "not an ELF64 object of this machine (" USTACK_ARCH_NAME ")");
		return -1;
	}
	w.sh = &sh;
	w.data = eh_frame_data(elf, &sh, err, errlen);
	if (!w.data)
		return -1;
	cfi = dwarf_getcfi_elf(elf);
	if (!cfi) {
		snprintf(err, errlen, "libdw: %s", dwarf_errmsg(-1));
		return -1;
	}
	if (list_fdes(&w, eh.e_ident, t))
		goto oom;
	drop_bad_fdes(elf, t);
	/* Pass 2: rows. */
	for (size_t i = 0; i < t->nfuncs; i++)
		if (func_rows(cfi, t, &rcap, &t->funcs[i]))
			goto oom;
	ret = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
	cfi_rules_free(t);
out:
	free(w.cies);
	dwarf_cfi_end(cfi);
	return ret;
}

void cfi_rules_free(struct cfi_table *t)
{
	free(t->funcs);
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

const struct cfi_func *cfi_find_func(const struct cfi_table *t, uint64_t pc)
{
	size_t lo = 0, hi = t->nfuncs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->funcs[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || pc >= t->funcs[lo - 1].end)
		return NULL;
	return &t->funcs[lo - 1];
}

const struct cfi_row *cfi_find_row(const struct cfi_table *t,
				   const struct cfi_func *f, uint64_t pc)
{
	size_t lo = 0, hi = f->nrows;
	const struct cfi_row *rows = t->rows + f->first_row;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rows[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || pc >= rows[lo - 1].end)
		return NULL;
	return &rows[lo - 1];
}
