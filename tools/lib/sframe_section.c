// SPDX-License-Identifier: GPL-2.0
/* sframe_section.c - an SFrame section's length and relocation (sframe_section.h). */
#include <stdint.h>
#include <string.h>
#include "sframe_section.h"
#include "ustack_sframe.h"	/* the format's constants: the core's */

/* Bytes the section uses, from its header; 0 if it is not sane. */
size_t sframe_section_len(const uint8_t *p, size_t avail)
{
	uint32_t nfdes, fre_len, fdeoff, freoff;
	uint64_t hdr, fde_end, fre_end;
	uint16_t magic;
	unsigned int fdesz;

	if (avail < SFRAME_HDR_SIZE)
		return 0;
	memcpy(&magic, p, 2);
	if (magic != SFRAME_MAGIC || p[4] != SFRAME_ABI_AMD64_ENDIAN_LITTLE)
		return 0;
	switch (p[2]) {
	case SFRAME_VERSION_1:
		fdesz = SFRAME_FDE_SIZE_V1;
		break;
	case SFRAME_VERSION_2:
		fdesz = SFRAME_FDE_SIZE_V2;
		break;
	case SFRAME_VERSION_3:
		fdesz = SFRAME_FDE_SIZE_V3;
		break;
	default:
		return 0;
	}
	memcpy(&nfdes, p + 8, 4);
	memcpy(&fre_len, p + 16, 4);
	memcpy(&fdeoff, p + 20, 4);
	memcpy(&freoff, p + 24, 4);
	hdr = SFRAME_HDR_SIZE + (uint64_t)p[7];
	fde_end = hdr + fdeoff + (uint64_t)nfdes * fdesz;
	fre_end = hdr + freoff + (uint64_t)fre_len;
	if (fde_end > avail || fre_end > avail)
		return 0;
	return fde_end > fre_end ? fde_end : fre_end;
}

/*
 * Shift every FDE start of a v3 PCREL section by @delta (see sframe_entry.h).
 * Returns 0, or -1 if the section is not v3 PCREL.
 */
int sframe_section_relocate(uint8_t *p, size_t len, int64_t delta)
{
	uint32_t nfdes, fdeoff;
	uint8_t *fde;

	if (!sframe_section_len(p, len) || p[2] != SFRAME_VERSION_3 ||
	    !(p[3] & SFRAME_F_FDE_FUNC_START_PCREL))
		return -1;
	memcpy(&nfdes, p + 8, 4);
	memcpy(&fdeoff, p + 20, 4);
	fde = p + SFRAME_HDR_SIZE + p[7] + fdeoff;
	for (uint32_t i = 0; i < nfdes; i++, fde += SFRAME_FDE_SIZE_V3) {
		int64_t s;

		memcpy(&s, fde, 8);
		s += delta;
		memcpy(fde, &s, 8);
	}
	return 0;
}

