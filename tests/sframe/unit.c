// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the SFrame core: hand-made v1/v2/v3 sections (flex, signal,
 * outermost, PCMASK, padding), malformed sections (each rejected with its own
 * code), the step's sanity checks and the walk's end reasons.  Built with
 * ASan and UBSan.  Prints PASS:/FAIL: sframe/unit-<name> lines.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ustack_sframe.h"
#include "sframe_encode.h"
#include "uapi/ustack.h"

static void check(const char *name, int ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void check(const char *name, int ok, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("PASS: sframe/unit-%s\n", name);
		return;
	}
	printf("FAIL: sframe/unit-%s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

#define VADDR	0x10000ULL	/* where the hand-made sections "live" */

static u8 *enc(int v, unsigned int flags, const struct sfe_fde *f, size_t n,
	       size_t *len)
{
	void *out;
	int err = sframe_encode(v, flags, VADDR, f, n, &out, len);

	if (err) {
		printf("# encode v%d: %s\n", v, strerror(-err));
		return NULL;
	}
	return out;
}

/* init + find at @pc; the first error. */
static int init_find(const u8 *b, size_t len, u64 pc, struct sframe_rule *r)
{
	struct sframe_sec sec;
	int err = ustack_sframe_sec_init(&sec, (unsigned long)b, len, VADDR, 0, 0);

	return err ? err : ustack_sframe_find(&sec, pc, r);
}

static int init_validate(const u8 *b, size_t len)
{
	struct sframe_sec sec;
	int err = ustack_sframe_sec_init(&sec, (unsigned long)b, len, VADDR, 0, 0);

	return err ? err : ustack_sframe_validate(&sec);
}

static const struct sframe_loc L_SAME = { SFRAME_LOC_SAME, 0, 0 };
static const struct sframe_loc L_RA = { SFRAME_LOC_CFA_DEREF, 0, -8 };

static int loc_eq(const struct sframe_loc *a, int kind, int reg, int off)
{
	return a->kind == kind && a->reg == reg && a->off == off;
}

/* ---- well-formed sections ------------------------------------------------ */

/*
 * The default section: a function of four FREs (SP, SP + saved FP, FP,
 * a large CFA offset) and a PLT of 16-byte PCMASK entries.
 */
static const struct sfe_fre dflt_f0[] = {
	{ .start = 0, .cfa_base = SFE_BASE_SP, .cfa_off = 8 },
	{ .start = 1, .cfa_base = SFE_BASE_SP, .cfa_off = 16,
	  .fp_saved = true, .fp_off = -16 },
	{ .start = 4, .cfa_base = SFE_BASE_FP, .cfa_off = 16,
	  .fp_saved = true, .fp_off = -16 },
	{ .start = 0x30, .cfa_base = SFE_BASE_SP, .cfa_off = 100000 },
};
static const struct sfe_fre dflt_plt[] = {
	{ .start = 0, .cfa_base = SFE_BASE_SP, .cfa_off = 8 },
	{ .start = 11, .cfa_base = SFE_BASE_SP, .cfa_off = 16 },
};
static const struct { u64 pc; int err, base, off, fp; } dflt_cases[] = {
	/* pc, err, cfa base, cfa off, fp off (0: unchanged) */
	{ 0xfff, SFRAME_E_NOINFO, 0, 0, 0 },
	{ 0x1000, 0, SFRAME_REG_RSP, 8, 0 },
	{ 0x100a, 0, SFRAME_REG_RSP, 8, 0 },
	{ 0x100b, 0, SFRAME_REG_RSP, 16, 0 },
	{ 0x1030, 0, SFRAME_REG_RSP, 8, 0 },	/* block 3 */
	{ 0x103f, 0, SFRAME_REG_RSP, 16, 0 },
	{ 0x1040, SFRAME_E_NOINFO, 0, 0, 0 },		/* gap */
	{ 0x1fff, SFRAME_E_NOINFO, 0, 0, 0 },
	{ 0x2000, 0, SFRAME_REG_RSP, 8, 0 },
	{ 0x2001, 0, SFRAME_REG_RSP, 16, -16 },
	{ 0x2003, 0, SFRAME_REG_RSP, 16, -16 },
	{ 0x2004, 0, SFRAME_REG_RBP, 16, -16 },
	{ 0x2030, 0, SFRAME_REG_RSP, 100000, 0 },
	{ 0x203f, 0, SFRAME_REG_RSP, 100000, 0 },
	{ 0x2040, SFRAME_E_NOINFO, 0, 0, 0 },
};

/* How many of dflt_cases' PCs @b (a default section named @name) gets wrong. */
static int default_wrong_pcs(const char *name, const u8 *b, size_t len)
{
	struct sframe_rule r;
	int bad = 0;

	for (size_t i = 0; i < sizeof(dflt_cases) / sizeof(dflt_cases[0]); i++) {
		int err = init_find(b, len, dflt_cases[i].pc, &r);

		if (err != dflt_cases[i].err) {
			printf("# %s: 0x%llx: %s\n", name,
			       (unsigned long long)dflt_cases[i].pc,
			       ustack_sframe_strerror(err));
			bad++;
			continue;
		}
		if (err)
			continue;
		if (!loc_eq(&r.cfa, SFRAME_LOC_REG_VAL, dflt_cases[i].base,
			    dflt_cases[i].off) ||
		    !loc_eq(&r.ra, L_RA.kind, 0, -8) ||
		    (dflt_cases[i].fp ? !loc_eq(&r.fp, SFRAME_LOC_CFA_DEREF, 0,
						dflt_cases[i].fp) :
					r.fp.kind != SFRAME_LOC_SAME) ||
		    !!(r.flags & SFRAME_R_PCMASK) != (dflt_cases[i].pc < 0x2000)) {
			printf("# %s: 0x%llx: wrong rule\n", name,
			       (unsigned long long)dflt_cases[i].pc);
			bad++;
		}
	}
	return bad;
}

/* trailing zero padding (ld 2.40's PT_GNU_SFRAME) after section @b */
static void test_trailing_padding(const u8 *b, size_t len)
{
	struct sframe_rule r;
	u8 *p = calloc(1, len + 40);

	memcpy(p, b, len);
	check("trailing-padding",
	      init_validate(p, len + 40) == 0 &&
	      init_find(p, len + 40, 0x2004, &r) == 0 &&
	      r.cfa.reg == SFRAME_REG_RBP, "padding rejected");
	free(p);
}

static void test_default_all_versions(void)
{
	struct sfe_fde fdes[] = {
		{ .start = 0x2000, .size = 0x40, .fres = dflt_f0, .nfres = 4 },
		{ .start = 0x1000, .size = 0x40, .pcmask = true, .rep_size = 16,
		  .fres = dflt_plt, .nfres = 2 },
	};
	static const struct { int v; unsigned int flags; const char *n; } vs[] = {
		{ 1, 0, "v1" }, { 2, 0, "v2" },
		{ 2, SFRAME_F_FDE_FUNC_START_PCREL, "v2-pcrel" },
		{ 3, 0, "v3" }, { 3, SFRAME_F_FDE_FUNC_START_PCREL, "v3-pcrel" },
	};

	for (size_t v = 0; v < sizeof(vs) / sizeof(vs[0]); v++) {
		char name[64];
		size_t len;
		u8 *b = enc(vs[v].v, vs[v].flags, fdes, 2, &len);
		int bad;

		snprintf(name, sizeof(name), "default-%s", vs[v].n);
		if (!b) {
			check(name, 0, "encode failed");
			continue;
		}
		bad = default_wrong_pcs(name, b, len);
		check(name, !bad && init_validate(b, len) == 0, "%d PCs wrong", bad);
		if (v == 0)
			test_trailing_padding(b, len);
		free(b);
	}
}

/*
 * ld 2.47's .plt.got FDE: PCMASK, rep_size 8, one FRE saying CFA = SP+16
 * from offset 0.  The stub is entered by a call: find gives SP+8 there
 * (as .eh_frame does) and marks it; a lazy .plt entry's later FRE (after
 * its push) stays SP+16; a default FDE with the same FRE is left alone.
 */
static void test_plt_entry(void)
{
	static const struct sfe_fre got[] = {
		{ .start = 0, .cfa_base = SFE_BASE_SP, .cfa_off = 16 },
	};
	static const struct sfe_fre lazy[] = {
		{ .start = 0, .cfa_base = SFE_BASE_SP, .cfa_off = 8 },
		{ .start = 11, .cfa_base = SFE_BASE_SP, .cfa_off = 16 },
	};
	struct sfe_fde fdes[] = {
		{ .start = 0x1000, .size = 0x40, .pcmask = true, .rep_size = 16,
		  .fres = lazy, .nfres = 2 },
		{ .start = 0x1200, .size = 0x10, .pcmask = true, .rep_size = 8,
		  .fres = got, .nfres = 1 },
		{ .start = 0x2000, .size = 0x10, .fres = got, .nfres = 1 },
	};
	static const struct { u64 pc; int off; bool fixed; } cases[] = {
		{ 0x1200, 8, true }, { 0x1207, 8, true }, { 0x1208, 8, true },
		{ 0x1000, 8, false }, { 0x100b, 16, false }, { 0x101b, 16, false },
		{ 0x2000, 16, false }, { 0x2008, 16, false },
	};
	size_t len;
	u8 *b = enc(3, SFRAME_F_FDE_FUNC_START_PCREL, fdes, 3, &len);
	struct sframe_rule r;
	int bad = 0;

	if (!b) {
		check("plt-entry", 0, "encode failed");
		return;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int err = init_find(b, len, cases[i].pc, &r);

		if (err || !loc_eq(&r.cfa, SFRAME_LOC_REG_VAL, SFRAME_REG_RSP,
				   cases[i].off) ||
		    !!(r.flags & SFRAME_R_PLT_ENTRY) != cases[i].fixed) {
			printf("# plt-entry: 0x%llx: err %d cfa off %d flags 0x%x\n",
			       (unsigned long long)cases[i].pc, err, r.cfa.off,
			       r.flags);
			bad++;
		}
	}
	check("plt-entry", !bad, "%d PCs wrong", bad);
	free(b);
}

static void test_outermost(void)
{
	static const struct sfe_fre f[] = {
		{ .start = 0, .cfa_base = SFE_BASE_SP, .cfa_off = 8 },
		{ .start = 4, .outermost = true },
	};
	struct sfe_fde fdes[] = {
		{ .start = 0x1000, .size = 0x10, .fres = f, .nfres = 2 },
		{ .start = 0x1010, .size = 0x10, .fres = NULL, .nfres = 0 },
	};
	struct sframe_rule r;
	size_t len;
	u8 *b;
	int e1, e2, e3;

	b = enc(2, 0, fdes, 1, &len);
	e1 = b ? init_find(b, len, 0x1005, &r) : -100;
	check("outermost-fre-v2", b && !e1 && (r.flags & SFRAME_R_OUTERMOST),
	      "%s", ustack_sframe_strerror(e1));
	free(b);
	b = enc(3, 0, fdes, 2, &len);
	e1 = b ? init_find(b, len, 0x1003, &r) : -100;
	e2 = b ? init_find(b, len, 0x1005, &r) : -100;
	int o2 = !e2 && (r.flags & SFRAME_R_OUTERMOST);
	e3 = b ? init_find(b, len, 0x1018, &r) : -100;
	check("outermost-v3", b && !e1 && o2 && !e3 &&
	      (r.flags & SFRAME_R_OUTERMOST) && init_validate(b, len) == 0,
	      "%s %s %s", ustack_sframe_strerror(e1), ustack_sframe_strerror(e2),
	      ustack_sframe_strerror(e3));
	free(b);
	/* v1 cannot express it; v2 has no FRE-less FDE */
	check("outermost-v1-refused", sframe_encode(1, 0, VADDR, fdes, 1,
		(void **)&b, &len) == -EOPNOTSUPP, "v1 accepted an outermost FRE");
}

/* DRAP step: rbp = &stack[4]; stack[3] holds the CFA (&stack[10]) */
static void test_flex_drap(const u8 *b, size_t len, u64 *stack, size_t size)
{
	u64 base = (u64)(unsigned long)stack;
	struct sframe_rule r;
	struct sframe_state st;
	int e = init_find(b, len, 0x1012, &r);

	stack[3] = base + 80;
	stack[9] = 0x4444;		/* RA at CFA-8 */
	stack[8] = base + 200;		/* saved rbp at CFA-16 */
	memset(&st, 0, sizeof(st));
	st.ip = 0x1012;
	st.sp = base;
	st.fp = base + 32;
	st.stack_lo = base;
	st.stack_hi = base + size;
	st.topmost = true;
	int se = e ? e : ustack_sframe_step(&r, &st);

	check("flex-drap", !se && loc_eq(&r.cfa, SFRAME_LOC_REG_DEREF, 6, -8) &&
	      st.ip == 0x4444 && st.sp == base + 80 && st.fp == base + 200,
	      "%s ip=%llx", ustack_sframe_strerror(se), (unsigned long long)st.ip);
}

/* CFA on r10: topmost with registers only */
static void test_flex_reg(const u8 *b, size_t len, u64 *stack, size_t size)
{
	u64 gpr[SFRAME_NR_REGS] = { 0 };
	u64 base = (u64)(unsigned long)stack;
	struct sframe_rule r;
	struct sframe_state st;
	int e = init_find(b, len, 0x1030, &r), se;

	gpr[10] = base + 64;
	gpr[3] = 0x5555;
	memset(&st, 0, sizeof(st));
	st.ip = 0x1030;
	st.sp = base;
	st.fp = 7;
	st.gpr = gpr;
	st.topmost = true;
	st.stack_lo = base;
	st.stack_hi = base + size;
	se = e ? e : ustack_sframe_step(&r, &st);
	check("flex-reg-topmost", !se && st.ip == 0x5555 && st.sp == base + 64 &&
	      st.fp == 7, "%s", ustack_sframe_strerror(se));
	memset(&st, 0, sizeof(st));
	st.sp = base;
	st.gpr = gpr;
	st.topmost = false;
	se = e ? e : ustack_sframe_step(&r, &st);
	check("flex-reg-not-topmost", se == SFRAME_E_REG, "%s",
	      ustack_sframe_strerror(se));
}

static void test_flex_signal(void)
{
	struct sfe_fre f[3] = {
		{ .start = 0, .cfa = { SFRAME_LOC_REG_VAL, SFRAME_REG_RSP, 8 },
		  .ra = L_RA, .fp = L_SAME },
		/* DRAP: CFA = *(rbp - 8), rbp at CFA - 16 */
		{ .start = 0x10, .cfa = { SFRAME_LOC_REG_DEREF, SFRAME_REG_RBP, -8 },
		  .ra = L_RA, .fp = { SFRAME_LOC_CFA_DEREF, 0, -16 } },
		/* CFA = r10 + 0, RA in rbx (val), fp unchanged */
		{ .start = 0x20, .cfa = { SFRAME_LOC_REG_VAL, 10, 0 },
		  .ra = { SFRAME_LOC_REG_VAL, 3, 0 }, .fp = L_SAME },
	};
	struct sfe_fde fdes[] = {
		{ .start = 0x1000, .size = 0x40, .flex = true, .fres = f, .nfres = 3 },
		{ .start = 0x2000, .size = 0x10, .signal = true,
		  .fres = (struct sfe_fre[]){ { .start = 0, .cfa_base = SFE_BASE_SP,
						.cfa_off = 160 } }, .nfres = 1 },
	};
	struct sframe_rule r;
	u64 stack[64] = { 0 };
	size_t len;
	int e;
	u8 *b = enc(3, SFRAME_F_FDE_FUNC_START_PCREL, fdes, 2, &len);

	if (!b) {
		check("flex", 0, "encode failed");
		return;
	}
	check("flex-validate", init_validate(b, len) == 0, "invalid");
	e = init_find(b, len, 0x1005, &r);
	check("flex-sp", !e && (r.flags & SFRAME_R_FLEX) &&
	      loc_eq(&r.cfa, SFRAME_LOC_REG_VAL, SFRAME_REG_RSP, 8) &&
	      loc_eq(&r.ra, SFRAME_LOC_CFA_DEREF, 0, -8) &&
	      r.fp.kind == SFRAME_LOC_SAME, "%s", ustack_sframe_strerror(e));
	test_flex_drap(b, len, stack, sizeof(stack));
	test_flex_reg(b, len, stack, sizeof(stack));

	e = init_find(b, len, 0x2004, &r);
	check("signal-v3", !e && (r.flags & SFRAME_R_SIGNAL) &&
	      loc_eq(&r.cfa, SFRAME_LOC_REG_VAL, SFRAME_REG_RSP, 160),
	      "%s", ustack_sframe_strerror(e));
	free(b);
	check("flex-v2-refused", sframe_encode(2, 0, VADDR, fdes, 1,
		(void **)&b, &len) == -EOPNOTSUPP, "v2 accepted a flex FDE");
	check("signal-v2-refused", sframe_encode(2, 0, VADDR, fdes + 1, 1,
		(void **)&b, &len) == -EOPNOTSUPP, "v2 accepted a signal FDE");
}

/* ---- malformed sections ---------------------------------------------------- */

static u8 *base_v2(size_t *len)
{
	static const struct sfe_fre f[] = {
		{ .start = 0, .cfa_base = SFE_BASE_SP, .cfa_off = 8 },
		{ .start = 1, .cfa_base = SFE_BASE_SP, .cfa_off = 16,
		  .fp_saved = true, .fp_off = -16 },
	};
	struct sfe_fde fdes[] = {
		{ .start = 0x1000, .size = 0x20, .fres = f, .nfres = 2 },
		{ .start = 0x1100, .size = 0x20, .fres = f, .nfres = 2 },
		{ .start = 0x1200, .size = 0x20, .fres = f, .nfres = 2 },
	};

	return enc(2, 0, fdes, 3, len);
}

#define HDR	SFRAME_HDR_SIZE
#define FDE(i)	(HDR + 20 * (i))
#define FRES	(HDR + 60)	/* FRE sub-section of base_v2 */

static void put32(u8 *p, u32 v)
{
	memcpy(p, &v, 4);
}

struct mcase {
	const char *name;
	void (*patch)(u8 *b, size_t *len);
	int want;
	u64 pc;			/* find at pc; 0: validate */
};

static void m_trunc(u8 *b, size_t *len) { *len = 27; }
static void m_trunc0(u8 *b, size_t *len) { *len = 0; }
static void m_magic(u8 *b, size_t *len) { b[0] = 0xde; b[1] = 0xe2; }
static void m_version0(u8 *b, size_t *len) { b[2] = 0; }
static void m_version4(u8 *b, size_t *len) { b[2] = 4; }
static void m_abi(u8 *b, size_t *len) { b[4] = 2; }
static void m_flags(u8 *b, size_t *len) { b[3] |= 0x8; }
static void m_flags_v1_pcrel(u8 *b, size_t *len) { b[2] = 1; b[3] |= 0x4; }
static void m_flags_v3_fp(u8 *b, size_t *len) { b[2] = 3; b[3] |= 0x2; }
static void m_fixed_ra(u8 *b, size_t *len) { b[6] = 0; }
static void m_fixed_fp(u8 *b, size_t *len) { b[5] = 0xf0; }
static void m_auxhdr(u8 *b, size_t *len) { b[7] = 255; }
static void m_num_fdes(u8 *b, size_t *len) { put32(b + 8, 0x10000000); }
static void m_num_fdes1(u8 *b, size_t *len) { put32(b + 8, 4); }
static void m_fdeoff(u8 *b, size_t *len) { put32(b + 20, 0xfffffff0); }
static void m_freoff(u8 *b, size_t *len) { put32(b + 24, 0xffffffff); }
static void m_fre_len(u8 *b, size_t *len) { put32(b + 16, 1000); }
static void m_overlap(u8 *b, size_t *len) { put32(b + 24, 40); }
static void m_num_fres(u8 *b, size_t *len) { put32(b + 12, 1000); }
static void m_num_fres_sum(u8 *b, size_t *len) { put32(b + 12, 5); }
static void m_unsorted(u8 *b, size_t *len)
{
	u32 a, c;

	memcpy(&a, b + FDE(1), 4);
	memcpy(&c, b + FDE(2), 4);
	put32(b + FDE(1), c);
	put32(b + FDE(2), a);
}
static void m_fde_fres(u8 *b, size_t *len) { put32(b + FDE(1) + 8, 5000); }
static void m_fre_type(u8 *b, size_t *len) { b[FDE(0) + 16] = 3; }
static void m_rep_size(u8 *b, size_t *len) { b[FDE(0) + 16] |= 0x10; b[FDE(0) + 17] = 0; }
static void m_func_range(u8 *b, size_t *len) { put32(b + FDE(2), (u32)(0 - VADDR - 0x10)); }
static void m_fre_start(u8 *b, size_t *len) { b[FRES + 3] = 0x20; }	/* 2nd FRE start = size */
static void m_fre_order(u8 *b, size_t *len) { b[FRES + 3] = 0; }
static void m_fre_size(u8 *b, size_t *len) { b[FRES + 1] |= 0x60; }
static void m_fre_count(u8 *b, size_t *len) { b[FRES + 1] = (b[FRES + 1] & ~0x1e) | (3 << 1); }
static void m_fre_overrun(u8 *b, size_t *len) { put32(b + FDE(2) + 12, 9); }

static const struct mcase malformed_cases[] = {
	{ "trunc-header", m_trunc, SFRAME_E_HDR_TRUNC, 0x1000 },
	{ "empty", m_trunc0, SFRAME_E_HDR_TRUNC, 0x1000 },
	{ "bad-magic", m_magic, SFRAME_E_MAGIC, 0x1000 },
	{ "version-0", m_version0, SFRAME_E_VERSION, 0x1000 },
	{ "version-4", m_version4, SFRAME_E_VERSION, 0x1000 },
	{ "abi", m_abi, SFRAME_E_ABI, 0x1000 },
	{ "unknown-flag", m_flags, SFRAME_E_FLAGS, 0x1000 },
	{ "v1-pcrel-flag", m_flags_v1_pcrel, SFRAME_E_FLAGS, 0x1000 },
	{ "v3-fp-flag", m_flags_v3_fp, SFRAME_E_FLAGS, 0x1000 },
	{ "fixed-ra", m_fixed_ra, SFRAME_E_FIXED_OFF, 0x1000 },
	{ "fixed-fp", m_fixed_fp, SFRAME_E_FIXED_OFF, 0x1000 },
	{ "auxhdr-outside", m_auxhdr, SFRAME_E_AUXHDR, 0x1000 },
	{ "num-fdes-outside", m_num_fdes, SFRAME_E_FDE_OFF, 0x1000 },
	{ "num-fdes-plus-one", m_num_fdes1, SFRAME_E_FRE_OFF, 0x1000 },
	{ "fdeoff-outside", m_fdeoff, SFRAME_E_FDE_OFF, 0x1000 },
	{ "freoff-outside", m_freoff, SFRAME_E_FRE_OFF, 0x1000 },
	{ "fre-len-outside", m_fre_len, SFRAME_E_FRE_OFF, 0x1000 },
	{ "fde-fre-overlap", m_overlap, SFRAME_E_FRE_OFF, 0x1000 },
	{ "num-fres-too-big", m_num_fres, SFRAME_E_NUM_FRES, 0x1000 },
	{ "num-fres-sum", m_num_fres_sum, SFRAME_E_NUM_FRES, 0 },
	{ "unsorted-validate", m_unsorted, SFRAME_E_UNSORTED, 0 },
	{ "unsorted-find", m_unsorted, SFRAME_E_UNSORTED, 0x1205 },
	{ "fde-fres-outside", m_fde_fres, SFRAME_E_FDE_FRES, 0x1105 },
	{ "fre-type-3", m_fre_type, SFRAME_E_FRE_TYPE, 0x1005 },
	{ "rep-size-0", m_rep_size, SFRAME_E_REP_SIZE, 0x1005 },
	{ "func-range-wraps", m_func_range, SFRAME_E_FUNC_RANGE, 0 },
	{ "fre-past-function", m_fre_start, SFRAME_E_FRE_START, 0x101f },
	{ "fre-order", m_fre_order, SFRAME_E_FRE_ORDER, 0x1005 },
	{ "fre-word-size-3", m_fre_size, SFRAME_E_FRE_SIZE, 0x1000 },
	{ "fre-word-count", m_fre_count, SFRAME_E_FRE_COUNT, 0 },
	{ "fre-overrun", m_fre_overrun, SFRAME_E_FRE_OVERRUN, 0x121f },
};

/* @c: @base (@blen bytes) patched, at its exact size (ASan catches overreads) */
static void test_malformed_case(const u8 *base, size_t blen,
				const struct mcase *c)
{
	struct sframe_rule r;
	char name[64];
	size_t len = blen;
	u8 *b = malloc(blen);
	int got;

	memcpy(b, base, blen);
	c->patch(b, &len);
	if (len < blen) {
		u8 *s = malloc(len ? len : 1);

		memcpy(s, b, len);
		free(b);
		b = s;
	}
	got = c->pc ? init_find(b, len, c->pc, &r) : init_validate(b, len);
	snprintf(name, sizeof(name), "malformed-%s", c->name);
	check(name, got == c->want, "got %s, want %s",
	      ustack_sframe_strerror(got), ustack_sframe_strerror(c->want));
	free(b);
}

/* every truncation of a valid section: an error, never a crash */
static void test_every_truncation(const u8 *base, size_t blen)
{
	int bad = 0;

	for (size_t n = 0; n < blen; n++) {
		u8 *b = malloc(n ? n : 1);

		memcpy(b, base, n);
		bad += init_validate(b, n) == 0;
		free(b);
	}
	check("malformed-every-truncation", !bad, "%d truncations accepted", bad);
}

/* distinct names for distinct codes */
static void test_error_names(void)
{
	int bad = 0;

	for (int c = 0; c > SFRAME_E_MAX; c--)
		for (int d = c - 1; d > SFRAME_E_MAX; d--)
			bad += !strcmp(ustack_sframe_strerror(c), ustack_sframe_strerror(d));
	check("error-names-distinct", !bad, "%d duplicate names", bad);
}

static void test_malformed(void)
{
	size_t blen;
	u8 *base = base_v2(&blen);
	struct sframe_rule r;

	if (!base) {
		check("malformed", 0, "encode failed");
		return;
	}
	check("malformed-base-valid", init_validate(base, blen) == 0 &&
	      init_find(base, blen, 0x1201, &r) == 0, "base section invalid");
	for (size_t i = 0; i < sizeof(malformed_cases) / sizeof(malformed_cases[0]); i++)
		test_malformed_case(base, blen, &malformed_cases[i]);
	test_every_truncation(base, blen);
	test_error_names();
	free(base);
}

/* ---- step and walk --------------------------------------------------------- */

static void test_step_checks(void)
{
	u64 stack[16] = { 0 };
	u64 base = (u64)(unsigned long)stack;
	struct sframe_rule r;
	struct sframe_state st;
	int e;

	memset(&r, 0, sizeof(r));
	r.cfa = (struct sframe_loc){ SFRAME_LOC_REG_VAL, SFRAME_REG_RSP, 16 };
	r.ra = L_RA;
	r.fp = L_SAME;

#define ST(sp_) do { memset(&st, 0, sizeof(st)); st.sp = (sp_); st.fp = 3; \
	st.stack_lo = base; st.stack_hi = base + sizeof(stack); } while (0)
	ST(base);
	stack[1] = 0x1234;
	e = ustack_sframe_step(&r, &st);
	check("step-ok", !e && st.ip == 0x1234 && st.sp == base + 16 &&
	      st.fp == 3 && !st.exact_ip, "%s", ustack_sframe_strerror(e));
	ST(base);
	stack[1] = 0;
	check("step-ra-zero", ustack_sframe_step(&r, &st) == SFRAME_E_RA, "accepted");
	r.cfa.off = -8;
	ST(base + 16);
	check("step-cfa-below-sp", ustack_sframe_step(&r, &st) == SFRAME_E_CFA, "accepted");
	r.cfa.off = 0;
	ST(base + 16);
	stack[1] = 9;
	check("step-cfa-equal-sp", ustack_sframe_step(&r, &st) == SFRAME_E_CFA, "accepted");
	ST(base + 16);
	st.topmost = true;
	check("step-cfa-equal-sp-topmost", ustack_sframe_step(&r, &st) == 0, "refused");
	r.cfa.off = 12;
	ST(base);
	check("step-cfa-misaligned", ustack_sframe_step(&r, &st) == SFRAME_E_ALIGN, "accepted");
	r.cfa.off = 8 * 20;
	ST(base);
	check("step-read-outside-stack", ustack_sframe_step(&r, &st) == SFRAME_E_FAULT,
	      "accepted");
	r.cfa.off = 16;
	r.flags = SFRAME_R_OUTERMOST;
	ST(base);
	check("step-outermost-refused", ustack_sframe_step(&r, &st) != 0, "stepped");
#undef ST
}

/* A fake 4-frame stack described by a hand-made section. */
static struct sframe_sec walk_sec;

static const struct sframe_sec *walk_find(struct sframe_walk *w, u64 pc,
					   bool *cacheable)
{
	*cacheable = true;
	return w->ctx ? &walk_sec : NULL;
}

static const struct sframe_walk_ops walk_ops = { .find_sec = walk_find };

/* @w: a walk from @ip, SP at the start of @stack (@size bytes), no FP. */
static void walk_init(struct sframe_walk *w, u64 ip, u64 *stack, size_t size,
		      const struct sframe_walk_ops *ops, u64 *ips, u8 *methods,
		      u32 max_frames)
{
	memset(w, 0, sizeof(*w));
	w->st.ip = ip;
	w->st.sp = (u64)(unsigned long)stack;
	w->st.stack_lo = w->st.sp;
	w->st.stack_hi = w->st.sp + size;
	w->ops = ops;
	w->ips = ips;
	w->methods = methods;
	w->max_frames = max_frames;
}

/*
 * test_walk's stack: functions A [0x1000,0x1100) sp+16, B [0x1100,0x1200)
 * fp-based, C [0x1200,0x1300) outermost after 0x1210; D: no info (FP
 * fallback).
 */
struct walk4 {
	u64 stack[64], ips[16];
	u8 methods[16];
	struct sframe_walk w;
};

static u8 *walk4_init(struct walk4 *t)
{
	static const struct sfe_fre fa[] = { { .start = 0, .cfa_base = SFE_BASE_SP, .cfa_off = 16 } };
	static const struct sfe_fre fb[] = { { .start = 0, .cfa_base = SFE_BASE_FP, .cfa_off = 16,
					       .fp_saved = true, .fp_off = -16 } };
	static const struct sfe_fre fc[] = { { .start = 0, .cfa_base = SFE_BASE_SP, .cfa_off = 8 },
					     { .start = 0x10, .outermost = true } };
	struct sfe_fde fdes[] = {
		{ .start = 0x1000, .size = 0x100, .fres = fa, .nfres = 1 },
		{ .start = 0x1100, .size = 0x100, .fres = fb, .nfres = 1 },
		{ .start = 0x1200, .size = 0x100, .fres = fc, .nfres = 2 },
	};
	u64 base = (u64)(unsigned long)t->stack;
	size_t len;
	u8 *b = enc(2, 0, fdes, 3, &len);

	if (!b || ustack_sframe_sec_init(&walk_sec, (unsigned long)b, len, VADDR, 0x1000, 0x1300)) {
		free(b);
		return NULL;
	}
	/*
	 * frame0: ip 0x1010 (A), sp = base: CFA = base+16, RA stack[1] = 0x1150
	 * frame1: B, fp = base+48: CFA = base+64, RA stack[7] = 0x3005 (D),
	 *         saved fp stack[6] = base+96
	 * frame2: D (no section): FP: RA stack[13] = 0x1281, fp stack[12] = base+160
	 * frame3: C at 0x1280 (lookup 0x1280): outermost
	 */
	memset(t->stack, 0, sizeof(t->stack));
	t->stack[1] = 0x1050 + 0x100;
	t->stack[7] = 0x3005;
	t->stack[6] = base + 96;
	t->stack[13] = 0x1281;
	t->stack[12] = base + 160;
	walk_init(&t->w, 0x1010, t->stack, sizeof(t->stack), &walk_ops, t->ips,
		  t->methods, 16);
	t->w.st.fp = base + 48;
	t->w.ctx = &walk_sec;
	return b;
}

/*
 * Tags: entries of another tag are not used (these are made wrong), nor
 * replaced by the same PCs' entries of this one.
 */
static void test_walk_cache_tags(struct walk4 *t, struct sframe_cache *cache,
				 const u64 *ref)
{
	int wrong[3];

	for (int k = 0; k < SFRAME_CACHE_SIZE; k++)
		cache->e[k].cfa_off += 8;
	for (int k = 0; k < 3; k++) {
		ustack_sframe_cache_set_tag(cache, k == 1);
		memset(t->ips, 0, sizeof(t->ips));
		ustack_sframe_walk(&t->w);
		wrong[k] = t->w.nr != 4 || memcmp(t->ips, ref, 4 * sizeof(u64));
	}
	check("walk-cache-tags", wrong[0] && !wrong[1] && wrong[2],
	      "wrong frames under tag 0, 1, 0: %d %d %d", wrong[0],
	      wrong[1], wrong[2]);
	ustack_sframe_cache_set_tag(cache, 0);
}

/* the rule cache: a second walk hits it and gives the same frames */
static void test_walk_cache(struct walk4 *t)
{
	static struct sframe_cache cache;
	struct sframe_walk *w = &t->w;
	u64 ref[16];
	int same = 1, hits = 0;

	memcpy(ref, t->ips, sizeof(ref));
	ustack_sframe_cache_reset(&cache);
	w->cache = &cache;
	for (int k = 0; k < 2; k++) {
		memset(t->ips, 0, sizeof(t->ips));
		ustack_sframe_walk(w);
		same &= w->nr == 4 && !memcmp(t->ips, ref, 4 * sizeof(u64)) &&
			w->end == USTACK_END_OUTERMOST;
	}
	/* wrong next-entry guesses only cost a set probe */
	for (int k = 0; k < SFRAME_CACHE_SIZE; k++)
		cache.e[k].next = (struct sframe_cache_ent *)
			((uintptr_t)cache.e + (k * 40503u + 7) % (sizeof(cache.e) + 64));
	memset(t->ips, 0, sizeof(t->ips));
	ustack_sframe_walk(w);
	same &= w->nr == 4 && !memcmp(t->ips, ref, 4 * sizeof(u64));
	for (int k = 0; k < SFRAME_CACHE_SIZE; k++)
		hits += cache.e[k].kind != 0;
	check("walk-cache", same && hits == 3, "same %d entries %d",
	      same, hits);
	test_walk_cache_tags(t, &cache, ref);
	w->cache = NULL;
}

/* How the walk ends: depth, no info, FP's outermost, a fault, a bad frame. */
static void test_walk_ends(struct walk4 *t)
{
	struct sframe_walk *w = &t->w;
	u64 base = (u64)(unsigned long)t->stack;

	w->max_frames = 3;
	ustack_sframe_walk(w);
	check("walk-depth", w->nr == 3 && w->end == USTACK_END_DEPTH, "nr %u end %u",
	      w->nr, w->end);
	w->max_frames = 16;
	w->flags = SFRAME_WALK_NO_FP;
	ustack_sframe_walk(w);
	check("walk-no-info", w->nr == 3 && w->end == USTACK_END_NO_INFO,
	      "nr %u end %u", w->nr, w->end);
	w->flags = 0;
	t->stack[12] = 0;	/* rbp 0 in D's caller: FP says "outermost" */
	t->stack[13] = 0x9999;
	ustack_sframe_walk(w);
	check("walk-fp-zero-outermost", w->nr == 4 && t->ips[3] == 0x9999 &&
	      w->end == USTACK_END_OUTERMOST, "nr %u end %u", w->nr, w->end);
	t->stack[6] = base + 4000;	/* B's saved fp points off the stack */
	ustack_sframe_walk(w);
	check("walk-fault", w->nr == 3 && w->end == USTACK_END_FAULT &&
	      w->err == SFRAME_E_FAULT, "nr %u end %u", w->nr, w->end);
	t->stack[6] = base + 8;	/* below the CFA: not a caller frame */
	ustack_sframe_walk(w);
	check("walk-bad-frame", w->nr == 3 && w->end == USTACK_END_BAD_FRAME &&
	      w->err == SFRAME_E_CFA, "nr %u end %u err %s", w->nr, w->end,
	      ustack_sframe_strerror(w->err));
}

/* glibc's clone3 before 0x3002: mov $435,%eax; syscall */
static int clone_read_code(struct sframe_walk *w, void *dst, u64 addr,
			   u32 len)
{
	static const u8 code[] = { 0xb8, 0xb3, 0x01, 0x00, 0x00, 0x0f, 0x05 };

	(void)w;
	if (addr != 0x3002 - sizeof(code) || len != sizeof(code))
		return -1;
	memcpy(dst, code, len);
	return 0;
}

/*
 * A tick right after clone3's return, in user mode: no flags, the code
 * before the IP tells, and rax (0 in the child) which side; another
 * IP with other code before it is walked as before.
 */
static void test_walk_clone_code(struct sframe_walk *w)
{
	static const struct sframe_walk_ops ops = {
		.find_sec = walk_find, .read_code = clone_read_code,
	};
	u64 gpr[SFRAME_NR_REGS] = { 0 };

	w->ops = &ops;
	w->flags = 0;
	w->st.gpr = gpr;
	gpr[SFRAME_REG_RET] = 4242;	/* the new thread's id */
	ustack_sframe_walk(w);
	check("walk-clone-code-parent", w->nr == 2 && w->ips[1] == 0x1281 &&
	      w->methods[1] == USTACK_METHOD_ENTRY &&
	      w->end == USTACK_END_OUTERMOST, "nr %u end %u", w->nr, w->end);
	gpr[SFRAME_REG_RET] = 0;
	ustack_sframe_walk(w);
	check("walk-clone-code-child", w->nr == 1 &&
	      w->end == USTACK_END_OUTERMOST, "nr %u end %u", w->nr, w->end);
	w->st.ip = 0x3003;	/* other code before the IP */
	ustack_sframe_walk(w);
	check("walk-clone-code-other", w->nr == 1 &&
	      w->end == USTACK_END_FAULT, "nr %u end %u", w->nr, w->end);
	w->st.ip = 0x3002;
	w->st.gpr = NULL;
	w->ops = &walk_ops;
}

/*
 * A stack interrupted on its return from clone (SFRAME_WALK_CLONE_*) at a
 * PC no rule covers (glibc's clone3.S ends its CFI before the syscall):
 * the child's frame is its first, the parent's returns by the entry rule
 * (RA at SP) even with a frame pointer set; where a rule covers the PC,
 * the flags change nothing.
 */
static void test_walk_clone(struct walk4 *t)
{
	struct sframe_walk *w = &t->w;
	u64 base = (u64)(unsigned long)t->stack;

	memset(t->stack, 0, sizeof(t->stack));
	t->stack[0] = 0x1281;	/* C, past 0x1210: outermost */
	walk_init(w, 0x3002, t->stack, sizeof(t->stack), &walk_ops, t->ips,
		  t->methods, 16);
	w->ctx = &walk_sec;
	w->st.fp = base + 4000;	/* off the stack: never read */
	w->flags = SFRAME_WALK_CLONE_PARENT;
	ustack_sframe_walk(w);
	check("walk-clone-parent", w->nr == 2 && t->ips[1] == 0x1281 &&
	      t->methods[1] == USTACK_METHOD_ENTRY &&
	      w->end == USTACK_END_OUTERMOST, "nr %u end %u method %u",
	      w->nr, w->end, t->methods[1]);
	w->flags = SFRAME_WALK_CLONE_CHILD;
	ustack_sframe_walk(w);
	check("walk-clone-child", w->nr == 1 && w->end == USTACK_END_OUTERMOST,
	      "nr %u end %u", w->nr, w->end);
	w->flags = 0;
	ustack_sframe_walk(w);
	check("walk-clone-none", w->nr == 1 && w->end == USTACK_END_FAULT,
	      "nr %u end %u", w->nr, w->end);
	test_walk_clone_code(w);
	/* covered: A's rule (CFA sp+16, RA stack[1]), not the entry rule */
	t->stack[1] = 0x1281;
	w->st.ip = 0x1010;
	w->flags = SFRAME_WALK_CLONE_PARENT;
	ustack_sframe_walk(w);
	check("walk-clone-covered", w->nr == 2 && t->ips[1] == 0x1281 &&
	      t->methods[1] == USTACK_METHOD_SFRAME, "nr %u method %u",
	      w->nr, t->methods[1]);
}

static void test_walk(void)
{
	static struct walk4 t;
	const u8 *m = t.methods;
	u8 *b = walk4_init(&t);

	if (!b) {
		check("walk", 0, "setup");
		return;
	}
	ustack_sframe_walk(&t.w);
	check("walk-outermost", t.w.nr == 4 && t.w.end == USTACK_END_OUTERMOST &&
	      t.ips[0] == 0x1010 && t.ips[1] == 0x1150 && t.ips[2] == 0x3005 &&
	      t.ips[3] == 0x1281 && m[0] == USTACK_METHOD_REGS &&
	      m[1] == USTACK_METHOD_SFRAME &&
	      m[2] == USTACK_METHOD_SFRAME && m[3] == USTACK_METHOD_FP,
	      "nr %u end %u err %s", t.w.nr, t.w.end,
	      ustack_sframe_strerror(t.w.err));
	test_walk_cache(&t);
	test_walk_ends(&t);
	test_walk_clone(&t);
	free(b);
}

/* A v3 signal FDE: the next frame's IP is exact (no -1 lookup). */
static void test_walk_signal(void)
{
	static const struct sfe_fre fs[] = { { .start = 0, .cfa_base = SFE_BASE_SP, .cfa_off = 32 } };
	static const struct sfe_fre fo[] = { { .start = 0, .outermost = true } };
	static const struct sfe_fre fx[] = { { .start = 0, .cfa_base = SFE_BASE_SP, .cfa_off = 8 },
					     { .start = 1, .cfa_base = SFE_BASE_SP, .cfa_off = 16 } };
	struct sfe_fde fdes[] = {
		{ .start = 0x1000, .size = 0x10, .signal = true, .fres = fs, .nfres = 1 },
		{ .start = 0x2000, .size = 0x10, .fres = fx, .nfres = 2 },
		{ .start = 0x3000, .size = 0x10, .fres = fo, .nfres = 1 },
	};
	u64 stack[32] = { 0 }, ips[8];
	u8 methods[8];
	struct sframe_walk w;
	size_t len;
	u8 *b = enc(3, SFRAME_F_FDE_FUNC_START_PCREL, fdes, 3, &len);

	if (!b || ustack_sframe_sec_init(&walk_sec, (unsigned long)b, len, VADDR, 0, 0)) {
		check("walk-signal", 0, "setup");
		free(b);
		return;
	}
	/* trampoline at 0x1004: CFA = sp+32, "RA" = interrupted IP 0x2000
	 * (a function's first byte: exact lookup gives sp+8, not 0x1fff = none);
	 * then 0x2000: CFA = sp'+8, RA 0x3004: outermost.
	 */
	stack[3] = 0x2000;
	stack[4] = 0x3004;
	walk_init(&w, 0x1004, stack, sizeof(stack), &walk_ops, ips, methods, 8);
	w.ctx = &walk_sec;
	w.flags = SFRAME_WALK_NO_FP;
	ustack_sframe_walk(&w);
	check("walk-signal", w.nr == 3 && ips[1] == 0x2000 && ips[2] == 0x3004 &&
	      methods[1] == USTACK_METHOD_SIGNAL &&
	      methods[2] == USTACK_METHOD_SFRAME && w.end == USTACK_END_OUTERMOST,
	      "nr %u end %u err %s", w.nr, w.end, ustack_sframe_strerror(w.err));
	free(b);
}

/*
 * Signal trampolines (glibc's __restore_rt bytes) found by reading code
 * through the read_code hook: an aligned one, which is looked at before
 * any rule, and an unaligned one, looked at where no rule covers it.
 * Also the cache hooks: every cache_begin() that returns a cache is
 * followed by its cache_end(), and the frames are the same.
 */
#define SIG_ALIGNED	0x5000ULL
#define SIG_UNALIGNED	0x6008ULL

static int sig_read_code(struct sframe_walk *w, void *dst, u64 addr, u32 len)
{
	static const u8 tramp[] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00,
				    0x0f, 0x05 };

	if ((addr != SIG_ALIGNED && addr != SIG_UNALIGNED) ||
	    len > sizeof(tramp))
		return -EFAULT;
	memcpy(dst, tramp, len);
	return 0;
}

