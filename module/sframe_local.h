/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SFrame core over a kernel buffer (sframe_local.c): discovery
 * validates a file's own bytes, which no process can change, rather than a
 * process's mapping of them, which it can (copy-on-write).
 */
#ifndef USTACK_SFRAME_LOCAL_H
#define USTACK_SFRAME_LOCAL_H

#ifdef USTACK_SFRAME_LOCAL
/* The core's entry points, renamed in the second build of its source. */
#define ustack_sframe_call_before	ustack_lsf_call_before
#define ustack_sframe_cache_get		ustack_lsf_cache_get
#define ustack_sframe_cache_put		ustack_lsf_cache_put
#define ustack_sframe_cache_reset	ustack_lsf_cache_reset
#define ustack_sframe_cache_rule	ustack_lsf_cache_rule
#define ustack_sframe_errno		ustack_lsf_errno
#define ustack_sframe_find		ustack_lsf_find
#define ustack_sframe_find_budget	ustack_lsf_find_budget
#define ustack_sframe_fp_step		ustack_lsf_fp_step
#define ustack_sframe_fre_rule		ustack_lsf_fre_rule
#define ustack_sframe_read_fde		ustack_lsf_read_fde
#define ustack_sframe_read_fre		ustack_lsf_read_fre
#define ustack_sframe_sec_init		ustack_lsf_sec_init
#define ustack_sframe_sec_init_rd	ustack_lsf_sec_init_rd
#define ustack_sframe_step		ustack_lsf_step
#define ustack_sframe_strerror		ustack_lsf_strerror
#define ustack_sframe_validate		ustack_lsf_validate
#define ustack_sframe_walk		ustack_lsf_walk
#endif

#include "ustack_sframe.h"

/*
 * ustack_sframe_sec_init() and ustack_sframe_validate() of a section in
 * kernel memory at @base (@vaddr: where it is mapped, for PC arithmetic).
 * Only these two: no stack is walked in kernel memory.
 */
int ustack_lsf_sec_init(struct sframe_sec *sec, unsigned long base, u64 len,
			u64 vaddr, u64 text_lo, u64 text_hi);
int ustack_lsf_validate(const struct sframe_sec *sec);

#endif /* USTACK_SFRAME_LOCAL_H */
