// SPDX-License-Identifier: GPL-2.0
/*
 * gen_synth.c - FDEs for code without CFI, from its bytes (gen_synth.h).
 *
 * Some code every process runs comes without .eh_frame: ld's PLTs when
 * linked with --no-ld-generated-unwind-info, glibc's crti.o/crtn.o (.init,
 * .fini) and libgcc's crtbeginS.o/crtbegin.o, all assembled or compiled
 * without unwind tables.  Their first instructions page-fault at a
 * program's start and at each library's load, where samples land often;
 * without a rule the walk there falls back to rbp, which is no frame
 * pointer in them.  Their shapes are fixed, so each is recognised by its
 * bytes (never by symbols: Debian strips .symtab) and said exactly.
 */
#include <string.h>
#include "gen_sframe.h"
#include "gen_synth.h"

/*
 * Does an FDE overlap [lo, hi)?  (The functions are sorted and disjoint: a
 * search, not a walk of the range, which a hostile section makes 2^60
 * steps long.)
 */
static bool covered(const struct cfi_table *t, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = t->nfuncs;

	while (a < b) {		/* the first function ending past lo */
		size_t mid = a + (b - a) / 2;

		if (t->funcs[mid].end <= lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a < t->nfuncs && t->funcs[a].start < hi;
}

/*
 * Synthesize FDEs for a PLT section without CFI.  Layouts (x86-64 ld):
 *   .plt, lazy:      PLT0 "ff 35 push GOT+8; ff 25 jmp *GOT+16" (16 bytes),
 *                    entries "ff 25 jmp *GOT[n]; 68 push $n; e9 jmp PLT0"
 *                    (push ends at 11) or with IBT "f3 0f 1e fa endbr64;
 *                    68 push $n; ..." (push ends at 9);
 *   .plt.sec, .plt.got: each entry only jumps: CFA = rsp+8 throughout.
 */
static int synth_plt(struct fde_list *l, const char *name, const uint8_t *b,
		     uint64_t addr, uint64_t size)
{
	struct sfe_fre f = { .cfa_base = SFE_BASE_SP, .cfa_off = 8 };
	unsigned int k;
	int rc;

	if (!strcmp(name, ".plt.sec") || !strcmp(name, ".plt.got")) {
		rc = fde_list_add(l, addr, size, false);
		if (rc)
			return rc;
		return fde_list_add_fre(l, &f);
	}
	if (strcmp(name, ".plt") || size < 32 || (size & 15) || (addr & 15) ||
	    !b)
		return 1;
	if (b[0] != 0xff || b[1] != 0x35)
		return 1;
	if (b[16] == 0xff && b[17] == 0x25 && b[22] == 0x68)
		k = 11;
	else if (b[16] == 0xf3 && b[17] == 0x0f && b[18] == 0x1e &&
		 b[19] == 0xfa && b[20] == 0x68)
		k = 9;
	else
		return 1;
	rc = fde_list_add(l, addr, 16, false);
	if (rc)
		return rc;
	f.cfa_off = 16;
	if (fde_list_add_fre(l, &f))
		return -1;
	f.start = 6;
	f.cfa_off = 24;
	if (fde_list_add_fre(l, &f))
		return -1;
	return fde_list_plt_entries(l, addr + 16, addr + size, k, NULL);
}

/*
 * Synthesize the FDE of .init or .fini: crti.o's "[endbr64] sub $8,%rsp",
 * crtn.o's "add $8,%rsp; ret", and between them at most calls (_init's of
 * __gmon_start__).
 */
static int synth_crti(struct fde_list *l, const uint8_t *b, uint64_t addr,
		      uint64_t size)
{
	static const uint8_t endbr[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	static const uint8_t sub8[] = { 0x48, 0x83, 0xec, 0x08 };
	static const uint8_t add8_ret[] = { 0x48, 0x83, 0xc4, 0x08, 0xc3 };
	struct sfe_fre f = { .cfa_base = SFE_BASE_SP, .cfa_off = 8 };
	uint64_t k = 0;
	int rc;

	if (!b || size > 64)
		return 1;
	if (size >= sizeof(endbr) && !memcmp(b, endbr, sizeof(endbr)))
		k = sizeof(endbr);
	if (size < k + sizeof(sub8) + sizeof(add8_ret) ||
	    memcmp(b + k, sub8, sizeof(sub8)) ||
	    memcmp(b + size - sizeof(add8_ret), add8_ret, sizeof(add8_ret)))
		return 1;
	rc = fde_list_add(l, addr, size, false);
	if (rc)
		return rc;
	if (fde_list_add_fre(l, &f))
		return -1;
	f.start = (u32)(k + sizeof(sub8));
	f.cfa_off = 16;
	if (fde_list_add_fre(l, &f))
		return -1;
	f.start = (u32)(size - 1);	/* the ret */
	f.cfa_off = 8;
	return fde_list_add_fre(l, &f) ? -1 : 0;
}

/*
 * libgcc's crtbegin code: deregister_tm_clones, register_tm_clones,
 * __do_global_dtors_aux and frame_dummy, the same bytes from gcc 12 to 16
 * but in the holes: fields the linker fills, and the opcode of a GOT load
 * ld may relax to "mov $0".  Each function keeps CFA = rsp+8 but
 * __do_global_dtors_aux between its "push %rbp" and "pop %rbp".
 */
struct crtbegin {
	const uint8_t *bytes;
	size_t size;
	const uint8_t (*holes)[2];	/* offset, length; ascending */
	size_t nholes;
	struct {
		uint8_t start, size;
		uint8_t pushed, popped;	/* from start, 0: no push */
	} fn[4];
};

/* crtbeginS.o: PIE executables and shared libraries */
static const uint8_t crtbegin_s_bytes[] = {
	0x48, 0x8d, 0x3d, 0x00, 0x00, 0x00, 0x00, 0x48, 0x8d, 0x05, 0x00,
	0x00, 0x00, 0x00, 0x48, 0x39, 0xf8, 0x74, 0x15, 0x48, 0x8b, 0x05,
	0x00, 0x00, 0x00, 0x00, 0x48, 0x85, 0xc0, 0x74, 0x09, 0xff, 0xe0,
	0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00, 0xc3, 0x0f, 0x1f, 0x80,
	0x00, 0x00, 0x00, 0x00,
	/* 0x30 */
	0x48, 0x8d, 0x3d, 0x00, 0x00, 0x00, 0x00, 0x48, 0x8d, 0x35, 0x00,
	0x00, 0x00, 0x00, 0x48, 0x29, 0xfe, 0x48, 0x89, 0xf0, 0x48, 0xc1,
	0xee, 0x3f, 0x48, 0xc1, 0xf8, 0x03, 0x48, 0x01, 0xc6, 0x48, 0xd1,
	0xfe, 0x74, 0x14, 0x48, 0x8b, 0x05, 0x00, 0x00, 0x00, 0x00, 0x48,
	0x85, 0xc0, 0x74, 0x08, 0xff, 0xe0, 0x66, 0x0f, 0x1f, 0x44, 0x00,
	0x00, 0xc3, 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00,
	/* 0x70 */
	0xf3, 0x0f, 0x1e, 0xfa, 0x80, 0x3d, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x75, 0x2b, 0x55, 0x48, 0x83, 0x3d, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x48, 0x89, 0xe5, 0x74, 0x0c, 0x48, 0x8b, 0x3d, 0x00, 0x00, 0x00,
	0x00, 0xe8, 0x00, 0x00, 0x00, 0x00, 0xe8, 0x64, 0xff, 0xff, 0xff,
	0xc6, 0x05, 0x00, 0x00, 0x00, 0x00, 0x01, 0x5d, 0xc3, 0x0f, 0x1f,
	0x00, 0xc3, 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00,
	/* 0xb0 */
	0xf3, 0x0f, 0x1e, 0xfa, 0xe9, 0x77, 0xff, 0xff, 0xff,
};
static const uint8_t crtbegin_s_holes[][2] = {
	{ 0x03, 4 }, { 0x0a, 4 }, { 0x14, 6 }, { 0x33, 4 }, { 0x3a, 4 },
	{ 0x55, 6 }, { 0x76, 4 }, { 0x81, 4 }, { 0x8e, 4 }, { 0x93, 4 },
	{ 0x9e, 4 },
};

/* crtbegin.o: executables that are not PIE (absolute addresses) */
static const uint8_t crtbegin_bytes[] = {
	0xb8, 0x00, 0x00, 0x00, 0x00, 0x48, 0x3d, 0x00, 0x00, 0x00, 0x00,
	0x74, 0x13, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x48, 0x85, 0xc0, 0x74,
	0x09, 0xbf, 0x00, 0x00, 0x00, 0x00, 0xff, 0xe0, 0x66, 0x90, 0xc3,
	0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x0f, 0x1f, 0x40, 0x00,
	/* 0x30 */
	0xbe, 0x00, 0x00, 0x00, 0x00, 0x48, 0x81, 0xee, 0x00, 0x00, 0x00,
	0x00, 0x48, 0x89, 0xf0, 0x48, 0xc1, 0xee, 0x3f, 0x48, 0xc1, 0xf8,
	0x03, 0x48, 0x01, 0xc6, 0x48, 0xd1, 0xfe, 0x74, 0x11, 0xb8, 0x00,
	0x00, 0x00, 0x00, 0x48, 0x85, 0xc0, 0x74, 0x07, 0xbf, 0x00, 0x00,
	0x00, 0x00, 0xff, 0xe0, 0xc3, 0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x0f, 0x1f, 0x40, 0x00,
	/* 0x70 */
	0xf3, 0x0f, 0x1e, 0xfa, 0x80, 0x3d, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x75, 0x13, 0x55, 0x48, 0x89, 0xe5, 0xe8, 0x7a, 0xff, 0xff, 0xff,
	0xc6, 0x05, 0x00, 0x00, 0x00, 0x00, 0x01, 0x5d, 0xc3, 0x90, 0xc3,
	0x66, 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x0f, 0x1f, 0x40, 0x00,
	/* 0xa0 */
	0xf3, 0x0f, 0x1e, 0xfa, 0xeb, 0x8a,
};
static const uint8_t crtbegin_holes[][2] = {
	{ 0x01, 4 }, { 0x07, 4 }, { 0x0e, 4 }, { 0x18, 4 }, { 0x31, 4 },
	{ 0x38, 4 }, { 0x50, 4 }, { 0x5a, 4 }, { 0x76, 4 }, { 0x88, 4 },
};

static const struct crtbegin crtbegins[] = {
	{ crtbegin_s_bytes, sizeof(crtbegin_s_bytes), crtbegin_s_holes,
	  sizeof(crtbegin_s_holes) / 2,
	  { { 0x00, 0x30, 0, 0 }, { 0x30, 0x40, 0, 0 },
	    { 0x70, 0x40, 0x0e, 0x34 }, { 0xb0, 0x09, 0, 0 } } },
	{ crtbegin_bytes, sizeof(crtbegin_bytes), crtbegin_holes,
	  sizeof(crtbegin_holes) / 2,
	  { { 0x00, 0x30, 0, 0 }, { 0x30, 0x40, 0, 0 },
	    { 0x70, 0x30, 0x0e, 0x1e }, { 0xa0, 0x06, 0, 0 } } },
};

static bool crtbegin_match(const struct crtbegin *c, const uint8_t *b)
{
	size_t i = 0;

	for (size_t h = 0; h <= c->nholes; h++) {
		size_t end = h < c->nholes ? c->holes[h][0] : c->size;

		if (memcmp(b + i, c->bytes + i, end - i))
			return false;
		if (h < c->nholes)
			i = end + c->holes[h][1];
	}
	return true;
}

static int crtbegin_emit(struct fde_list *l, const struct crtbegin *c,
			 uint64_t addr)
{
	struct sfe_fre f = { .cfa_base = SFE_BASE_SP, .cfa_off = 8 };

	for (size_t i = 0; i < 4; i++) {
		int rc = fde_list_add(l, addr + c->fn[i].start, c->fn[i].size,
				      false);

		f.start = 0;
		f.cfa_off = 8;
		f.fp_saved = false;
		if (rc || fde_list_add_fre(l, &f))
			return -1;
		if (!c->fn[i].pushed)
			continue;
		f.start = c->fn[i].pushed;
		f.cfa_off = 16;
		f.fp_saved = true;
		f.fp_off = -16;
		if (fde_list_add_fre(l, &f))
			return -1;
		f.start = c->fn[i].popped;
		f.cfa_off = 8;
		f.fp_saved = false;
		if (fde_list_add_fre(l, &f))
			return -1;
	}
	return 0;
}

/*
 * Look for crtbegin code in the 16-byte aligned gaps of [addr, addr+size)
 * (@b its bytes) that .eh_frame leaves: the functions are sorted.  One
 * copy per object, at most.
 */
static int synth_crtbegin(struct fde_list *l, const struct cfi_table *t,
			  const uint8_t *b, uint64_t addr, uint64_t size)
{
	uint64_t end = addr + size, lo = addr;

	/* a hostile file's section may end past the address space */
	if (end < addr || end > UINT64_MAX - 16)
		return 1;
	for (size_t i = 0; i <= t->nfuncs; i++) {
		const struct cfi_func *fn = i < t->nfuncs ? &t->funcs[i] : NULL;
		uint64_t hi = fn && fn->start < end ? fn->start : end;

		/* addr <= lo <= end <= UINT64_MAX - 16: no wrap below */
		for (uint64_t p = (lo + 15) & ~15ull; p < hi; p += 16)
			for (size_t k = 0; k < 2; k++) {
				const struct crtbegin *c = &crtbegins[k];

				if (hi - p >= c->size &&
				    crtbegin_match(c, b + (p - addr)))
					return crtbegin_emit(l, c, p);
			}
		if (!fn || fn->start >= end)
			break;
		/* an FDE may end past the section (and near 2^64): not lo */
		if (fn->end > lo)
			lo = fn->end < end ? fn->end : end;
	}
	return 1;
}

/* Every executable section: the shapes above where .eh_frame says nothing. */
int gen_synth(Elf *elf, const struct cfi_table *t, struct fde_list *l,
	      struct gen_stats *st)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		const uint8_t *b;
		Elf_Data *d;
		int rc;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size ||
		    sh.sh_addr + sh.sh_size < sh.sh_addr)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		d = elf_getdata(scn, NULL);
		b = d && d->d_size == sh.sh_size ? d->d_buf : NULL;
		if (!name)
			continue;
		if (!strcmp(name, ".text") && b) {
			rc = synth_crtbegin(l, t, b, sh.sh_addr, sh.sh_size);
			st->synth_crtbegin += !rc;
		} else if (!strcmp(name, ".init") || !strcmp(name, ".fini")) {
			if (covered(t, sh.sh_addr, sh.sh_addr + sh.sh_size))
				continue;
			rc = synth_crti(l, b, sh.sh_addr, sh.sh_size);
			st->synth_crt += !rc;
		} else if (!strncmp(name, ".plt", 4)) {
			if (covered(t, sh.sh_addr, sh.sh_addr + sh.sh_size))
				continue;
			rc = synth_plt(l, name, b, sh.sh_addr, sh.sh_size);
			st->synth_plt += !rc;
		} else {
			continue;
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}