static struct sframe_cache hook_cache;
static int hook_open, hook_runs, hook_bad;

static struct sframe_cache *hook_begin(struct sframe_walk *w,
				       enum sframe_cache_use use)
{
	hook_bad |= hook_open;
	hook_open = 1;
	hook_runs += use == SFRAME_CACHE_RUN;
	return &hook_cache;
}

static void hook_end(struct sframe_walk *w, enum sframe_cache_use use)
{
	hook_bad |= !hook_open;
	hook_open = 0;
}

static const u64 sig_want[] = { 0x1010, SIG_ALIGNED, 0x1020, SIG_UNALIGNED,
				0x3005, 0x9999 };
static const u8 sig_wantm[] = { USTACK_METHOD_REGS, USTACK_METHOD_SFRAME,
				USTACK_METHOD_SIGNAL, USTACK_METHOD_SFRAME,
				USTACK_METHOD_SIGNAL, USTACK_METHOD_FP };

/*
 * 0x1010 (sp+16): RA stack[1] = the aligned trampoline.  Its ucontext at
 * base+16, sigcontext words from stack[7]: rip 0x1020, rsp base+256, rbp
 * base+400.  0x1020: RA stack[33] = the unaligned trampoline; sigcontext
 * from stack[39]: rip 0x3005 (no rule), rsp base+600, rbp base+640.  FP:
 * RA stack[81] = 0x9999, rbp 0.
 */
