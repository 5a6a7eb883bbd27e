// SPDX-License-Identifier: GPL-2.0
/*
 * sfcheck NAME FILE: check the SFrame decoder against independent oracles,
 * PC by PC, over every PC from the first FDE's start to the last FDE's end:
 *   ehframe   the .eh_frame CFI read by libdw (PLT CFA expressions evaluated)
 *   libsframe binutils 2.40 libsframe (v1 only; PCMASK FDEs skipped: it is
 *             known to be wrong there)
 *   reencode  the section re-encoded as v1, v2, v2+PCREL, v3, v3+PCREL by
 *             sframe_encode() must give identical answers; v1 byte-identical
 * Prints PASS:/FAIL: sframe/NAME/<check> lines; exit status 1 on a failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdarg.h>
#include "ustack_sframe.h"
#include "sframe_encode.h"
#include "elf_sframe.h"

static const char *name;
static int failures;

static void result(const char *check, long bad, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void result(const char *check, long bad, const char *fmt, ...)
{
	va_list ap;

	if (!bad) {
		printf("PASS: sframe/%s/%s\n", name, check);
		return;
	}
	failures++;
	printf("FAIL: sframe/%s/%s: ", name, check);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/*
 * A rule in comparable form.  CFA = reg + off, or *(reg + off) (a v3 flex
 * rule, DRAP); FP the same value, *(CFA + off), or *(reg + off).
 */
struct crule {
	int kind;		/* 0 none, 1 rule, 2 outermost, 3 other/unknown */
	int cfa_reg;
	long cfa_off;
	int cfa_deref;
	int fp_saved;		/* 0 same, 1 *(CFA + off), 2 *(fp_reg + off) */
	int fp_reg;
	long fp_off;
	int ra_ok;		/* RA at CFA-8 */
};

static void from_rule(const struct sframe_rule *r, struct crule *c)
{
	memset(c, 0, sizeof(*c));
	if (r->flags & SFRAME_R_OUTERMOST) {
		c->kind = 2;
		return;
	}
	c->kind = 1;
	if (r->cfa.kind == SFRAME_LOC_REG_DEREF)
		c->cfa_deref = 1;
	else if (r->cfa.kind != SFRAME_LOC_REG_VAL)
		c->kind = 3;
	c->cfa_reg = r->cfa.reg;
	c->cfa_off = r->cfa.off;
	if (r->fp.kind == SFRAME_LOC_CFA_DEREF) {
		c->fp_saved = 1;
		c->fp_off = r->fp.off;
	} else if (r->fp.kind == SFRAME_LOC_REG_DEREF) {
		c->fp_saved = 2;
		c->fp_reg = r->fp.reg;
		c->fp_off = r->fp.off;
	} else if (r->fp.kind != SFRAME_LOC_SAME) {
		c->kind = 3;
	}
	c->ra_ok = r->ra.kind == SFRAME_LOC_CFA_DEREF && r->ra.off == -8;
}

static int crule_eq(const struct crule *a, const struct crule *b)
{
	if (a->kind != b->kind)
		return 0;
	if (a->kind != 1)
		return 1;
	return a->cfa_reg == b->cfa_reg && a->cfa_off == b->cfa_off &&
	       a->cfa_deref == b->cfa_deref && a->fp_saved == b->fp_saved &&
	       (!a->fp_saved || a->fp_off == b->fp_off) &&
	       (a->fp_saved != 2 || a->fp_reg == b->fp_reg) && a->ra_ok == b->ra_ok;
}

static void fmt_crule(char *buf, size_t n, const struct crule *c)
{
	char cfa[40], fp[40];

	if (c->kind == 0) {
		snprintf(buf, n, "none");
		return;
	}
	if (c->kind == 2) {
		snprintf(buf, n, "outermost");
		return;
	}
	if (c->kind == 3) {
		snprintf(buf, n, "other");
		return;
	}
	snprintf(cfa, sizeof(cfa), c->cfa_deref ? "*(r%d%+ld)" : "r%d%+ld",
		 c->cfa_reg, c->cfa_off);
	if (c->fp_saved == 1)
		snprintf(fp, sizeof(fp), "c%+ld", c->fp_off);
	else if (c->fp_saved == 2)
		snprintf(fp, sizeof(fp), "*(r%d%+ld)", c->fp_reg, c->fp_off);
	else
		snprintf(fp, sizeof(fp), "u");
	snprintf(buf, n, "cfa=%s fp=%s ra=%s", cfa, fp, c->ra_ok ? "c-8" : "?");
}

