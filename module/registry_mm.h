/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-mm SFrame registry's own parts, shared by its files:
 *   registry.c         registration, unregistration and lookup
 *   registry_mm.c      the per-mm sets and the table of mms that have one
 *   registry_probes.c  the mm's life: unmappings (kprobes) and teardown
 *                      (the exit_mmap tracepoint)
 *   registry_fork.c    a child's copy of its parent's registrations
 * registry.h is what the rest of the module sees.
 */
#ifndef USTACK_REGISTRY_MM_H
#define USTACK_REGISTRY_MM_H

#include <linux/hashtable.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include "ustack_limits.h"
#include "ustack_sframe.h"

struct reg_ent {
	struct sframe_sec sec;	/* text range: sec.text_lo .. sec.text_hi */
	u64 sf_lo, sf_hi;	/* the registered SFrame range */
	bool dead;		/* unmapped (set in place, under the lock) */
};

/* Mappings whose rules may be in rule caches: see ustack_registry_watch(). */
#define REG_WATCH_MAX	16

struct reg_watch {
	u64 lo, hi;
};

struct reg_set {
	refcount_t ref;
	struct rcu_head rcu;
	u32 nr, cap;
	u64 bytes;		/* of the live entries */
	struct reg_ent ent[];	/* by text start, text ranges disjoint */
};

/* Raw spinlocks: the probes run with preemption off, also on PREEMPT_RT. */
struct reg_mm {
	struct hlist_node node;		/* ustack_reg_hash, keyed by mm */
	struct mm_struct *mm;
	raw_spinlock_t lock;		/* serialises writers of @set */
	struct reg_set __rcu *set;	/* NULL: no entries */
	bool gone;			/* released: refuse registrations */
	u64 gen;			/* see ustack_reg_changed() */
	atomic_t dropped;		/* claimed by ustack_reg_mm_drop() */
	u32 nwatch;			/* under @lock */
	struct reg_watch watch[REG_WATCH_MAX];
	struct rcu_head rcu;
};

/* The table of mms with a registry, by mm pointer (registry_mm.c). */
#define REG_HASH_BITS	8
extern DECLARE_HASHTABLE(ustack_reg_hash, REG_HASH_BITS);
extern atomic_t ustack_reg_nr_mm;

/*
 * No mm has a registry: the quick test of every walk, fork and unmapping.
 * Not hash_empty(), which reads all 256 buckets: some 1000 instructions
 * a call, several calls a sample.  An mm is counted before it is added to
 * the table and after it is removed, so a count of 0 means an empty table
 * as much as the buckets would have said so.
 */
static inline bool ustack_reg_none(void)
{
	return !atomic_read(&ustack_reg_nr_mm);
}

static inline void reg_set_add(struct reg_set *s, const struct reg_ent *e)
{
	s->ent[s->nr++] = *e;
	s->ent[s->nr - 1].dead = false;
	s->bytes += e->sf_hi - e->sf_lo;
}

static inline u32 reg_live(const struct reg_set *s)
{
	u32 i, n = 0;

	for (i = 0; s && i < s->nr; i++)
		n += !READ_ONCE(s->ent[i].dead);
	return n;
}

static inline bool reg_overlap(u64 a_lo, u64 a_hi, u64 b_lo, u64 b_hi)
{
	return a_lo < b_hi && b_lo < a_hi;
}

/* ---- registry_mm.c ----------------------------------------------------- */

/* Bytes of live registry memory (sets and per-mm state). */
long ustack_reg_bytes(void);
/* After every change of @um's entries, under @um->lock: a new generation. */
void ustack_reg_changed(struct reg_mm *um);
/* @mm's registry, or NULL.  Under RCU. */
struct reg_mm *ustack_reg_find_mm(struct mm_struct *mm);
/* @mm's registry, created if needed (the caller keeps @mm alive). */
struct reg_mm *ustack_reg_mm_of(struct mm_struct *mm);
/* The same for a registration, under mmap_lock held for write. */
struct reg_mm *ustack_reg_get_mm(struct mm_struct *mm);
/* Drop @um and its entries; only the one who claimed @um->dropped. */
void ustack_reg_mm_drop(struct reg_mm *um);
/* Drop every registry (module exit, the probes gone). */
void ustack_reg_drop_all(void);

/* A set of room for @nr entries, or NULL. */
struct reg_set *ustack_reg_set_alloc(u32 nr, gfp_t gfp);
/* A set no reader has seen, or NULL. */
void ustack_reg_set_free(struct reg_set *s);
/* Drop a reference; the last frees the set after a grace period. */
void ustack_reg_set_put(struct reg_set *s);
/* Bound what waits for grace periods.  May sleep; no lock held. */
void ustack_reg_throttle(void);

/* [lo, hi) of @mm is covered by VMAs with all of @flags: 0 or an errno. */
int ustack_reg_check_vmas(struct mm_struct *mm, u64 lo, u64 hi,
			  unsigned long flags);

/* ---- registry_probes.c, registry_fork.c -------------------------------- */

/* The probes are in and none was missed: entries are known mapped. */
bool ustack_reg_sighted(void);
int ustack_reg_probes_init(void);
void ustack_reg_probes_exit(void);

int ustack_reg_fork_init(void);
void ustack_reg_fork_exit(void);

#endif /* USTACK_REGISTRY_MM_H */
