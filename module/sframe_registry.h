/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-mm SFrame registry (sframe_registry.c) and ELF discovery
 * (sframe_discovery.c), as used by /dev/sframe and the user walk (uwalk.c).
 */
#ifndef USTACK_SFRAME_REGISTRY_H
#define USTACK_SFRAME_REGISTRY_H

#include <linux/types.h>
#include "sframe_core.h"

struct mm_struct;

/* Per-process caps. */
#define UREG_MAX_ENTRIES	256
#define UREG_MAX_BYTES		(64ULL << 20)	/* sum of sframe_len */

/*
 * Register/unregister for current->mm.  Returns 0 or a negative errno:
 * EINVAL malformed request, EFAULT kernel address or unreadable section,
 * EBADMSG malformed section, EOPNOTSUPP unsupported version/ABI, ENXIO a
 * range not mapped, EACCES text not executable or SFrame not readable,
 * EEXIST overlap or duplicate, ENOSPC count cap, EDQUOT byte cap, ENOMEM,
 * EINTR (fatal signal); unregister: ENOENT.
 */
int ureg_register(u64 sf_start, u64 sf_len, u64 text_start, u64 text_end);
int ureg_unregister(u64 sf_start, u64 text_start, u64 text_end);

/*
 * Registered section for @pc in @mm: true and *@sec filled, or false and
 * [*@gap_lo, *@gap_hi) the gap between registrations around @pc.
 * Never sleeps; the result is a copy.
 */
bool ureg_lookup(struct mm_struct *mm, u64 pc, struct sframe_sec *sec,
		 u64 *gap_lo, u64 *gap_hi);

/*
 * The registries' generation: changes after every registration,
 * unregistration, unmapping of a registered range and mm teardown
 * (acquire: a lookup after it sees those changes).
 */
u64 ureg_generation(void);
/* Bytes of live registry memory (stats). */
long ureg_memory(void);

/* The walk's per-CPU rule cache (uwalk.c), set up with the registry. */
int uwalk_init(void);
void uwalk_exit(void);

/*
 * ELF discovery: the PT_GNU_SFRAME section of the file mapped executable at
 * @pc in current->mm.  0 and *@sec (text range = that mapping), or
 * -ENOENT with [*@lo, *@hi) the range known to have none.  Sleeps.
 */
int udisc_lookup(u64 pc, struct sframe_sec *sec, u64 *lo, u64 *hi);
int udisc_init(void);
void udisc_exit(void);

#endif /* USTACK_SFRAME_REGISTRY_H */