static void sig_stack(u64 *stack)
{
	u64 base = (u64)(unsigned long)stack;

	stack[1] = SIG_ALIGNED;
	stack[7 + 16] = 0x1020;
	stack[7 + 15] = base + 256;
	stack[7 + 10] = base + 400;
	stack[33] = SIG_UNALIGNED;
	stack[39 + 16] = 0x3005;
	stack[39 + 15] = base + 600;
	stack[39 + 10] = base + 640;
	stack[81] = 0x9999;
}

/* the cache hooks: balanced, in runs, same frames */
static void test_walk_cache_hooks(struct sframe_walk *w)
{
	static const struct sframe_walk_ops hook_ops = {
		.find_sec = walk_find, .read_code = sig_read_code,
		.cache_begin = hook_begin, .cache_end = hook_end,
	};
	int ok = 1;

	ustack_sframe_cache_reset(&hook_cache);
	w->ops = &hook_ops;
	w->cache_burst = 1;
	for (int k = 0; k < 2; k++) {
		memset(w->ips, 0, 16 * sizeof(u64));
		ustack_sframe_walk(w);
		ok &= w->nr == 6 && !memcmp(w->ips, sig_want, sizeof(sig_want)) &&
		      !memcmp(w->methods, sig_wantm, sizeof(sig_wantm));
	}
	check("walk-cache-hooks", ok && !hook_bad && !hook_open && hook_runs > 0,
	      "same %d unbalanced %d runs %d", ok, hook_bad | hook_open,
	      hook_runs);
}

