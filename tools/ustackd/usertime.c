// SPDX-License-Identifier: GPL-2.0
/*
 * usertime.c - the daemon's time, shared among users.  The daemon covers
 * one object at a time, each in limited children (10 s to examine, 60 s
 * to generate): a user with N slow objects (a FUSE file that never
 * answers, a crafted .eh_frame the generator takes its time over) would
 * make everyone else's programs wait N times that.  So the time the
 * children take for a user's mappings is charged to that user, the
 * user of the process that maps them (whose.c: who made the daemon do
 * the work; its file's owner is known only once the file is open); a user
 * who used USERTIME_BUDGET_MS of a USERTIME_WINDOW_MS window waits for
 * the next one, their mappings left for a later scan or miss, while the
 * others' are covered.  Root's processes are never held back.
 *
 * The table is bounded: USERTIME_SLOTS users at once, a newcomer taking
 * the slot whose window began longest ago.
 */
#include <stdbool.h>
#include <stdint.h>
#include "ustackd.h"

#define USERTIME_SLOTS		64
#define USERTIME_WINDOW_MS	60000
#define USERTIME_BUDGET_MS	20000

static struct usertime {
	uint64_t user;
	bool used;
	bool said;		/* the log said so, this window */
	uint64_t start_ms, spent_ms;
} slots[USERTIME_SLOTS];

/* @user's slot, its window current; a free or the stalest one if none. */
static struct usertime *slot_of(uint64_t user, uint64_t now)
{
	struct usertime *u, *old = &slots[0];

	for (u = slots; u < slots + USERTIME_SLOTS; u++) {
		if (u->used && u->user == user)
			break;
		if (!u->used || (old->used && u->start_ms < old->start_ms))
			old = u;
	}
	if (u == slots + USERTIME_SLOTS) {
		u = old;
		u->used = true;
		u->user = user;
		u->start_ms = now;
		u->spent_ms = 0;
		u->said = false;
	}
	if (now - u->start_ms >= USERTIME_WINDOW_MS) {
		u->start_ms = now;
		u->spent_ms = 0;
		u->said = false;
	}
	return u;
}

bool usertime_over(uint64_t user)
{
	struct usertime *u;
	char who[48];

	if (!user || !registering)
		return false;
	u = slot_of(user, now_ms());
	if (u->spent_ms < USERTIME_BUDGET_MS)
		return false;
	if (!u->said)
		logmsg("%s: %llu ms of the daemon's time in %d s: its mappings wait",
		       user_shown(user, who, sizeof(who)),
		       (unsigned long long)u->spent_ms, USERTIME_WINDOW_MS / 1000);
	u->said = true;
	cnt.over_time++;
	return true;
}

void usertime_charge(uint64_t user, uint64_t ms)
{
	if (user && registering)
		slot_of(user, now_ms())->spent_ms += ms;
}
