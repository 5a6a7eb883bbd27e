/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-mm SFrame registry (registry.c) and ELF discovery
 * (discovery.c), as used by /dev/sframe and the user walk (user_walk.c).
 */
#ifndef USTACK_REGISTRY_H
#define USTACK_REGISTRY_H

#include <linux/types.h>
#include <uapi/ustack.h>
#include "ustack_sframe.h"

struct mm_struct;
struct seq_file;
struct ustack_text_map;


/*
 * Register/unregister for current->mm.  Returns 0 or a negative errno:
 * EINVAL malformed request, EFAULT kernel address or unreadable section,
 * EBADMSG malformed section, EOPNOTSUPP unsupported version/ABI (or a
 * kernel whose unmappings cannot be followed), ENXIO a range not mapped,
 * EACCES text not executable or SFrame not readable,
 * EEXIST overlap or duplicate, ENOSPC count cap, EDQUOT byte cap, ENOMEM,
 * EINTR (fatal signal); unregister: ENOENT.
 */
int ustack_registry_register(u64 sf_start, u64 sf_len, u64 text_start, u64 text_end);
int ustack_registry_unregister(u64 sf_start, u64 text_start, u64 text_end);

/*
 * Registered section for @pc in @mm: true and *@sec filled, or false and
 * [*@gap_lo, *@gap_hi) the gap between registrations around @pc.
 * Never sleeps; the result is a copy.
 */
bool ustack_registry_lookup(struct mm_struct *mm, u64 pc, struct sframe_sec *sec,
		 u64 *gap_lo, u64 *gap_hi);

/*
 * The generation of @mm's registry: changes after every registration,
 * unregistration, unmapping of a registered or watched range and teardown
 * of @mm,
 * unique across mms, 0 without a registry (acquire: a lookup after it
 * sees those changes).
 */
u64 ustack_registry_generation(struct mm_struct *mm);

/*
 * May rules of current->mm's unregistered section for [@lo, @hi), looked
 * up after reading generation @gen, be cached under @gen?  Watches the
 * range for later walks if not.  Sleeps.
 */
bool ustack_registry_watch(u64 lo, u64 hi, u64 gen);
int ustack_registry_init(void);
void ustack_registry_exit(void);

/* Bytes of live registry memory (stats). */
long ustack_registry_memory(void);

/*
 * ELF discovery: the PT_GNU_SFRAME section of the file of mapping @t.
 * 0 and *@sec (text range = that mapping), or -ENOENT.  Sleeps.
 */
int ustack_discovery_lookup(const struct ustack_text_map *t,
			    struct sframe_sec *sec);
int ustack_discovery_init(void);
void ustack_discovery_exit(void);
/* Stats: sections validated, those of system objects among them. */
void ustack_discovery_show(struct seq_file *m);

#endif /* USTACK_REGISTRY_H */