/*
 * A request inside rt_sigreturn (SFRAME_WALK_IN_SIGRETURN): the PC is past
 * the trampoline's system call, SP at the signal frame's ucontext.  Its
 * first step is the signal frame's, with the rule cache and without; no
 * rule covers that PC, so without the flag the walk goes wrong.
 */
static void test_walk_in_sigreturn(struct sframe_walk *w, u64 *stack)
{
	static const u64 want[] = { SIG_ALIGNED + 9, 0x1020, SIG_UNALIGNED,
				    0x3005, 0x9999 };
	static const u8 wantm[] = { USTACK_METHOD_REGS, USTACK_METHOD_SIGNAL,
				    USTACK_METHOD_SFRAME, USTACK_METHOD_SIGNAL,
				    USTACK_METHOD_FP };
	static const struct sframe_walk_ops sig_ops = {
		.find_sec = walk_find, .read_code = sig_read_code,
	};
	static struct sframe_cache cache;
	int ok = 1, k;

	w->ops = &sig_ops;
	w->cache_burst = 0;
	w->flags = SFRAME_WALK_IN_SIGRETURN;
	for (k = 0; k < 2; k++) {
		ustack_sframe_cache_reset(&cache);
		w->cache = k ? &cache : NULL;
		w->st.ip = SIG_ALIGNED + 9;
		w->st.sp = (u64)(unsigned long)stack + 16;
		w->st.fp = 0x77;
		memset(w->ips, 0, 16 * sizeof(u64));
		ustack_sframe_walk(w);
		ok &= w->nr == 5 && w->end == USTACK_END_OUTERMOST &&
		      !memcmp(w->ips, want, sizeof(want)) &&
		      !memcmp(w->methods, wantm, sizeof(wantm));
	}
	check("walk-in-sigreturn", ok, "nr %u end %u err %s ips %#llx %#llx",
	      w->nr, w->end, ustack_sframe_strerror(w->err),
	      (unsigned long long)w->ips[1], (unsigned long long)w->ips[2]);
	w->flags = 0;
	ustack_sframe_walk(w);
	check("walk-in-sigreturn-needs-flag",
	      w->nr < 2 || w->methods[1] != USTACK_METHOD_SIGNAL,
	      "nr %u method %u", w->nr, w->methods[1]);
	w->cache = NULL;
}

