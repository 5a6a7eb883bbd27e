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

struct ustackd_opt opt = { STORE_DEFAULT, 100, 10, 0, -1, -1 };
int store_fd = -1, dev_fd = -1;
bool registering;
volatile sig_atomic_t stopping;
bool status_dirty;
uint64_t misses_dropped;

const char *const state_names[] = { "covered", "own", "refused", "prepared" };

struct obj *tab;
size_t tab_cap, tab_used, tab_users;
struct obj vdso_obj;	/* the vDSO: no file, not in tab */
struct ustackd_counts cnt;
uint32_t scan_gen;

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

/*
 * The table again at @cap slots, without users' objects if @forget: 0, or
 * -1 (out of memory: the table as it was).
 */
static int tab_rebuild(size_t cap, bool forget)
{
	struct obj *old = tab;
	size_t ocap = tab_cap, i;

	tab = calloc(cap, sizeof(*tab));
	if (!tab) {
		tab = old;
		return -1;
	}
	tab_cap = cap;
	for (size_t j = 0; j < ocap; j++) {
		if (!old[j].dev && !old[j].ino)
			continue;
		if (forget && old[j].user) {
			free(old[j].path);
			free(old[j].what);
			tab_used--;
			tab_users--;
			cnt.forgotten++;
			continue;
		}
		for (i = tab_slot(old[j].dev, old[j].ino);
		     tab[i].dev || tab[i].ino; i = (i + 1) & (tab_cap - 1))
			;
		tab[i] = old[j];
	}
	free(old);
	return 0;
}

struct obj *tab_add(uint64_t dev, uint64_t ino, bool user)
{
	size_t i;

	if (!dev && !ino)
		ino = ~0ull;	/* 0/0 marks a free slot */
	if (user && tab_users >= MAX_USER_OBJECTS) {
		/*
		 * Users made this many objects: forget them all (met again,
		 * each is examined again, its store entry reused), rather
		 * than leave out every new object for good.
		 */
		if (tab_rebuild(tab_cap, true))
			return NULL;
		logmsg("more than %d users' objects: forgotten (%lu in all)",
		       MAX_USER_OBJECTS, cnt.forgotten);
		status_dirty = true;
	}
	if (tab_used >= MAX_OBJECTS)
		return NULL;
	if ((tab_used + 1) * 2 > tab_cap &&
	    tab_rebuild(tab_cap ? tab_cap * 2 : 1024, false))
		return NULL;
	for (i = tab_slot(dev, ino); tab[i].dev || tab[i].ino;
	     i = (i + 1) & (tab_cap - 1))
		;
	tab[i].dev = dev;
	tab[i].ino = ino;
	tab[i].user = user;
	tab_used++;
	tab_users += user;
	return &tab[i];
}

/*
 * Open addressing without tombstones: the slots after @o's, up to a free
 * one, move back into the hole wherever their own probe sequence allows.
 */
void tab_del(struct obj *o)
{
	size_t mask = tab_cap - 1, i = o - tab, j = i, k;

	free(o->path);
	free(o->what);
	tab_used--;
	tab_users -= o->user;
	for (size_t n = 0; n < tab_cap; n++) {
		memset(&tab[i], 0, sizeof(tab[i]));
		for (;;) {
			j = (j + 1) & mask;
			if (!tab[j].dev && !tab[j].ino)
				return;
			k = tab_slot(tab[j].dev, tab[j].ino);
			/* stays if its home slot k lies cyclically in (i, j] */
			if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
				continue;
			break;
		}
		tab[i] = tab[j];
		i = j;
	}
}

void set_state(struct obj *o, int state, const char *path, const char *what)
{
	o->state = state;
	o->when_ms = now_ms();
	o->seen = scan_gen;
	free(o->path);
	free(o->what);
	o->path = strdup(path ? path : "?");
	o->what = strdup(what ? what : "");
	status_dirty = true;
}
