// SPDX-License-Identifier: GPL-2.0
/*
 * mkseeds DIR ELF...: write the fuzz seed corpus: each ELF's .sframe as found
 * and re-encoded as v1, v2, v2+PCREL, v3, v3+PCREL, plus hand-made v3
 * sections with flex, signal and outermost FDEs, and copies of those with
 * trailing bytes that make the target's walk step signal frames and take
 * the FP fallback (fz_walk.h: the same loop as the kernel).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ustack_sframe.h"
#include "sframe_encode.h"
#include "elf_sframe.h"
#include "fz_walk.h"

/* The frame methods (bits) the fuzz target's walk of input @b takes. */
static unsigned int walk_paths(const u8 *b, size_t n)
{
	u64 stack[64], gpr[SFRAME_NR_REGS], ips[32];
	u8 methods[32];
	struct sframe_walk w;
	unsigned int m = 0;

	if (ustack_sframe_sec_init(&fz_sec, (unsigned long)b, n, VADDR, 0, 0))
		return 0;
	fz_stack(b, n, stack, gpr);
	fz_walk_init(&w, stack, gpr, ips, methods, 32);
	ustack_sframe_walk(&w);
	for (u32 i = 1; i < w.nr; i++)
		m |= 1U << methods[i];
	return m;
}

static void put(const char *dir, const char *name, const void *b, size_t n);

/*
 * Seeds for the walk loop: @sec followed by trailing bytes (never read as
 * SFrame, but they are stack words to the target), searched until the
 * walk steps a signal frame, and one that also takes the FP fallback.
 */
static void walk_seeds(const char *dir, const char *base, const void *sec,
		       size_t len)
{
	static const struct { unsigned int want; const char *name; } goals[] = {
		{ 1U << USTACK_METHOD_SIGNAL, "signal" },
		{ 1U << USTACK_METHOD_SIGNAL | 1U << USTACK_METHOD_FP,
		  "signal-fp" },
	};
	u8 *b = malloc(len + 512);
	u64 x = 0x9e3779b97f4a7c15ULL;
	char name[256];

	for (size_t g = 0; b && g < sizeof(goals) / sizeof(goals[0]); g++) {
		int found = 0;

		for (int t = 0; t < 200000 && !found; t++) {
			size_t pad = 8 + t % 504;

			memcpy(b, sec, len);
			for (size_t k = 0; k < pad; k++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				b[len + k] = (u8)x;
			}
			if ((walk_paths(b, len + pad) & goals[g].want) ==
			    goals[g].want) {
				snprintf(name, sizeof(name), "%s-walk-%s", base,
					 goals[g].name);
				put(dir, name, b, len + pad);
				found = 1;
			}
		}
		if (!found)
			fprintf(stderr, "mkseeds: %s: no seed for %s\n", base,
				goals[g].name);
	}
	free(b);
}

static void put(const char *dir, const char *name, const void *b, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(b, 1, n, f) != n) {
		perror(path);
		exit(1);
	}
	fclose(f);
}

/*
 * The encoder's input for @sec's FDEs and FREs (CFA base, offsets, FP slot:
 * what v1 and v2 can say) into @fdes and @fres; 1 on a decoding error.
 */
static int model_of(const struct sframe_sec *sec, struct sfe_fde *fdes,
		    struct sfe_fre *fres)
{
	size_t k = 0;

	for (u32 i = 0; i < sec->num_fdes; i++) {
		struct sframe_fde fde;
		struct sframe_fre fre;
		struct sframe_rule r;
		u32 pos;

		if (ustack_sframe_read_fde(sec, i, &fde))
			return 1;
		fdes[i].start = fde.func_start;
		fdes[i].size = fde.func_size;
		fdes[i].pcmask = fde.info & SFRAME_INFO_PCMASK;
		fdes[i].rep_size = fdes[i].pcmask ? fde.rep_size : 0;
		fdes[i].fres = &fres[k];
		fdes[i].nfres = fde.num_fres;
		pos = fde.fres_off;
		for (u32 j = 0; j < fde.num_fres; j++, k++) {
			if (ustack_sframe_read_fre(sec, &fde, &pos, &fre) ||
			    ustack_sframe_fre_rule(sec, &fde, &fre, &r))
				return 1;
			fres[k].start = fre.start;
			fres[k].cfa_base = r.cfa.reg == SFRAME_REG_RSP;
			fres[k].cfa_off = r.cfa.off;
			fres[k].fp_saved = r.fp.kind == SFRAME_LOC_CFA_DEREF;
			fres[k].fp_off = r.fp.off;
		}
	}
	return 0;
}