static void test_walk_sigreturn(void)
{
	static const struct sfe_fre fa[] = { { .start = 0, .cfa_base = SFE_BASE_SP, .cfa_off = 16 } };
	struct sfe_fde fdes[] = {
		{ .start = 0x1000, .size = 0x100, .fres = fa, .nfres = 1 },
	};
	static const struct sframe_walk_ops sig_ops = {
		.find_sec = walk_find, .read_code = sig_read_code,
	};
	static struct sframe_cache cache;
	u64 stack[96] = { 0 }, ips[16];
	u8 methods[16];
	struct sframe_walk w;
	size_t len;
	int ok = 1, k;
	u8 *b = enc(2, 0, fdes, 1, &len);

	if (!b || ustack_sframe_sec_init(&walk_sec, (unsigned long)b, len, VADDR,
					 0x1000, 0x1100)) {
		check("walk-sigreturn", 0, "setup");
		free(b);
		return;
	}
	sig_stack(stack);
	walk_init(&w, 0x1010, stack, sizeof(stack), &sig_ops, ips, methods, 16);
	w.st.fp = 0x77;
	w.ctx = &walk_sec;
	for (k = 0; k < 3; k++) {
		if (k == 1) {
			ustack_sframe_cache_reset(&cache);
			w.cache = &cache;
		}
		memset(ips, 0, sizeof(ips));
		ustack_sframe_walk(&w);
		ok &= w.nr == 6 && w.end == USTACK_END_OUTERMOST &&
		      !memcmp(ips, sig_want, sizeof(sig_want)) &&
		      !memcmp(methods, sig_wantm, sizeof(sig_wantm));
	}
	check("walk-sigreturn", ok, "nr %u end %u err %s ips %#llx %#llx %#llx",
	      w.nr, w.end, ustack_sframe_strerror(w.err),
	      (unsigned long long)ips[1], (unsigned long long)ips[2],
	      (unsigned long long)ips[3]);

	/* without read_code: no signal frame, the trampoline is a PC */
	w.cache = NULL;
	w.ops = &walk_ops;
	ustack_sframe_walk(&w);
	check("walk-sigreturn-needs-read-code",
	      w.nr >= 2 && ips[1] == SIG_ALIGNED &&
	      (w.nr < 3 || methods[2] != USTACK_METHOD_SIGNAL),
	      "nr %u method %u", w.nr, methods[2]);
	test_walk_cache_hooks(&w);
	test_walk_in_sigreturn(&w, stack);
	free(b);
}

