// SPDX-License-Identifier: GPL-2.0
/*
 * interp_times.c - where an answer's time goes: with USTACK_COOP_TIMES=1,
 * the handler's stages (interp_times.h) are stamped with the TSC and
 * summed, and at exit one line on standard error gives them, for make
 * bench's coop figures (tests/vm/_bench-coop.sh):
 *
 *   coop-times answers=N frames=F stamps=S stamp_ns=C handler_ns=...
 *   unwind_ns=... send_ns=... read_ns=... reads=... cache_ns=...
 *   names_ns=... lines_ns=... add_ns=... hits=... misses=... same=...
 *   line_hits=...
 *
 * Each *_ns is the total over the process's answers; stamps is how many
 * stamps were taken and stamp_ns what one costs, so that a reader can
 * tell the stamps' own share.  The TSC is converted to nanoseconds by
 * CLOCK_MONOTONIC over the process's life.  Off (the default) a stamp
 * site costs a load and a branch.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "interp_times.h"

int coop_times_on;

static uint64_t ticks[COOP_T_NR], events[COOP_T_NR], counts[COOP_C_NR];
static uint64_t t_start, ns_start, stamp_ticks;

static const char *const stage_name[COOP_T_NR] = {
	"handler", "unwind", "send", "read", "cache", "names", "lines", "add",
};
static const char *const count_name[COOP_C_NR] = {
	"hits", "misses", "same", "line_hits", "frames",
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void coop_times_add(enum coop_stage stage, uint64_t t0)
{
	uint64_t t = coop_ticks();

	if (!coop_times_on || !t0)
		return;
	__atomic_fetch_add(&ticks[stage], t - t0, __ATOMIC_RELAXED);
	__atomic_fetch_add(&events[stage], 1, __ATOMIC_RELAXED);
}

void coop_times_count(enum coop_count c, uint64_t n)
{
	if (coop_times_on)
		__atomic_fetch_add(&counts[c], n, __ATOMIC_RELAXED);
}

static char *put(char *p, const char *name, uint64_t v)
{
	char num[24];
	int k = sizeof(num);

	do {
		num[--k] = '0' + v % 10;
		v /= 10;
	} while (v);
	*p++ = ' ';
	p = stpcpy(p, name);
	*p++ = '=';
	memcpy(p, num + k, sizeof(num) - k);
	return p + sizeof(num) - k;
}

__attribute__((destructor)) static void coop_times_exit(void)
{
	char line[1024], name[24], *p = line;
	uint64_t dt, dn, stamps = 0;
	double ns_per_tick;
	int i;

	if (!coop_times_on)
		return;
	dt = coop_ticks() - t_start;
	dn = mono_ns() - ns_start;
	ns_per_tick = dt ? (double)dn / dt : 1;
	for (i = 0; i < COOP_T_NR; i++)
		stamps += 2 * events[i];
	p = stpcpy(p, "coop-times");
	p = put(p, "answers", events[COOP_T_HANDLER]);
	p = put(p, "frames", counts[COOP_C_FRAMES]);
	p = put(p, "stamps", stamps);
	p = put(p, "stamp_ps", (uint64_t)(stamp_ticks * ns_per_tick));
	for (i = 0; i < COOP_T_NR; i++) {
		stpcpy(stpcpy(name, stage_name[i]), "_ns");
		p = put(p, name, (uint64_t)(ticks[i] * ns_per_tick));
	}
	p = put(p, "reads", events[COOP_T_READ]);
	for (i = 0; i < COOP_C_NR - 1; i++)
		p = put(p, count_name[i], counts[i]);
	*p++ = '\n';
	if (write(STDERR_FILENO, line, p - line) < 0)
		return;
}

void coop_times_init(void)
{
	const char *e = getenv("USTACK_COOP_TIMES");
	uint64_t t0;
	int i;

	if (coop_times_on || !e || *e != '1')
		return;
	t_start = coop_ticks();
	ns_start = mono_ns();
	/* What 1000 stamps cost, in ticks. */
	t0 = coop_ticks();
	for (i = 0; i < 1000; i++)
		(void)coop_ticks();
	stamp_ticks = coop_ticks() - t0;
	coop_times_on = 1;
}