/* One DW_OP_breg<N>/bregx: its register and offset. */
static int op_breg(const Dwarf_Op *op, int *reg, long *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (long)(int64_t)op->number;
	} else if (op->atom == DW_OP_bregx) {
		*reg = (int)op->number;
		*off = (long)(int64_t)op->number2;
	} else {
		return -1;
	}
	return 0;
}

/* ---- .eh_frame via libdw ------------------------------------------------ */

/* Evaluate a CFA expression with rsp = 0 and rip = pc (the PLT form). */
static int eval_cfa_expr(const Dwarf_Op *ops, size_t n, uint64_t pc, long *off)
{
	int64_t st[16];
	int sp = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned int a = ops[i].atom;
		int64_t x, y;

		if (sp >= 15)
			return -1;
		if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			st[sp++] = a - DW_OP_lit0;
		} else if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
			unsigned int reg = a - DW_OP_breg0;

			if (reg == SFRAME_REG_RSP)
				st[sp++] = (int64_t)ops[i].number;
			else if (reg == SFRAME_REG_RA)
				st[sp++] = (int64_t)(pc + ops[i].number);
			else
				return -1;
		} else if (a == DW_OP_const1u || a == DW_OP_const1s ||
			   a == DW_OP_const2u || a == DW_OP_const2s ||
			   a == DW_OP_const4u || a == DW_OP_const4s ||
			   a == DW_OP_constu || a == DW_OP_consts) {
			st[sp++] = (int64_t)ops[i].number;
		} else if (a == DW_OP_plus_uconst) {
			if (sp < 1)
				return -1;
			st[sp - 1] += (int64_t)ops[i].number;
		} else {
			if (sp < 2)
				return -1;
			y = st[--sp];
			x = st[--sp];
			switch (a) {
			case DW_OP_and: x &= y; break;
			case DW_OP_plus: x += y; break;
			case DW_OP_minus: x -= y; break;
			case DW_OP_shl: x <<= y; break;
			case DW_OP_ge: x = x >= y; break;
			case DW_OP_gt: x = x > y; break;
			case DW_OP_lt: x = x < y; break;
			case DW_OP_le: x = x <= y; break;
			default: return -1;
			}
			st[sp++] = x;
		}
	}
	if (sp != 1)
		return -1;
	*off = (long)st[0];
	return 0;
}

static void eh_rule(Dwarf_CFI *cfi, uint64_t pc, struct crule *c)
{
	Dwarf_Frame *f;
	Dwarf_Op *ops, mem[3];
	size_t n;

	memset(c, 0, sizeof(*c));
	if (dwarf_cfi_addrframe(cfi, pc, &f))
		return;
	c->kind = 1;
	if (dwarf_frame_cfa(f, &ops, &n) || !n) {
		c->kind = 3;
	} else if (n == 1 && op_breg(&ops[0], &c->cfa_reg, &c->cfa_off) == 0) {
		/* DW_CFA_def_cfa: any register (r10 under DRAP) */
	} else if (n == 2 && ops[1].atom == DW_OP_deref &&
		   op_breg(&ops[0], &c->cfa_reg, &c->cfa_off) == 0) {
		c->cfa_deref = 1;	/* DRAP: DW_CFA_def_cfa_expression */
	} else if (eval_cfa_expr(ops, n, pc, &c->cfa_off) == 0) {
		c->cfa_reg = SFRAME_REG_RSP;
	} else {
		c->kind = 3;
	}
	/*
	 * rbp: no ops = same value / undefined = "u"; CFA+N = saved at
	 * CFA+N; DW_CFA_expression breg<N> = saved at reg N + off (libdw
	 * puts the CFA first, as the expression's initial stack).
	 */
	if (dwarf_frame_register(f, SFRAME_REG_RBP, mem, &ops, &n) == 0) {
		if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
		    ops[1].atom == DW_OP_plus_uconst) {
			c->fp_saved = 1;
			c->fp_off = (long)(int64_t)ops[1].number;
		} else if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
			   op_breg(&ops[1], &c->fp_reg, &c->fp_off) == 0) {
			c->fp_saved = 2;
		} else if (n == 1 && op_breg(&ops[0], &c->fp_reg, &c->fp_off) == 0) {
			c->fp_saved = 2;
		} else if (n) {
			c->kind = 3;
		}
	} else {
		c->kind = 3;
	}
	if (dwarf_frame_register(f, SFRAME_REG_RA, mem, &ops, &n) == 0) {
		if (!ops)
			c->kind = 2;	/* RA undefined */
		else if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
			 ops[1].atom == DW_OP_plus_uconst &&
			 (int64_t)ops[1].number == -8)
			c->ra_ok = 1;
	}
	free(f);
}