/*
 * The work budgets (include/uapi/ustack.h): sections shaped for linear
 * lookups are refused, lookups and walks stop when their budget is spent,
 * validation pauses (and stops for a dying task) every so many entries.
 */
static int pause_calls, pause_stop;

bool unit_pause(void)
{
	pause_calls++;
	return pause_stop;
}

/* One FDE at 0x1000 of @nfres FREs, 2 bytes apart, CFA = SP + 16. */
static u8 *many_fres(u32 nfres, size_t *len, struct sframe_sec *sec)
{
	struct sfe_fre *f = calloc(nfres, sizeof(*f));
	struct sfe_fde fde = { .start = 0x1000, .size = 2 * nfres + 4,
			       .fres = f, .nfres = nfres };
	u8 *b;

	for (u32 k = 0; f && k < nfres; k++) {
		f[k].start = 2 * k;
		f[k].cfa_base = SFE_BASE_SP;
		f[k].cfa_off = 16;
	}
	b = f ? enc(2, 0, &fde, 1, len) : NULL;
	free(f);
	if (b && ustack_sframe_sec_init(sec, (unsigned long)b, *len, VADDR, 0, 0)) {
		free(b);
		b = NULL;
	}
	return b;
}

/* Walks whose every frame scans all FREs of @sec's one FDE (at the cap). */
static void test_budget_walks(const struct sframe_sec *sec)
{
	static const struct sframe_budget small = {
		.fdes = 100, .fres = 1000000, .bytes = 6 * 1000,
	};
	u64 stack[64], ips[64];
	u64 pc = 0x1000 + 2 * (USTACK_SFRAME_MAX_FDE_FRES - 1) + 1;
	u32 per = USTACK_SFRAME_MAX_FDE_FRES;
	struct sframe_walk w;

	for (int k = 0; k < 64; k++)
		stack[k] = pc + 1;	/* RA: the lookup is at pc */
	walk_sec = *sec;
	walk_init(&w, pc, stack, sizeof(stack), &walk_ops, ips, NULL, 64);
	w.ctx = &walk_sec;
	ustack_sframe_walk(&w);
	check("budget-walk-fres", w.end == USTACK_END_BUDGET &&
	      w.err == SFRAME_E_BUDGET &&
	      w.nr == 1 + USTACK_WALK_MAX_FRES / per,
	      "nr %u end %u err %s", w.nr, w.end,
	      ustack_sframe_strerror(w.err));

	/* a caller's own, smaller budget: bytes */
	w.limit = &small;
	ustack_sframe_walk(&w);
	check("budget-walk-bytes", w.end == USTACK_END_BUDGET &&
	      w.nr == 1, "nr %u end %u", w.nr, w.end);

	/*
	 * a dying task: the walk stops between frames once it has read 64 KiB
	 * (here after the first step's long lookup), not before: a short walk
	 * still says where the task was
	 */
	w.limit = NULL;
	pause_stop = 1;
	ustack_sframe_walk(&w);
	pause_stop = 0;
	check("budget-walk-dying", w.end == USTACK_END_EXIT && w.nr == 2,
	      "nr %u end %u", w.nr, w.end);
}

/* validation pauses every STRIDE entries; a dying task stops it */
static void test_budget_validate(const struct sframe_sec *sec)
{
	int err;

	pause_calls = 0;
	err = ustack_sframe_validate(sec);
	check("budget-validate-pauses",
	      !err && pause_calls == (int)((1 + USTACK_SFRAME_MAX_FDE_FRES) /
					  USTACK_SFRAME_VALIDATE_STRIDE),
	      "%s, %d pauses", ustack_sframe_strerror(err), pause_calls);
	pause_stop = 1;
	err = ustack_sframe_validate(sec);
	pause_stop = 0;
	check("budget-validate-dying", err == SFRAME_E_INTR, "%s",
	      ustack_sframe_strerror(err));
}

