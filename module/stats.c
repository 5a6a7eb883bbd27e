// SPDX-License-Identifier: GPL-2.0
/* The engine's counters: /sys/kernel/debug/ustack/stats. */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include "coop.h"
#include "deferred.h"
#include "kernel_unwinder.h"
#include "py_frames.h"
#include "registry.h"
#include "render.h"
#include "ring.h"
#include "sources.h"
#include "stage_times.h"
#include "stats.h"
#include "user_walk.h"
#include "store.h"

static struct dentry *dir;

static int stats_show(struct seq_file *m, void *v)
{
	struct ustack_stats sum, *s = &sum;
	struct ustack_ring_stats rs;
	int i, cycles, cpu_clock;
	long self_limited;
	int tasks;
	bool engine_on;

	ustack_stats_sum(&sum);
#define SHOW(f) seq_printf(m, "%s %lu\n", #f, s->f)
	SHOW(requests);
	SHOW(coalesced);
	SHOW(walks);
	SHOW(deliveries);
	SHOW(stays);
	SHOW(stays_at_walk);
	SHOW(nomem);
	SHOW(regs_mismatch);
	SHOW(regs_signal);
	SHOW(regs_restart);
	SHOW(regs_sigreturn);
	seq_printf(m, "max_depth %ld\n", ustack_stats_max_depth());
	SHOW(walk_ns);
	SHOW(nmi_requests);
	SHOW(nmi_refused);
	SHOW(share_refused);
#undef SHOW
	ustack_deferred_counters(&tasks, &engine_on);
	seq_printf(m, "tasks %d\n", tasks);
	seq_printf(m, "engine_on %d\n", engine_on);
#define SHOW(f) seq_printf(m, "coop_%s %ld\n", #f, \
			   atomic_long_read(&ustack_coop_stats.f))
	SHOW(signalled);
	SHOW(answered);
	SHOW(empty);
	SHOW(refused);
	SHOW(busy);
	SHOW(expired);
	SHOW(deferred);
	SHOW(blocked);
	SHOW(pending);
	SHOW(no_handler);
	SHOW(full);
	SHOW(send_failed);
	SHOW(share_refused);
#undef SHOW
	seq_printf(m, "coop_threads %d\n", ustack_coop_threads());
	seq_printf(m, "coop_procs %d\n", ustack_coop_procs());
	seq_printf(m, "registry_bytes %ld\n", ustack_registry_memory());
	ustack_walk_show(m);
	ustack_discovery_show(m);
	ustack_kernel_unwinder_show(m);
	ustack_store_show(m);
	ustack_py_show(m);
	ustack_ring_stats(&rs);
	seq_printf(m, "dropped %llu\n", rs.dropped);
	/* a session has begun once its sources run, not when its ring is made */
	seq_printf(m, "active %d\n", ustack_ring_active() &&
		   ustack_sources_running());
	/* running for /dev/ustack or for the trace events */
	seq_printf(m, "sources_on %d\n", ustack_sources_running());
	seq_printf(m, "queued %llu\n", rs.written - rs.read);
	seq_printf(m, "written_bytes %llu\n", rs.written);
	seq_printf(m, "read_bytes %llu\n", rs.read);
	seq_printf(m, "reader_wakeups %llu\n", rs.wakeups);
	ustack_sources_counters(&cycles, &cpu_clock, &self_limited);
	seq_printf(m, "self_limited %ld\n", self_limited);
	seq_printf(m, "sampling_cycles_cpus %d\n", cycles);
	seq_printf(m, "sampling_cpu_clock_cpus %d\n", cpu_clock);
	for (i = 0; i < USTACK_METHOD_MAX; i++)
		seq_printf(m, "frames_%s %lu\n", ustack_render_method(i),
			   s->methods[i]);
	for (i = 0; i < USTACK_END_MAX; i++)
		seq_printf(m, "end_%s %lu\n", ustack_render_end(i),
			   s->ends[i]);
	ustack_stage_times_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int pending_show(struct seq_file *m, void *v)
{
	return ustack_deferred_pending_show(m, v);
}
DEFINE_SHOW_ATTRIBUTE(pending);

/* /sys/kernel/debug/ustack/, which the nmi_test hook shares. */
struct dentry *ustack_stats_init(void)
{
	dir = debugfs_create_dir("ustack", NULL);
	debugfs_create_file("stats", 0400, dir, NULL, &stats_fops);
	debugfs_create_file("pending", 0400, dir, NULL, &pending_fops);
	return dir;
}

void ustack_stats_exit(void)
{
	debugfs_remove_recursive(dir);
}
