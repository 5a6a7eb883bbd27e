// SPDX-License-Identifier: GPL-2.0
/* sframe-register dump FILE: the .sframe section, objdump --sframe style. */
#include <inttypes.h>
#include <stdio.h>
#include "cmds.h"

static void print_flags(unsigned int flags)
{
	static const char * const names[] = {
		"SFRAME_F_FDE_SORTED", "SFRAME_F_FRAME_POINTER",
		"SFRAME_F_FDE_FUNC_START_PCREL",
	};
	const char *sep = "";

	printf("    Flags: ");
	if (!flags)
		printf("NONE");
	for (unsigned int i = 0; i < 3; i++) {
		if (flags & (1U << i)) {
			printf("%s%s", sep, names[i]);
			sep = ",\n           ";
		}
	}
	printf("\n");
}

/*
 * A location as objdump 2.47 prints it: reg+off, (reg+off) for a
 * dereference, c+off for a slot at CFA+off.
 */
static const char *od_loc(char *buf, const struct sframe_loc *l)
{
	const char *reg = sframe_reg_name(l->reg);

	switch (l->kind) {
	case SFRAME_LOC_CFA_DEREF:
		snprintf(buf, 32, "c%+" PRId32, l->off);
		break;
	case SFRAME_LOC_CFA_VAL:
		snprintf(buf, 32, "=c%+" PRId32, l->off);
		break;
	case SFRAME_LOC_REG_DEREF:
		snprintf(buf, 32, "(%s%+" PRId32 ")", reg, l->off);
		break;
	case SFRAME_LOC_REG_VAL:
		snprintf(buf, 32, "%s%+" PRId32, reg, l->off);
		break;
	default:
		snprintf(buf, 32, "u");
	}
	return buf;
}

/*
 * The RA column.  objdump 2.40 (v1) prints "u" for the fixed RA rule;
 * 2.47 (v2, v3) prints "f", and "U" where a v3 flex FRE holds a padding
 * word for the RA (its FP follows).
 */
static const char *od_ra(char *buf, const struct sframe_sec *sec,
			 const struct sframe_fre *fre, const struct sframe_rule *r)
{
	bool fixed = r->ra.kind == SFRAME_LOC_CFA_DEREF && r->ra.off == sec->fixed_ra;

	if (sec->version == SFRAME_VERSION_1)
		return fixed ? "u" : od_loc(buf, &r->ra);
	if ((r->flags & SFRAME_R_FLEX) && fre->nwords > 2 && !fre->uwords[2])
		return "U";
	return fixed ? "f" : od_loc(buf, &r->ra);
}

static void print_header(const char *file, const struct sframe_sec *sec,
			 size_t size)
{
	printf("\n%s:     file format " USTACK_ARCH_BFD_NAME "\n\n"
	       "Contents of the SFrame section .sframe:\n", file);
	printf("  Header :\n\n    Version: SFRAME_VERSION_%u\n", sec->version);
	print_flags(sec->flags);
	if (sec->version != SFRAME_VERSION_1 && sec->fixed_fp)
		printf("    CFA fixed FP offset: %d\n", sec->fixed_fp);
	if (sec->version != SFRAME_VERSION_1 && sec->fixed_ra)
		printf("    CFA fixed RA offset: %d\n", sec->fixed_ra);
	if (sec->len < size)
		printf("    Trailing padding: %zu bytes\n", size - sec->len);
	printf("    Num FDEs: %u\n    Num FREs: %u\n", sec->num_fdes, sec->num_fres);
	printf("\n  Function Index :\n");
}

/* One FRE's row: its start and its CFA, FP and RA columns. */
static void print_fre(const struct sframe_sec *sec, const struct sframe_fde *fde,
		      const struct sframe_fre *fre, const struct sframe_rule *r)
{
	bool mask = fde->info & SFRAME_INFO_PCMASK;
	char a[32], b[32], c[32];

	printf("    %016" PRIx64 "  ", mask ? (u64)fre->start :
	       fde->func_start + fre->start);
	if (!(r->flags & SFRAME_R_OUTERMOST))
		printf("%-10s%-10s%-13s\n", od_loc(a, &r->cfa),
		       od_loc(b, &r->fp), od_ra(c, sec, fre, r));
	else if (sec->version == SFRAME_VERSION_1)
		printf("%-10s%-10s%-13s\n", "u", "u", "U");
	else
		printf("RA undefined\n");
}

/* FDE @i: its line, its column heads, its FREs.  0 or an SFRAME_E_ code. */
static int print_fde(const struct sframe_sec *sec, u32 i)
{
	struct sframe_fde fde;
	struct sframe_fre fre;
	struct sframe_rule r;
	u32 pos;
	bool mask;
	int err;

	err = ustack_sframe_read_fde(sec, i, &fde);
	if (err)
		return err;
	mask = fde.info & SFRAME_INFO_PCMASK;
	printf("\n    func idx [%u]: pc = 0x%" PRIx64 ", size = %u bytes",
	       i, fde.func_start, fde.func_size);
	if (sec->version == SFRAME_VERSION_3 &&
	    ((fde.info & SFRAME_INFO_SIGNAL_V3) ||
	     SFRAME_INFO2_FDE_TYPE(fde.info2) == SFRAME_FDE_TYPE_FLEX))
		printf(", attr = \"%s%s\"",
		       (fde.info & SFRAME_INFO_SIGNAL_V3) ? "S" : "",
		       SFRAME_INFO2_FDE_TYPE(fde.info2) ? "F" : "");
	printf("\n    %-16s%-10s%-10s%-13s\n", mask ? "STARTPC[m]" :
	       "STARTPC", "CFA", "FP", "RA");
	pos = fde.fres_off;
	if (!fde.num_fres)
		printf("    (no FREs: outermost)\n");
	for (u32 j = 0; j < fde.num_fres; j++) {
		err = ustack_sframe_read_fre(sec, &fde, &pos, &fre);
		if (!err)
			err = ustack_sframe_fre_rule(sec, &fde, &fre, &r);
		if (err)
			return err;
		print_fre(sec, &fde, &fre, &r);
	}
	return 0;
}

/*
 * The decoder's validation.  gas leaves an object file's FDEs unflagged
 * (ld sorts and flags them): the kernel refuses such a section, a dump of
 * a .o shows it and says so.
 */
static int check_sorted(const char *file, const struct sframe_sec *sec)
{
	int err = ustack_sframe_validate(sec);

	if (err == SFRAME_E_UNSORTED && !(sec->flags & SFRAME_F_FDE_SORTED)) {
		fprintf(stderr, "sframe-register dump: %s: FDEs not flagged sorted (as in an object file): the kernel would refuse this section\n",
			file);
		err = 0;
	}
	return err;
}

int cmd_dump(int argc, char **argv)
{
	struct elf_sframe es;
	struct sframe_sec sec;
	int err = 0, ret = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: sframe-register dump FILE\n");
		return 2;
	}
	if (sframe_load_file("sframe-register dump", argv[1], &es, &sec))
		return 1;
	print_header(argv[1], &sec, es.size);
	for (u32 i = 0; i < sec.num_fdes && !err; i++)
		err = print_fde(&sec, i);
	if (!err)
		err = check_sorted(argv[1], &sec);
	if (err) {
		fprintf(stderr, "sframe-register dump: %s: malformed: %s\n",
			argv[1], ustack_sframe_strerror(err));
		ret = 1;
	}
	elf_sframe_free(&es);
	return ret;
}