/* unsorted: refused; a linear lookup stops at its FDE budget */
static void test_budget_unsorted(void)
{
	static const struct sfe_fre one = { .cfa_base = SFE_BASE_SP, .cfa_off = 8 };
	u32 n = USTACK_LOOKUP_MAX_FDES + 8;
	struct sfe_fde *f = calloc(n, sizeof(*f));
	struct sframe_sec sec;
	struct sframe_rule r;
	size_t len;
	u8 *b;
	int err;

	for (u32 k = 0; f && k < n; k++) {
		f[k].start = 0x100000 + 16ULL * k;
		f[k].size = 8;
		f[k].fres = &one;
		f[k].nfres = 1;
	}
	b = f ? enc(2, 0, f, n, &len) : NULL;
	free(f);
	if (b)
		b[3] &= ~SFRAME_F_FDE_SORTED;
	err = !b ? -100 : ustack_sframe_sec_init(&sec, (unsigned long)b,
						 len, VADDR, 0, 0);
	if (!err)
		err = ustack_sframe_validate(&sec);
	check("budget-unsorted-refused", err == SFRAME_E_UNSORTED, "%s",
	      ustack_sframe_strerror(err));
	err = b ? ustack_sframe_find(&sec, 0x100000 + 16ULL * n + 8, &r) : -100;
	check("budget-lookup-fdes", err == SFRAME_E_BUDGET, "%s",
	      ustack_sframe_strerror(err));
	err = b ? ustack_sframe_find(&sec, 0x100000 + 16ULL * 5 + 1, &r) : -100;
	check("budget-lookup-fdes-found", err == 0, "%s",
	      ustack_sframe_strerror(err));
	free(b);
}

static void test_budget(void)
{
	struct sframe_sec sec;
	struct sframe_rule r;
	size_t len;
	u8 *b;
	int err;

	/* the FRE count cap per FDE: v3's own limit */
	b = many_fres(USTACK_SFRAME_MAX_FDE_FRES, &len, &sec);
	err = b ? ustack_sframe_validate(&sec) : -100;
	check("budget-fde-fres-at-cap", !err, "%s", ustack_sframe_strerror(err));
	if (b) {
		test_budget_walks(&sec);
		test_budget_validate(&sec);
	}
	free(b);

	/* one more than a lookup may scan (and over the cap) */
	b = many_fres(USTACK_LOOKUP_MAX_FRES + 1, &len, &sec);
	err = b ? ustack_sframe_validate(&sec) : -100;
	check("budget-fde-fres-over-cap", err == SFRAME_E_NUM_FRES, "%s",
	      ustack_sframe_strerror(err));
	/* a lookup alone is bounded too (an unvalidated section) */
	err = b ? ustack_sframe_find(&sec, 0x1000 + 2 * USTACK_LOOKUP_MAX_FRES + 1,
				     &r) : -100;
	check("budget-lookup-fres", err == SFRAME_E_BUDGET, "%s",
	      ustack_sframe_strerror(err));
	free(b);
	test_budget_unsorted();
}

/*
 * six PCs of one set (index from pc + 1, whose bits above the index's
 * and above them by 8 leave it alone): the four newest stay
 */
#define CACHE_SAME_SET	((u64)SFRAME_CACHE_SETS << 8)
static void test_cache_set_overflow(struct sframe_cache *c, struct sframe_rule *r)
{
	const struct sframe_cache_ent *e;
	struct sframe_rule back;
	int ok = 1, k;

	for (k = 0; k < 6; k++) {
		r->cfa.off = 16 + 8 * k;
		r->fp.off = -16 - 8 * k;
		ok &= ustack_sframe_cache_put(c, CACHE_SAME_SET * (k + 1) + 0x10, r);
	}
	for (k = 0; k < 6; k++) {
		e = ustack_sframe_cache_get(c, CACHE_SAME_SET * (k + 1) + 0x10);
		if (k < 2) {
			ok &= !e;
			continue;
		}
		ok &= e != NULL;
		if (!e)
			continue;
		ustack_sframe_cache_rule(e, &back);
		ok &= back.cfa.kind == SFRAME_LOC_REG_VAL &&
		      back.cfa.reg == SFRAME_REG_RSP &&
		      back.cfa.off == 16 + 8 * k &&
		      back.ra.kind == SFRAME_LOC_CFA_DEREF && back.ra.off == -8 &&
		      back.fp.kind == SFRAME_LOC_CFA_DEREF &&
		      back.fp.off == -16 - 8 * k && !back.flags;
	}
	ok &= !ustack_sframe_cache_get(c, CACHE_SAME_SET + 0x11);
	check("cache-set-overflow", ok, "entries wrong");
}

/*
 * One PC under 64 tags (processes forked from one parent: the same
 * layout): the tag salts the set index, so all 64 stay, where one set
 * would keep 4.
 */
static void test_cache_salt(struct sframe_cache *c, struct sframe_rule *r)
{
	int kept = 0, k;

	for (k = 1; k <= 64; k++) {
		ustack_sframe_cache_set_tag(c, k);
		ustack_sframe_cache_put(c, 0x401230, r);
	}
	for (k = 1; k <= 64; k++) {
		ustack_sframe_cache_set_tag(c, k);
		kept += !!ustack_sframe_cache_get(c, 0x401230);
	}
	ustack_sframe_cache_set_tag(c, 65);
	kept -= !!ustack_sframe_cache_get(c, 0x401230);
	ustack_sframe_cache_reset(c);
	check("cache-salt", kept == 64, "%d of 64 tags' entries kept", kept);
}

/* re-putting a PC replaces its entry, no duplicate */
static void test_cache_replace(struct sframe_cache *c, struct sframe_rule *r)
{
	const struct sframe_cache_ent *e;
	int ok;

	r->cfa.reg = SFRAME_REG_RBP;
	r->cfa.off = 16;
	r->fp.kind = SFRAME_LOC_SAME;
	r->fp.off = 0;
	ok = ustack_sframe_cache_put(c, 0x60010, r);
	e = ustack_sframe_cache_get(c, 0x60010);
	ok &= e && e == &c->e[e - c->e] && !(e->kind & SFRAME_CK_SP) &&
	      !(e->kind & SFRAME_CK_FP_SAVED);
	for (int k = 0; k < SFRAME_CACHE_SIZE; k++)
		ok &= &c->e[k] == e || c->e[k].pc != 0x60010 || !c->e[k].kind;
	check("cache-replace", ok, "entry wrong");
}

/* not cached: flex, signal, FP offsets beyond s8, RA not at CFA-8 */
static void test_cache_refusals(struct sframe_cache *c, struct sframe_rule *r)
{
	const struct sframe_cache_ent *e;
	int ok;

	r->flags = SFRAME_R_FLEX;
	ok = !ustack_sframe_cache_put(c, 0x1234, r);
	r->flags = SFRAME_R_SIGNAL;
	ok &= !ustack_sframe_cache_put(c, 0x1234, r);
	r->flags = 0;
	r->fp.kind = SFRAME_LOC_CFA_DEREF;
	r->fp.off = -136;
	ok &= !ustack_sframe_cache_put(c, 0x1234, r);
	r->fp.off = -16;
	r->ra.off = -16;
	ok &= !ustack_sframe_cache_put(c, 0x1234, r);
	ok &= !ustack_sframe_cache_get(c, 0x1234);
	r->ra.off = -8;
	r->flags = SFRAME_R_OUTERMOST;
	ok &= ustack_sframe_cache_put(c, 0x1234, r);
	e = ustack_sframe_cache_get(c, 0x1234);
	ok &= e && (e->kind & SFRAME_CK_OUTERMOST) &&
	      !(e->kind & SFRAME_CK_STEP);
	check("cache-refusals", ok, "wrong");
}

/* The rule cache: what it keeps, set overflow, refusals (one rule, edited). */
static void test_cache(void)
{
	static struct sframe_cache c;
	struct sframe_rule r;

	ustack_sframe_cache_reset(&c);
	memset(&r, 0, sizeof(r));
	r.cfa.kind = SFRAME_LOC_REG_VAL;
	r.cfa.reg = SFRAME_REG_RSP;
	r.ra.kind = SFRAME_LOC_CFA_DEREF;
	r.ra.off = -8;
	r.fp.kind = SFRAME_LOC_CFA_DEREF;
	test_cache_set_overflow(&c, &r);
	test_cache_replace(&c, &r);
	test_cache_refusals(&c, &r);
	test_cache_salt(&c, &r);
}

/* ---- the stack scan (SFRAME_WALK_GUESS) ------------------------------ */

