// SPDX-License-Identifier: GPL-2.0
/*
 * gen_synth.c - FDEs for code without CFI, from its bytes (gen_synth.h).
 *
 * Some code every process runs comes without .eh_frame: ld's PLTs when
 * linked with --no-ld-generated-unwind-info, glibc's crti.o/crtn.o (.init,
 * .fini), assembled without unwind tables.  Their first instructions page-fault at a
 * program's start and at each library's load, where samples land often;
 * without a rule the walk there falls back to rbp, which is no frame
 * pointer in them.  Their shapes are fixed, so each is recognised by its
 * bytes (never by symbols: Debian strips .symtab) and said exactly.
 */
#include <string.h>
#include "gen_sframe.h"
#include "gen_synth.h"

static bool covered(const struct cfi_table *t, uint64_t lo, uint64_t hi)
{
	for (uint64_t pc = lo; pc < hi; pc += 16)
		if (cfi_find_func(t, pc))
			return true;
	return false;
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
		    !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		d = elf_getdata(scn, NULL);
		b = d && d->d_size == sh.sh_size ? d->d_buf : NULL;
		if (!name)
			continue;
		if (!strcmp(name, ".init") || !strcmp(name, ".fini")) {
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
