// SPDX-License-Identifier: GPL-2.0
/*
 * interp_pycache.c - code objects already named, kept across answers.
 *
 * Most samples land in the same few functions: their names, file names
 * and line table places are read and converted once, then only checked
 * (interp_python.c: that the code object at that address still points to
 * the same string objects, which still hold the same text).
 *
 * A fixed table of PYCACHE_SLOTS entries, direct-mapped by the code
 * object's address, mapped once (some 590 KiB of address space, touched as
 * used): memory is bounded whatever the program does; a busy slot's new
 * owner evicts the old.  Each slot is a sequence lock: any thread's
 * handler reads a copy and retries nothing (a torn copy is a miss), a
 * writer takes the slot by compare-and-swap or leaves it.  No lock to
 * wait for, no allocation: safe in the request's signal handler, also
 * with several threads answering at once.
 */
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#include "interp_pycache.h"

#define PYCACHE_SLOTS	1024	/* a power of two */

struct slot {
	uint32_t seq;		/* odd while written */
	uint32_t pad;
	struct pycode v;
};

static struct slot *table;

int pycache_init(void)
{
	void *m;

	if (table)
		return 0;
	m = mmap(NULL, PYCACHE_SLOTS * sizeof(struct slot),
		 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -1;
	__atomic_store_n(&table, (struct slot *)m, __ATOMIC_RELEASE);
	return 0;
}

static struct slot *slot_of(uintptr_t code)
{
	struct slot *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	uint64_t h = (uint64_t)code * 0x9e3779b97f4a7c15ull;

	return t ? &t[(h >> 40) & (PYCACHE_SLOTS - 1)] : NULL;
}

int pycache_get(uintptr_t code, struct pycode *out)
{
	struct slot *s = slot_of(code);
	uint32_t seq;

	if (!s)
		return -1;
	seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
	if (seq & 1)
		return -1;
	memcpy(out, &s->v, sizeof(*out));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) != seq ||
	    out->code != code || !code)
		return -1;
	out->name[PYCODE_NAME - 1] = '\0';
	out->file[PYCODE_FILE - 1] = '\0';
	return 0;
}

void pycache_put(const struct pycode *in)
{
	struct slot *s = slot_of(in->code);
	uint32_t seq;

	if (!s)
		return;
	seq = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
	if ((seq & 1) ||
	    !__atomic_compare_exchange_n(&s->seq, &seq, seq + 1, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	memcpy(&s->v, in, sizeof(*in));
	__atomic_store_n(&s->seq, seq + 2, __ATOMIC_RELEASE);
}