/* @path's .sframe as found and re-encoded in every version, into @dir. */
static int elf_seeds(const char *dir, const char *path)
{
	static const struct { int v; unsigned int f; const char *t; } vs[] = {
		{ 1, 0, "v1" }, { 2, 0, "v2" }, { 2, 4, "v2p" }, { 3, 0, "v3" },
		{ 3, 4, "v3p" },
	};
	struct elf_sframe es;
	struct sframe_sec sec;
	const char *msg, *base = strrchr(path, '/');
	struct sfe_fde *fdes;
	struct sfe_fre *fres;
	char name[256];

	base = base ? base + 1 : path;
	if (elf_sframe_read(path, &es, &msg) ||
	    ustack_sframe_sec_init(&sec, (unsigned long)es.data, es.size, 0x400000, 0, 0)) {
		fprintf(stderr, "%s: no usable .sframe\n", path);
		return 1;
	}
	snprintf(name, sizeof(name), "%s-orig", base);
	put(dir, name, es.data, es.size);
	fdes = calloc(sec.num_fdes + 1, sizeof(*fdes));
	fres = calloc(sec.num_fres + 1, sizeof(*fres));
	if (model_of(&sec, fdes, fres))
		return 1;
	for (size_t v = 0; v < 5; v++) {
		void *out;
		size_t len;

		if (sframe_encode(vs[v].v, vs[v].f, 0x400000, fdes,
				  sec.num_fdes, &out, &len))
			return 1;
		snprintf(name, sizeof(name), "%s-%s", base, vs[v].t);
		put(dir, name, out, len);
		free(out);
	}
	free(fdes);
	free(fres);
	elf_sframe_free(&es);
	return 0;
}

/*
 * Hand-made v3: flex (DRAP, register CFA, RA in register), signal,
 * outermost FRE, FRE-less FDE, PCMASK; and v2 with PCMASK; each also with
 * the trailing bytes of walk_seeds().
 */
static int hand_seeds(const char *dir)
{
	struct sfe_fre flex[] = {
		{ .start = 0, .cfa = { SFRAME_LOC_REG_VAL, 7, 8 },
		  .ra = { SFRAME_LOC_CFA_DEREF, 0, -8 } },
		{ .start = 4, .cfa = { SFRAME_LOC_REG_DEREF, 6, -8 },
		  .ra = { SFRAME_LOC_CFA_DEREF, 0, -8 },
		  .fp = { SFRAME_LOC_CFA_DEREF, 0, -16 } },
		{ .start = 9, .cfa = { SFRAME_LOC_REG_VAL, 10, 0 },
		  .ra = { SFRAME_LOC_REG_VAL, 3, 0 } },
		{ .start = 12, .cfa = { SFRAME_LOC_REG_VAL, 7, 300 },
		  .ra = { SFRAME_LOC_REG_DEREF, 12, 40000 },
		  .fp = { SFRAME_LOC_REG_VAL, 13, 0 } },
		{ .start = 20, .outermost = true },
	};
	struct sfe_fre plain[] = {
		{ .start = 0, .cfa_base = 1, .cfa_off = 8 },
		{ .start = 1, .cfa_base = 1, .cfa_off = 16, .fp_saved = true, .fp_off = -16 },
		{ .start = 4, .cfa_base = 0, .cfa_off = 16, .fp_saved = true, .fp_off = -16 },
	};
	struct sfe_fre plt[] = {
		{ .start = 0, .cfa_base = 1, .cfa_off = 8 },
		{ .start = 11, .cfa_base = 1, .cfa_off = 16 },
	};
	struct sfe_fde fdes[] = {
		{ .start = 0x401000, .size = 0x40, .pcmask = true, .rep_size = 16, .fres = plt, .nfres = 2 },
		{ .start = 0x401100, .size = 0x30, .flex = true, .fres = flex, .nfres = 5 },
		{ .start = 0x401200, .size = 0x30, .signal = true, .fres = plain, .nfres = 3 },
		{ .start = 0x401300, .size = 0x30, .fres = NULL, .nfres = 0 },
		{ .start = 0x401400, .size = 0x300, .fres = plain, .nfres = 3 },
	};
	void *out;
	size_t len;

	if (sframe_encode(3, 4, 0x400000, fdes, 5, &out, &len))
		return 1;
	put(dir, "hand-v3-flex", out, len);
	walk_seeds(dir, "hand-v3-flex", out, len);
	free(out);
	if (sframe_encode(2, 4, 0x400000, (struct sfe_fde[]){ fdes[0], fdes[4] }, 2,
			  &out, &len))
		return 1;
	put(dir, "hand-v2-pcmask", out, len);
	walk_seeds(dir, "hand-v2-pcmask", out, len);
	free(out);
	return 0;
}

int main(int argc, char **argv)
{
	for (int a = 2; a < argc; a++)
		if (elf_seeds(argv[1], argv[a]))
			return 1;
	return hand_seeds(argv[1]);
}