/* ---- libsframe 2.40: ls_oracle.c (own unit: its sframe_encode clashes) -- */

void *ls_open(const void *buf, size_t len, int *err);
/* 0 none, 1 rule; *sp base SP; *fp_saved and *fp_off; -1 on error */
int ls_find(void *ctx, int32_t rel_pc, int *base_sp, long *cfa_off,
	    int *fp_saved, long *fp_off);

static void ls_rule(void *ctx, uint64_t pc, uint64_t vaddr, struct crule *c)
{
	int base_sp, fp_saved, k;

	memset(c, 0, sizeof(*c));
	k = ls_find(ctx, (int32_t)(pc - vaddr), &base_sp, &c->cfa_off,
		    &fp_saved, &c->fp_off);
	if (!k)
		return;
	c->kind = k < 0 ? 3 : 1;
	c->cfa_reg = base_sp ? SFRAME_REG_RSP : SFRAME_REG_RBP;
	c->fp_saved = fp_saved;
	c->ra_ok = 1;		/* AMD64: fixed at CFA-8 */
}

/* ---- decode all FDEs into encoder input -------------------------------- */

struct model {
	struct sfe_fde *fdes;
	struct sfe_fre *fres;
	size_t n;
};

static int build_model(const struct sframe_sec *sec, struct model *m)
{
	struct sframe_fde fde;
	struct sframe_fre fre;
	struct sframe_rule r;
	size_t k = 0;
	int err;

	m->n = sec->num_fdes;
	m->fdes = calloc(m->n + 1, sizeof(*m->fdes));
	m->fres = calloc(sec->num_fres + 1, sizeof(*m->fres));
	if (!m->fdes || !m->fres)
		return -ENOMEM;
	for (u32 i = 0; i < sec->num_fdes; i++) {
		struct sfe_fde *f = &m->fdes[i];
		u32 pos;

		err = ustack_sframe_read_fde(sec, i, &fde);
		if (err)
			return err;
		f->start = fde.func_start;
		f->size = fde.func_size;
		f->pcmask = fde.info & SFRAME_INFO_PCMASK;
		f->rep_size = f->pcmask ? fde.rep_size : 0;
		f->signal = sec->version == 3 && (fde.info & SFRAME_INFO_SIGNAL_V3);
		f->flex = SFRAME_INFO2_FDE_TYPE(fde.info2) == SFRAME_FDE_TYPE_FLEX;
		f->fres = &m->fres[k];
		f->nfres = fde.num_fres;
		pos = fde.fres_off;
		for (u32 j = 0; j < fde.num_fres; j++, k++) {
			struct sfe_fre *o = &m->fres[k];

			if (k >= sec->num_fres)
				return SFRAME_E_NUM_FRES;
			err = ustack_sframe_read_fre(sec, &fde, &pos, &fre);
			if (!err)
				err = ustack_sframe_fre_rule(sec, &fde, &fre, &r);
			if (err)
				return err;
			o->start = fre.start;
			o->outermost = r.flags & SFRAME_R_OUTERMOST;
			o->cfa_base = r.cfa.reg == SFRAME_REG_RSP ? SFE_BASE_SP :
				      SFE_BASE_FP;
			o->cfa_off = r.cfa.off;
			o->fp_saved = r.fp.kind == SFRAME_LOC_CFA_DEREF;
			o->fp_off = r.fp.off;
			o->cfa = r.cfa;
			o->ra = r.ra;
			o->fp = r.fp;
		}
	}
	return 0;
}

