/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sframe_section.h - the little the shim needs to know of an SFrame
 * section, from its header alone: its length, and shifting v3 PCREL FDE
 * starts.  Not a decoder: the kernel validates and decodes (the SFrame
 * core, module/ustack_sframe.c), and the shim keeps the decoder out of
 * every process.
 */
#ifndef TOOLS_SFRAME_SECTION_H
#define TOOLS_SFRAME_SECTION_H

#include <stddef.h>
#include <stdint.h>

/* Bytes an AMD64 SFrame section at @p uses (header, FDEs, FREs), if they
 * fit in @avail; 0 if the header is not sane. */
size_t sframe_section_len(const uint8_t *p, size_t avail);

/*
 * Add @delta to every FDE start offset of the v3 PCREL section @p (@len
 * bytes): for a cache entry encoded at vaddr 0 and now at address S for an
 * object with load bias B, delta = B - S.  Returns 0, or -1 if @p is not a
 * sane v3 PCREL section.
 */
int sframe_section_relocate(uint8_t *p, size_t len, int64_t delta);

#endif
