/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cache_fmt.h - the shim's on-disk SFrame cache entries.
 *
 * Directory: $XDG_CACHE_HOME/ustack, else $HOME/.cache/ustack (mode 0700);
 * for root (euid 0) /var/cache/ustack (mode 0755, entries 0644), which
 * other users' shims also read (after their own directory, before
 * generating: a daemon without a writable home still finds root's entries).
 * Only directories owned by the user (or root, for the system one) and not
 * writable by group or others are used.  One file per object, named
 * "<build-id hex>.v3.sframe" (objects without a build-id are not cached).
 * Written by `sframe-register gen --cache OUT --build-id HEX FILE`, which
 * refuses when FILE's build-id is not HEX (the file was replaced since it
 * was mapped), atomically (temporary file + rename).
 *
 * Next to the entries: <build-id>.lock (flock: one generator per entry when
 * processes start together) and <build-id>.vdso.so (the vDSO's image, the
 * generator's input for it).
 *
 * File: struct cache_hdr, then the SFrame v3 section (PCREL) encoded as if
 * placed at vaddr 0 of the object's file address space, at offset hdr_size.
 * To use it at address S for an object loaded with bias B, add B - S to
 * every FDE's 64-bit start offset (v3 PCREL: func = field address + start).
 */
#ifndef SFRAME_REGISTER_CACHE_FMT_H
#define SFRAME_REGISTER_CACHE_FMT_H

#include <stdint.h>
#include "ustack_sframe.h"

#define CACHE_MAGIC	"USFRCAC1"
#define CACHE_SUFFIX	".v3.sframe"
#define CACHE_SFRAME_VERSION	SFRAME_VERSION_3	/* CACHE_SUFFIX says it */

struct cache_hdr {
	char magic[8];		/* CACHE_MAGIC */
	uint32_t hdr_size;	/* sizeof(struct cache_hdr): SFrame starts here */
	uint32_t sframe_version;	/* CACHE_SFRAME_VERSION */
	uint64_t sframe_len;
	uint64_t sframe_vaddr;	/* 0 */
	uint32_t funcs;		/* .eh_frame FDEs */
	uint32_t left_out;	/* functions SFrame could not express */
};

#endif
