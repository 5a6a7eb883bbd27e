// SPDX-License-Identifier: GPL-2.0
/*
 * state.c - what the daemon knows, at the bottom of its files: its options
 * and descriptors, the objects it has seen by device and inode (open
 * addressing in a power-of-two table) and what became of each, its counts.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ustackd.h"

struct ustackd_opt opt = { STORE_DEFAULT, 100, 10, 0 };
int store_fd = -1, dev_fd = -1;
bool registering;
volatile sig_atomic_t stopping;
bool status_dirty;
uint64_t misses_dropped;

const char *const state_names[] = { "covered", "own", "refused", "prepared" };

struct obj *tab;
size_t tab_cap, tab_used;
struct obj vdso_obj;	/* the vDSO: no file, not in tab */
struct ustackd_counts cnt;

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static size_t tab_slot(uint64_t dev, uint64_t ino)
{
	uint64_t h = (dev * 0x9e3779b97f4a7c15ull) ^ (ino * 0xc2b2ae3d27d4eb4full);

	return (h ^ (h >> 29)) & (tab_cap - 1);
}

struct obj *tab_find(uint64_t dev, uint64_t ino)
{
	if (!tab_cap)
		return NULL;
	for (size_t i = tab_slot(dev, ino);; i = (i + 1) & (tab_cap - 1)) {
		if (!tab[i].dev && !tab[i].ino)
			return NULL;
		if (tab[i].dev == dev && tab[i].ino == ino)
			return &tab[i];
	}
}

struct obj *tab_add(uint64_t dev, uint64_t ino)
{
	size_t i;

	if (!dev && !ino)
		ino = ~0ull;	/* 0/0 marks a free slot */
	if (tab_used >= MAX_OBJECTS)
		return NULL;
	if ((tab_used + 1) * 2 > tab_cap) {
		struct obj *old = tab;
		size_t ocap = tab_cap;

		tab_cap = ocap ? ocap * 2 : 1024;
		tab = calloc(tab_cap, sizeof(*tab));
		if (!tab) {
			tab = old;
			tab_cap = ocap;
			return NULL;
		}
		for (size_t j = 0; j < ocap; j++) {
			if (!old[j].dev && !old[j].ino)
				continue;
			for (i = tab_slot(old[j].dev, old[j].ino);
			     tab[i].dev || tab[i].ino; i = (i + 1) & (tab_cap - 1))
				;
			tab[i] = old[j];
		}
		free(old);
	}
	for (i = tab_slot(dev, ino); tab[i].dev || tab[i].ino;
	     i = (i + 1) & (tab_cap - 1))
		;
	tab[i].dev = dev;
	tab[i].ino = ino;
	tab_used++;
	return &tab[i];
}

void set_state(struct obj *o, int state, const char *path, const char *what)
{
	o->state = state;
	o->when_ms = now_ms();
	free(o->path);
	free(o->what);
	o->path = strdup(path ? path : "?");
	o->what = strdup(what ? what : "");
	status_dirty = true;
}
