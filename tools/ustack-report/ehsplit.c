// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: the part of a function that GCC split off (hot/cold
 * partitioning: "func.cold"), in an object whose .symtab is stripped.
 * Only the dynamic symbol of the function's first part remains; the
 * other part is code no symbol covers, and its frames would be nameless.
 * GCC writes the split part's FDE right after the function's own in
 * .eh_frame: the FDE that follows the one covering the function, if it
 * starts where no symbol does, is taken for that part (symbolize.c asks
 * for _PyEval_EvalFrameDefault only: Debian's Python 3.14 and 3.15 run
 * their evaluation loop there).
 *
 * Reads .eh_frame as laid out in the file: CIEs for their FDE pointer
 * encoding ('R' augmentation), FDEs for their pc ranges, in order.  Every
 * length is checked against the section; anything it cannot read ends
 * the search without a result.
 */
#include <string.h>
#include <gelf.h>

#include "report.h"

#define DW_EH_PE_absptr		0x00
#define DW_EH_PE_udata4		0x03
#define DW_EH_PE_sdata4		0x0b
#define DW_EH_PE_udata8		0x04
#define DW_EH_PE_sdata8		0x0c
#define DW_EH_PE_pcrel		0x10
#define DW_EH_PE_omit		0xff

struct rd {
	const unsigned char *p, *end;
};

static int u8(struct rd *r, unsigned int *v)
{
	if (r->p >= r->end)
		return -1;
	*v = *r->p++;
	return 0;
}

static int uleb(struct rd *r, uint64_t *v)
{
	unsigned int b, shift = 0;

	*v = 0;
	do {
		if (u8(r, &b) || shift > 63)
			return -1;
		*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	return 0;
}

/* A pointer of encoding @enc (absptr, [us]data4/8, optionally pcrel). */
static int ptr(struct rd *r, unsigned int enc, uint64_t field_addr,
	       uint64_t *v)
{
	int32_t s4;
	uint32_t u4;
	uint64_t u;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		if (r->end - r->p < 8)
			return -1;
		memcpy(&u, r->p, 8);
		r->p += 8;
		break;
	case DW_EH_PE_udata4:
		if (r->end - r->p < 4)
			return -1;
		memcpy(&u4, r->p, 4);
		r->p += 4;
		u = u4;
		break;
	case DW_EH_PE_sdata4:
		if (r->end - r->p < 4)
			return -1;
		memcpy(&s4, r->p, 4);
		r->p += 4;
		u = (uint64_t)(int64_t)s4;
		break;
	default:
		return -1;
	}
	if ((enc & 0x70) == DW_EH_PE_pcrel)
		u += field_addr;
	else if (enc & 0x70)
		return -1;
	*v = u;
	return 0;
}

/* The FDE pointer encoding of the CIE at @cie; -1 if unreadable. */
static int cie_encoding(const unsigned char *cie, const unsigned char *end)
{
	struct rd r = { cie, end };
	const char *aug;
	unsigned int ver, b, enc = DW_EH_PE_absptr;
	uint64_t skip;
	size_t n;

	if (end - cie < 9)
		return -1;
	r.p = cie + 8;		/* length, CIE id */
	if (u8(&r, &ver))
		return -1;
	aug = (const char *)r.p;
	n = strnlen(aug, r.end - r.p);
	if (n == (size_t)(r.end - r.p))
		return -1;
	r.p += n + 1;
	if (uleb(&r, &skip) || uleb(&r, &skip))	/* code, data alignment */
		return -1;
	if (ver == 1 ? u8(&r, &b) : uleb(&r, &skip))	/* return register */
		return -1;
	if (aug[0] != 'z')
		return aug[0] ? -1 : DW_EH_PE_absptr;
	if (uleb(&r, &skip))	/* augmentation data length */
		return -1;
	for (aug++; *aug; aug++) {
		if (*aug == 'R') {
			if (u8(&r, &enc))
				return -1;
			return enc;
		} else if (*aug == 'L') {
			if (u8(&r, &b))
				return -1;
		} else if (*aug == 'P') {
			uint64_t pers;

			if (u8(&r, &b) || ptr(&r, b & 0x7f, 0, &pers))
				return -1;
		} else if (*aug != 'S' && *aug != 'B') {
			return -1;
		}
	}
	return enc;
}

/*
 * In @elf, the FDE after the one covering @func (a symbol's address):
 * its range in [*lo, *hi).  0, or -1 when there is none to be read.
 */
int eh_next_fde(Elf *elf, uint64_t func, uint64_t *lo, uint64_t *hi)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d = NULL;
	size_t shstr;
	const unsigned char *base, *end, *p;
	int found = 0;

	if (elf_getshdrstrndx(elf, &shstr))
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstr, sh.sh_name);
		if (name && !strcmp(name, ".eh_frame") && sh.sh_type == SHT_PROGBITS) {
			d = elf_getdata(scn, NULL);
			break;
		}
	}
	if (!d || !d->d_buf)
		return -1;
	base = d->d_buf;
	end = base + d->d_size;
	for (p = base; end - p >= 8;) {
		uint32_t len, id;
		const unsigned char *next;
		struct rd r;
		uint64_t start, range;
		int enc;

		memcpy(&len, p, 4);
		if (!len || len == 0xffffffffu || len > (size_t)(end - p) - 4)
			break;
		next = p + 4 + len;
		memcpy(&id, p + 4, 4);
		if (!id || id > (size_t)(p + 4 - base)) {	/* a CIE */
			p = next;
			continue;
		}
		enc = cie_encoding(p + 4 - id, end);
		r.p = p + 8;
		r.end = next;
		if (enc < 0 ||
		    ptr(&r, enc, sh.sh_addr + (r.p - base), &start) ||
		    ptr(&r, enc & 0x0f, 0, &range))
			return -1;
		if (found) {
			*lo = start;
			*hi = start + range;
			return 0;
		}
		found = start <= func && func - start < range;
		p = next;
	}
	return -1;
}