/*
 * 0, or 1 + the first FDE whose fields or FRE encodings differ.  The FRE
 * start width may differ (ld picks ADDR2 for a 16-byte PLT0); the info
 * byte (base, count, word size) and the words must be identical.
 */
static long same_bytes(const struct sframe_sec *a, const struct sframe_sec *b)
{
	if (a->num_fdes != b->num_fdes || a->num_fres != b->num_fres)
		return 1;
	for (u32 i = 0; i < a->num_fdes; i++) {
		struct sframe_fde fa, fb;
		struct sframe_fre ra, rb;
		u32 pa, pb;

		if (ustack_sframe_read_fde(a, i, &fa) || ustack_sframe_read_fde(b, i, &fb) ||
		    fa.func_start != fb.func_start ||
		    fa.func_size != fb.func_size ||
		    (fa.info & ~0xfu) != (fb.info & ~0xfu) ||
		    fa.info2 != fb.info2 || fa.num_fres != fb.num_fres ||
		    ((fa.info & SFRAME_INFO_PCMASK) && fa.rep_size != fb.rep_size))
			return 1 + i;
		pa = fa.fres_off;
		pb = fb.fres_off;
		for (u32 j = 0; j < fa.num_fres; j++) {
			if (ustack_sframe_read_fre(a, &fa, &pa, &ra) ||
			    ustack_sframe_read_fre(b, &fb, &pb, &rb) ||
			    ra.start != rb.start || ra.info != rb.info ||
			    memcmp(ra.uwords, rb.uwords,
				   ra.nwords * sizeof(ra.uwords[0])))
				return 1 + i;
		}
	}
	return 0;
}

/* Is @pc inside some FDE's range? (ranges sorted by start) */
static int in_fde(const struct model *m, uint64_t pc)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->fdes[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && pc - m->fdes[lo - 1].start < m->fdes[lo - 1].size;
}

/* Field by field: struct sframe_loc has padding that find leaves as it was. */
static bool loc_eq(const struct sframe_loc *a, const struct sframe_loc *b)
{
	return a->kind == b->kind && a->reg == b->reg && a->off == b->off;
}

/* PCs checked: the FDEs' span, 16 bytes wider on each side. */
static int pc_range(const struct sframe_sec *sec, uint64_t *lo, uint64_t *hi)
{
	*lo = UINT64_MAX;
	*hi = 0;
	for (u32 i = 0; i < sec->num_fdes; i++) {
		struct sframe_fde fde;

		if (ustack_sframe_read_fde(sec, i, &fde))
			return 1;
		if (fde.func_start < *lo)
			*lo = fde.func_start;
		if (fde.func_start + fde.func_size > *hi)
			*hi = fde.func_start + fde.func_size;
	}
	*lo -= *lo >= 16 ? 16 : *lo;
	*hi += 16;
	return 0;
}

/* What the oracles said, PC by PC. */
struct tally {
	long n_pcs, n_eh, eh_bad, eh_nocover, ls_n, ls_bad, ls_skip, dec_bad;
};

/* On stderr: at @pc, oracle @a said @ra and oracle @b said @rb. */
static void differs(uint64_t pc, const char *a, const struct crule *ra,
		    const char *b, const struct crule *rb)
{
	char e1[96], e2[96];

	fmt_crule(e1, sizeof(e1), ra);
	fmt_crule(e2, sizeof(e2), rb);
	fprintf(stderr, "%s: 0x%" PRIx64 " %s %s, %s %s\n", name, pc, a, e1, b, e2);
}

