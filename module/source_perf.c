// SPDX-License-Identifier: GPL-2.0
/*
 * The sampling sources: a perf kernel counter per online CPU at
 * sample_hz, hardware cycles (its overflow is an NMI) where the PMU has
 * them, else the cpu-clock software counter (an hrtimer interrupt).  CPU
 * hotplug adds and removes them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/perf_event.h>
#include "fault_test.h"
#include "source.h"

unsigned int ustack_sources_hz = 99;

static int cpuhp_state = -1;
static DEFINE_PER_CPU(struct perf_event *, sample_event);
static DEFINE_PER_CPU(struct perf_event *, next_event);	/* sample_retune() */
static atomic_t sampling_cycles, sampling_clock;	/* CPUs by counter */

/* Hardware cycles: in NMI.  cpu-clock: in the hrtimer interrupt. */
static void on_sample(struct perf_event *event, struct perf_sample_data *data,
		      struct pt_regs *regs)
{
	ustack_sources_sample(event->attr.type == PERF_TYPE_HARDWARE ?
		      USTACK_EVENT_CYCLES : USTACK_EVENT_CPU_CLOCK, regs);
}

static struct perf_event *sample_counter(unsigned int cpu, unsigned int hz,
					 u32 type, u64 config)
{
	struct perf_event_attr attr = {
		.type = type,
		.config = config,
		.size = sizeof(attr),
		.freq = 1,
		.sample_freq = hz,
		.pinned = 1,
	};

	if (ustack_fault_test())
		return ERR_PTR(-ENOMEM);
	return perf_event_create_kernel_counter(&attr, cpu, NULL, on_sample, NULL);
}

/* Hardware cycles on @cpu at @hz, else cpu-clock; or an ERR_PTR. */
static struct perf_event *sample_counter_any(unsigned int cpu, unsigned int hz)
{
	struct perf_event *ev;

	ev = sample_counter(cpu, hz, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	if (IS_ERR(ev))
		ev = sample_counter(cpu, hz, PERF_TYPE_SOFTWARE,
				    PERF_COUNT_SW_CPU_CLOCK);
	return ev;
}

/* @ev samples on @cpu from now on; the counter it replaces is released. */
static void sample_counter_set(unsigned int cpu, struct perf_event *ev)
{
	struct perf_event *old = per_cpu(sample_event, cpu);

	per_cpu(sample_event, cpu) = ev;
	if (ev)
		atomic_inc(ev->attr.type == PERF_TYPE_HARDWARE ?
			   &sampling_cycles : &sampling_clock);
	if (!old)
		return;
	atomic_dec(old->attr.type == PERF_TYPE_HARDWARE ?
		   &sampling_cycles : &sampling_clock);
	perf_event_release_kernel(old);
}

static int sample_cpu_online(unsigned int cpu)
{
	struct perf_event *ev;

	if (!READ_ONCE(ustack_sources_hz))
		return 0;
	ev = sample_counter_any(cpu, READ_ONCE(ustack_sources_hz));
	if (IS_ERR(ev)) {
		pr_warn_ratelimited("cpu %u: no cycles or cpu-clock counter: %ld\n",
				    cpu, PTR_ERR(ev));
		return 0;	/* the other CPUs still sample */
	}
	sample_counter_set(cpu, ev);
	return 0;
}

static int sample_cpu_offline(unsigned int cpu)
{
	sample_counter_set(cpu, NULL);
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

/*
 * New counters at @hz on every online CPU that samples now, made before
 * any old one goes: if one cannot be made, the old ones keep sampling.
 * Under cpus_read_lock(): CPU hotplug, whose callbacks read
 * ustack_sources_hz, waits meanwhile.
 */
static int sample_retune(unsigned int hz)
{
	struct perf_event *ev;
	unsigned int cpu;
	int ret = 0;

	for_each_online_cpu(cpu) {
		if (!per_cpu(sample_event, cpu))
			continue;
		ev = sample_counter_any(cpu, hz);
		if (IS_ERR(ev)) {
			ret = PTR_ERR(ev);
			break;
		}
		per_cpu(next_event, cpu) = ev;
	}
	for_each_online_cpu(cpu) {
		ev = per_cpu(next_event, cpu);
		per_cpu(next_event, cpu) = NULL;
		if (!ev)
			continue;
		if (ret)
			perf_event_release_kernel(ev);
		else
			sample_counter_set(cpu, ev);
	}
	if (!ret)
		WRITE_ONCE(ustack_sources_hz, hz);
	return ret;
}

/**
 * ustack_source_perf_set_hz - sample_hz: sample at @hz from now on
 * @hz: the new rate per CPU (0: no sampling)
 *
 * Under ustack_sources_lock.  While the sources run, the counters at the
 * new rate replace the old ones whole, or nothing changes.
 *
 * Return: 0, or the errno of the counter that could not be made, with
 * the old rate still sampling and still in ustack_sources_hz.
 */
int ustack_source_perf_set_hz(unsigned int hz)
{
	unsigned int old = ustack_sources_hz;
	int ret;

	lockdep_assert_held(&ustack_sources_lock);
	if (!ustack_sources_running() || !hz || cpuhp_state < 0) {
		ustack_source_perf_stop();
		WRITE_ONCE(ustack_sources_hz, hz);
		if (!ustack_sources_running())
			return 0;
		ret = ustack_source_perf_start();
		/* A rate, and no CPU samples: what was asked cannot be. */
		if (!ret && hz && !atomic_read(&sampling_cycles) &&
		    !atomic_read(&sampling_clock)) {
			ustack_source_perf_stop();
			ret = -ENOMEM;
		}
		if (ret)
			WRITE_ONCE(ustack_sources_hz, old);
		return ret;
	}
	cpus_read_lock();
	ret = sample_retune(hz);
	cpus_read_unlock();
	return ret;
}

