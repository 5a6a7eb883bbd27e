// SPDX-License-Identifier: GPL-2.0
/*
 * The sampling sources: a perf kernel counter per online CPU at
 * sample_hz, hardware cycles (its overflow is an NMI) where the PMU has
 * them, else the cpu-clock software counter (an hrtimer interrupt).  CPU
 * hotplug adds and removes them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/perf_event.h>
#include "fault_test.h"
#include "source.h"

unsigned int ustack_sources_hz = 99;

static int cpuhp_state = -1;
static DEFINE_PER_CPU(struct perf_event *, sample_event);
static atomic_t sampling_cycles, sampling_clock;	/* CPUs by counter */

/* Hardware cycles: in NMI.  cpu-clock: in the hrtimer interrupt. */
static void on_sample(struct perf_event *event, struct perf_sample_data *data,
		      struct pt_regs *regs)
{
	ustack_sources_sample(event->attr.type == PERF_TYPE_HARDWARE ?
		      USTACK_EVENT_CYCLES : USTACK_EVENT_CPU_CLOCK, regs);
}

static struct perf_event *sample_counter(unsigned int cpu, u32 type, u64 config)
{
	struct perf_event_attr attr = {
		.type = type,
		.config = config,
		.size = sizeof(attr),
		.freq = 1,
		.sample_freq = READ_ONCE(ustack_sources_hz),
		.pinned = 1,
	};

	if (ustack_fault_test())
		return ERR_PTR(-ENOMEM);
	return perf_event_create_kernel_counter(&attr, cpu, NULL, on_sample, NULL);
}

static int sample_cpu_online(unsigned int cpu)
{
	struct perf_event *ev;

	if (!READ_ONCE(ustack_sources_hz))
		return 0;
	ev = sample_counter(cpu, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	if (!IS_ERR(ev)) {
		atomic_inc(&sampling_cycles);
	} else {
		ev = sample_counter(cpu, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
		if (IS_ERR(ev)) {
			pr_warn_ratelimited("cpu %u: no cycles or cpu-clock counter: %ld\n",
					    cpu, PTR_ERR(ev));
			return 0;	/* the other CPUs still sample */
		}
		atomic_inc(&sampling_clock);
	}
	per_cpu(sample_event, cpu) = ev;
	return 0;
}

static int sample_cpu_offline(unsigned int cpu)
{
	struct perf_event *ev = per_cpu(sample_event, cpu);

	per_cpu(sample_event, cpu) = NULL;
	if (!ev)
		return 0;
	atomic_dec(ev->attr.type == PERF_TYPE_HARDWARE ?
		   &sampling_cycles : &sampling_clock);
	perf_event_release_kernel(ev);
	return 0;
}

/* For the stats: which counters sample, on how many CPUs. */
void ustack_source_perf_counters(int *cycles, int *cpu_clock)
{
	*cycles = atomic_read(&sampling_cycles);
	*cpu_clock = atomic_read(&sampling_clock);
}

/* Counters on every online CPU (and those coming online), at sample_hz. */
int ustack_source_perf_start(void)
{
	int ret;

	lockdep_assert_held(&ustack_sources_lock);
	if (!READ_ONCE(ustack_sources_hz))
		return 0;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "ustack:sample",
				sample_cpu_online, sample_cpu_offline);
	if (ret < 0)
		return ret;
	cpuhp_state = ret;
	pr_info("sampling at %u Hz: cycles on %d CPUs, cpu-clock on %d\n",
		READ_ONCE(ustack_sources_hz), atomic_read(&sampling_cycles),
		atomic_read(&sampling_clock));
	return 0;
}

void ustack_source_perf_stop(void)
{
	if (cpuhp_state < 0)
		return;
	cpuhp_remove_state(cpuhp_state);
	cpuhp_state = -1;
}