/* Our rule @ours at @pc against .eh_frame's. */
static void vs_ehframe(Dwarf_CFI *cfi, const struct model *m, uint64_t pc,
		       const struct crule *ours, struct tally *t)
{
	struct crule eh;

	eh_rule(cfi, pc, &eh);
	if (ours->kind && eh.kind) {
		t->n_eh++;
		if (!crule_eq(ours, &eh) && t->eh_bad++ < 10)
			differs(pc, "sframe", ours, "eh_frame", &eh);
	} else if (ours->kind && !eh.kind) {
		t->eh_bad++;
		fprintf(stderr, "%s: 0x%" PRIx64 " SFrame rule but no CFI\n", name, pc);
	} else if (!ours->kind && eh.kind) {
		t->eh_nocover++;
		if (in_fde(m, pc) && t->eh_bad++ < 10)
			fprintf(stderr, "%s: 0x%" PRIx64 " none inside an FDE\n",
				name, pc);
	}
}

/* Our rule @ours at @pc against libsframe's (@vaddr: the section's). */
static void vs_libsframe(void *ls, uint64_t vaddr, uint64_t pc,
			 const struct crule *ours, struct tally *t)
{
	struct crule lsr;

	ls_rule(ls, pc, vaddr, &lsr);
	t->ls_n++;
	if (!crule_eq(ours, &lsr) && t->ls_bad++ < 10)
		differs(pc, "ours", ours, "libsframe", &lsr);
}

/* Every PC of [@lo, @hi): decode, .eh_frame (@path's), libsframe (v1). */
static void check_oracles(const char *path, const struct elf_sframe *es,
			  const struct sframe_sec *sec, const struct model *m,
			  uint64_t lo, uint64_t hi)
{
	struct tally t = { 0 };
	struct sframe_rule r;
	int err, ls_err = 0, fd;
	Dwarf_CFI *cfi;
	void *ls;
	Elf *elf;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cfi = elf ? dwarf_getcfi_elf(elf) : NULL;
	ls = sec->version == 1 ? ls_open(es->data, es->size, &ls_err) : NULL;
	for (uint64_t pc = lo; pc < hi; pc++) {
		struct crule ours;

		t.n_pcs++;
		err = ustack_sframe_find(sec, pc, &r);
		if (err && err != SFRAME_E_NOINFO) {
			if (t.dec_bad++ < 5)
				fprintf(stderr, "%s: 0x%" PRIx64 ": %s\n", name,
					pc, ustack_sframe_strerror(err));
			continue;
		}
		if (err)
			memset(&ours, 0, sizeof(ours));
		else
			from_rule(&r, &ours);
		if (cfi)
			vs_ehframe(cfi, m, pc, &ours, &t);
		if (ls && in_fde(m, pc)) {
			if (!err && (r.flags & SFRAME_R_PCMASK))
				t.ls_skip++;
			else
				vs_libsframe(ls, es->vaddr, pc, &ours, &t);
		}
	}
	result("decode", t.dec_bad, "%ld PCs gave errors", t.dec_bad);
	if (cfi)
		result("ehframe", t.eh_bad || !t.n_eh,
		       "%ld of %ld PCs differ from .eh_frame", t.eh_bad, t.n_eh);
	else
		result("ehframe", 1, "no .eh_frame CFI");
	printf("# %s: %ld PCs, %ld compared with .eh_frame, %ld with CFI but no SFrame\n",
	       name, t.n_pcs, t.n_eh, t.eh_nocover);
	if (sec->version != 1)
		return;
	result("libsframe", !ls || t.ls_bad || !t.ls_n,
	       "%ld of %ld PCs differ from libsframe (err %d)", t.ls_bad, t.ls_n, ls_err);
	printf("# %s: %ld PCs compared with libsframe, %ld PCMASK PCs skipped\n",
	       name, t.ls_n, t.ls_skip);
}

