/* SPDX-License-Identifier: GPL-2.0 */
/* shim_sframe.h - SFrame header helpers for the shim (shim_sframe.c). */
#ifndef SFRAME_REGISTER_SHIM_SFRAME_H
#define SFRAME_REGISTER_SHIM_SFRAME_H

#include <stddef.h>
#include <stdint.h>

#ifndef SHIM_HIDDEN
#define SHIM_HIDDEN __attribute__((visibility("hidden")))
#endif

/* Bytes an AMD64 SFrame section at @p uses (header, FDEs, FREs), if they
 * fit in @avail; 0 if the header is not sane. */
SHIM_HIDDEN size_t shim_sframe_len(const uint8_t *p, size_t avail);

/*
 * Add @delta to every FDE start offset of the v3 PCREL section @p (@len
 * bytes): for a cache entry encoded at vaddr 0 and now at address S for an
 * object with load bias B, delta = B - S.  Returns 0, or -1 if @p is not a
 * sane v3 PCREL section.
 */
SHIM_HIDDEN int shim_sframe_relocate(uint8_t *p, size_t len, int64_t delta);

#endif
