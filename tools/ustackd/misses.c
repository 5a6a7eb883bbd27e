// SPDX-License-Identifier: GPL-2.0
/*
 * misses.c - the module's miss queue: the objects walked without unwind
 * info (SFRAME_IOC_STORE_MISSES), each covered as a scan would, and the
 * objects it lost (a flush) registered again.
 */
#include <errno.h>
#include <string.h>
#include "sframe_ioctl.h"
#include "ustackd.h"

bool rescan_wanted;
uint64_t last_poll;

/*
 * A miss for the vDSO: the kernel has no entry for it (a flush), or one
 * for another image.  Registered again as a lost file entry is.
 */
static void vdso_missed(void)
{
	if (vdso_obj.state != OBJ_COVERED ||
	    now_ms() - vdso_obj.when_ms < RECOVER_MS)
		return;
	logmsg("[vdso]: missed again: registering it again");
	cover_vdso();
}

/* Read the miss queue until empty; false if the module has no store. */
bool poll_misses(void)
{
	struct sframe_store_miss m[MISS_BATCH];
	struct sframe_store_misses q;
	int ret;

	last_poll = now_ms();
	do {
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.misses = (uintptr_t)m;
		q.max_misses = MISS_BATCH;
		ret = sframe_dev_store_misses(dev_fd, &q);
		if (ret == -EINTR)
			return true;
		if (ret) {
			logmsg("%s: STORE_MISSES: %s%s", SFRAME_DEV, strerror(-ret),
			       ret == -ENOTTY ? " (a module without the SFrame store)" : "");
			return false;
		}
		if (q.dropped > misses_dropped) {
			/* the queue overflowed: what it lost, a scan finds */
			if (misses_dropped || opt.verbose)
				logmsg("%llu misses dropped by the module; rescanning",
				       (unsigned long long)(q.dropped - misses_dropped));
			misses_dropped = q.dropped;
			rescan_wanted = true;
			status_dirty = true;
		}
		for (uint32_t i = 0; i < q.nr_misses && i < MISS_BATCH && !stopping; i++) {
			uint64_t t = now_ms();

			if (!m[i].ino && !m[i].dev)
				vdso_missed();
			else
				cover_mapping((int)m[i].pid, m[i].start, m[i].end,
					      m[i].dev, m[i].ino, NULL, true);
			/* CLOCK_MONOTONIC, as the records' time= */
			if (opt.verbose)
				logmsg("miss: pid %u %llx-%llx read at %llu.%03llu s, done in %llu ms",
				       m[i].pid, (unsigned long long)m[i].start,
				       (unsigned long long)m[i].end,
				       (unsigned long long)(t / 1000),
				       (unsigned long long)(t % 1000),
				       (unsigned long long)(now_ms() - t));
		}
	} while (q.nr_misses == MISS_BATCH && !stopping);
	return true;
}