/* How many PCs of [@lo, @hi) @a and @b answer differently. */
static long diff_pcs(const struct sframe_sec *a, const struct sframe_sec *b,
		     const char *tag, uint64_t lo, uint64_t hi)
{
	struct sframe_rule r, r2;
	long bad = 0;

	for (uint64_t pc = lo; pc < hi; pc++) {
		int x = ustack_sframe_find(a, pc, &r);
		int y = ustack_sframe_find(b, pc, &r2);

		if (x != y || (!x && (!loc_eq(&r.cfa, &r2.cfa) ||
				      !loc_eq(&r.fp, &r2.fp) ||
				      !loc_eq(&r.ra, &r2.ra) ||
				      r.flags != r2.flags ||
				      r.fre_start != r2.fre_start ||
				      r.func_start != r2.func_start))) {
			if (bad++ < 5)
				fprintf(stderr, "%s: %s: 0x%" PRIx64
					" differs (%d/%d)\n", name, tag, pc, x, y);
		}
	}
	return bad;
}

/* @sec re-encoded as version @v with @flags gives the same answers. */
static void check_reencode(const struct elf_sframe *es, const struct sframe_sec *sec,
			   const struct model *m, int v, unsigned int flags,
			   const char *tag, uint64_t lo, uint64_t hi)
{
	struct sframe_sec s2;
	void *buf;
	size_t len;
	long bad;
	int err = sframe_encode(v, flags | (sec->flags & SFRAME_F_FRAME_POINTER &
					    (v < 3 ? 0xff : 0)),
				es->vaddr, m->fdes, m->n, &buf, &len);

	if (err == -EOPNOTSUPP && v < sec->version) {
		/* v3 flex/signal FDEs, PLT rep_size 8: not in v1/v2 */
		printf("# %s: %s: not representable in v%d (gas/ld's v%d uses what it lacks)\n",
		       name, tag, v, sec->version);
		return;
	}
	if (err) {
		result(tag, 1, "encode: %s", strerror(-err));
		return;
	}
	err = ustack_sframe_sec_init(&s2, (unsigned long)buf, len, es->vaddr, 0, 0);
	if (!err)
		err = ustack_sframe_validate(&s2);
	if (err) {
		result(tag, 1, "decode: %s", ustack_sframe_strerror(err));
		free(buf);
		return;
	}
	bad = diff_pcs(sec, &s2, tag, lo, hi);
	result(tag, bad, "%ld PCs differ", bad);
	if (v == sec->version && !(flags & ~sec->flags))
		result("reencode-bytes", same_bytes(sec, &s2),
		       "FDE %ld: re-encoded bytes differ", same_bytes(sec, &s2) - 1);
	free(buf);
}

int main(int argc, char **argv)
{
	static const struct { int v; unsigned int f; const char *tag; } vs[] = {
		{ 1, 0, "reencode-v1" }, { 2, 0, "reencode-v2" },
		{ 2, SFRAME_F_FDE_FUNC_START_PCREL, "reencode-v2-pcrel" },
		{ 3, 0, "reencode-v3" },
		{ 3, SFRAME_F_FDE_FUNC_START_PCREL, "reencode-v3-pcrel" },
	};
	struct elf_sframe es;
	struct sframe_sec sec;
	struct model m;
	const char *msg;
	uint64_t lo, hi;
	int err;

	if (argc != 3) {
		fprintf(stderr, "usage: sfcheck NAME FILE\n");
		return 2;
	}
	name = argv[1];
	err = elf_sframe_read(argv[2], &es, &msg);
	if (err) {
		result("load", 1, "%s", msg);
		return 1;
	}
	err = ustack_sframe_sec_init(&sec, (unsigned long)es.data, es.size, es.vaddr,
			      0, 0);
	if (!err)
		err = ustack_sframe_validate(&sec);
	result("validate", err, "%s", ustack_sframe_strerror(err));
	if (err || pc_range(&sec, &lo, &hi))
		return 1;
	err = build_model(&sec, &m);
	if (err) {
		result("model", 1, "%s", ustack_sframe_strerror(err));
		return 1;
	}
	check_oracles(argv[2], &es, &sec, &m, lo, hi);
	/* re-encode in every version and compare answers PC by PC */
	for (size_t v = 0; v < sizeof(vs) / sizeof(vs[0]); v++)
		check_reencode(&es, &sec, &m, vs[v].v, vs[v].f, vs[v].tag, lo, hi);
	return failures ? 1 : 0;
}