/* The call decoder: bytes right before a return address, and their length. */
static void test_call_decode(void)
{
	static const struct {
		const char *what;
		u8 n, b[SFRAME_CALL_MAX_LEN];
		u32 len;
	} c[] = {
		{ "e8", 5, { 0xe8, 0xfb, 0xff, 0xff, 0xff }, 5 },
		{ "ff-reg", 2, { 0xff, 0xd0 }, 2 },		/* call *%rax */
		{ "ff-rex-reg", 3, { 0x41, 0xff, 0xd3 }, 2 },	/* call *%r11 */
		{ "ff-ind", 2, { 0xff, 0x10 }, 2 },		/* call *(%rax) */
		{ "ff-sib", 3, { 0xff, 0x14, 0x24 }, 3 },	/* call *(%rsp) */
		{ "ff-disp8", 3, { 0xff, 0x50, 0x08 }, 3 },	/* call *8(%rax) */
		{ "ff-sib-disp8", 4, { 0xff, 0x54, 0x24, 0x08 }, 4 },
		{ "ff-rip", 6, { 0xff, 0x15, 0x10, 0, 0, 0 }, 6 },
		{ "ff-disp32", 6, { 0xff, 0x90, 0, 1, 0, 0 }, 6 },
		{ "ff-sib-disp32", 7, { 0xff, 0x94, 0x24, 0, 1, 0, 0 }, 7 },
		{ "ff-abs", 7, { 0xff, 0x14, 0x25, 0, 0x10, 0, 0 }, 7 },
		{ "ff-index", 7, { 0xff, 0x14, 0xc5, 0, 0x10, 0, 0 }, 7 },
		{ "jmp-reg", 2, { 0xff, 0xe0 }, 0 },		/* jmp *%rax */
		{ "jmp-rip", 6, { 0xff, 0x25, 0x10, 0, 0, 0 }, 0 },
		{ "ff-short", 2, { 0xff, 0x50 }, 0 },		/* disp8 missing */
		{ "ff-long", 4, { 0xff, 0xd0, 0x90, 0x90 }, 0 },	/* ends early */
		{ "nops", 1, { 0x90 }, 0 },
	};
	int bad = 0;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		u8 b[SFRAME_CALL_MAX_LEN];
		u64 t = 0, ret = 0x401000;
		u32 len;

		/* right-aligned, after bytes that decode as nothing */
		memset(b, 0xcc, sizeof(b));
		memcpy(b + sizeof(b) - c[i].n, c[i].b, c[i].n);
		len = ustack_sframe_call_before(b, ret, &t);
		if (len != c[i].len ||
		    (!strcmp(c[i].what, "e8") && t != ret - 5)) {
			printf("  %s: length %u, want %u; target %#llx\n",
			       c[i].what, len, c[i].len,
			       (unsigned long long)t);
			bad++;
		}
	}
	check("call-decode", !bad, "%d wrong", bad);
}

/*
 * A fake text mapping for the scan: leaf at 0x400100, mid at 0x400200
 * (calls leaf: E8 ending at 0x400250), top at 0x400300 (calls mid: E8
 * ending at 0x400350; an indirect call ending at 0x400380; an E8 to
 * 0x400700, unrelated to leaf, ending at 0x400390; an E8 to a PLT stub
 * at 0x400800, ending at 0x4003a0; an E8 to 0x400050, below leaf, ending
 * at 0x4003b0).
 */
#define GT_LO	0x400000ULL
#define GT_LEN	0x1000
static u8 guess_text[GT_LEN];
static int guess_text_calls;

static void guess_put_e8(u64 ret, u64 target)
{
	u8 *p = guess_text + (ret - GT_LO) - 5;
	s32 rel = (s32)(target - ret);

	p[0] = 0xe8;
	memcpy(p + 1, &rel, 4);
}

static int guess_read_code(struct sframe_walk *w, void *dst, u64 addr, u32 len)
{
	if (addr < GT_LO || addr + len > GT_LO + GT_LEN)
		return -EFAULT;
	memcpy(dst, guess_text + (addr - GT_LO), len);
	return 0;
}

static bool guess_is_text(struct sframe_walk *w, u64 addr)
{
	guess_text_calls++;
	return addr >= GT_LO && addr < GT_LO + GT_LEN;
}

static const struct sframe_walk_ops guess_ops = {
	.find_sec = walk_find,
	.read_code = guess_read_code,
	.is_text = guess_is_text,
};

/* guess_text as said above it, and a stack of stale and plausible RAs. */
static void guess_init(u64 *stack, size_t size)
{
	u64 base = (u64)(unsigned long)stack;

	memset(guess_text, 0x90, sizeof(guess_text));
	guess_put_e8(0x400250, 0x400100);
	guess_put_e8(0x400350, 0x400200);
	memcpy(guess_text + 0x380 - 2, "\xff\xd0", 2);
	guess_put_e8(0x400390, 0x400700);
	guess_put_e8(0x4003b0, 0x400050);
	memset(stack, 0, size);
	stack[0] = 0x4003b0;	/* stale, of a function below leaf: gives way */
	stack[1] = 0x400390;	/* stale, contradicted: a plausible one follows */
	stack[2] = 0x400250;	/* plausible: calls leaf */
	stack[3] = base + 64;
	stack[4] = 0x400120;	/* text, but no call before it */
	stack[5] = 0x400350;	/* plausible: calls mid */
	stack[8] = 0x400380;	/* indirect: target unknown, plausible */
	stack[9] = 0x500000;	/* not text */
}

/* The scan off, then on: its frames and how far it looked. */
static void test_guess_frames(struct sframe_walk *w)
{
	static const u64 want[] = { 0x400120, 0x400250, 0x400350, 0x400380 };
	const u64 *ips = w->ips;
	int ok;

	/* off: rbp 0 without a rule is the outermost frame, as before */
	ustack_sframe_walk(w);
	check("guess-off", w->nr == 1 && w->end == USTACK_END_OUTERMOST &&
	      !w->scanned, "nr %u end %u", w->nr, w->end);

	w->flags = SFRAME_WALK_GUESS;
	ustack_sframe_walk(w);
	ok = w->nr == 4 && w->end == USTACK_END_SCAN_END &&
	     !memcmp(ips, want, sizeof(want)) &&
	     w->methods[0] == USTACK_METHOD_REGS;
	for (u32 i = 1; i < w->nr; i++)
		ok &= w->methods[i] == USTACK_METHOD_GUESS;
	check("guess-frames", ok, "nr %u end %u ips %#llx %#llx %#llx %#llx",
	      w->nr, w->end, (unsigned long long)ips[1],
	      (unsigned long long)ips[2], (unsigned long long)ips[3],
	      (unsigned long long)ips[4]);
	/*
	 * An E8 pick looks on for a higher target: 17 words from the first
	 * candidate, 19 (from slot 3: its first at slot 5), 3 (to an
	 * indirect call, whose unknown target stays), a whole window.
	 */
	check("guess-window", w->scanned == 17 + 19 + 3 + USTACK_GUESS_MAX_WORDS,
	      "scanned %u", w->scanned);
}

/*
 * a call through a PLT stub is no contradiction: taken before the call of
 * leaf (its target unknown, it stays); the stack's end comes before the
 * window's
 */
static void test_guess_plt_stack_end(struct sframe_walk *w, u64 *stack,
				     size_t size)
{
	u64 base = (u64)(unsigned long)stack;

	memcpy(guess_text + 0x800, "\xff\x25\x00\x10\x00\x00", 6);
	guess_put_e8(0x4003a0, 0x400800);
	stack[0] = 0;
	stack[1] = 0x4003a0;
	ustack_sframe_walk(w);
	check("guess-plt", w->nr >= 3 && w->ips[1] == 0x4003a0, "nr %u ips %#llx",
	      w->nr, (unsigned long long)w->ips[1]);
	stack[0] = 0x4003b0;
	stack[1] = 0x400390;

	w->st.stack_hi = base + 12 * 8;
	ustack_sframe_walk(w);
	check("guess-stack-end", w->nr == 4 && w->end == USTACK_END_SCAN_FAULT,
	      "nr %u end %u", w->nr, w->end);
	w->st.stack_hi = base + size;
}

/* no-info from the FP-less flag too; depth and budget still bound it */
static void test_guess_bounds(struct sframe_walk *w, u64 *stack)
{
	static const struct sframe_walk_ops no_text = {
		.find_sec = walk_find, .read_code = guess_read_code,
	};
	struct sframe_budget lim = { .fdes = 100, .fres = 100, .bytes = 60 };

	w->flags = SFRAME_WALK_GUESS | SFRAME_WALK_NO_FP;
	w->st.fp = (u64)(unsigned long)stack + 8;
	w->max_frames = 3;
	ustack_sframe_walk(w);
	check("guess-depth", w->nr == 3 && w->end == USTACK_END_DEPTH &&
	      w->ips[2] == 0x400350, "nr %u end %u", w->nr, w->end);
	w->max_frames = 16;
	w->limit = &lim;
	ustack_sframe_walk(w);
	check("guess-budget", w->end == USTACK_END_BUDGET && w->nr < 4 &&
	      w->scanned <= 60 / 8, "nr %u end %u scanned %u", w->nr, w->end,
	      w->scanned);
	w->limit = NULL;

	/* without is_text there is nothing to scan with */
	w->ops = &no_text;
	ustack_sframe_walk(w);
	check("guess-needs-hooks", w->nr == 1 &&
	      w->end == USTACK_END_NO_INFO, "nr %u end %u", w->nr, w->end);
}

/* No section at all (no ctx): only the scan finds callers. */
static void test_walk_guess(void)
{
	static u64 stack[1024];
	u64 ips[16];
	u8 methods[16];
	struct sframe_walk w;

	guess_init(stack, sizeof(stack));
	walk_init(&w, 0x400120, stack, sizeof(stack), &guess_ops, ips, methods, 16);
	test_guess_frames(&w);
	test_guess_plt_stack_end(&w, stack, sizeof(stack));
	test_guess_bounds(&w, stack);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_default_all_versions();
	test_plt_entry();
	test_outermost();
	test_flex_signal();
	test_malformed();
	test_step_checks();
	test_walk();
	test_walk_signal();
	test_walk_sigreturn();
	test_budget();
	test_cache();
	test_call_decode();
	test_walk_guess();
	return 0;
}
