#!/usr/bin/env bash
# Sampling cost and bytes per sample, ustack next to perf (without a call
# graph: the sampling interrupt alone; --call-graph dwarf and fp), measured
# in one guest boot of Debian's 6.1 kernel.  The guest counts instructions
# (QEMU's -icount shift=0: its clock advances 1 ns per instruction, one
# vCPU, which icount needs): the times are instruction counts, the same in
# every round and on a busy host.  Wall-clock rounds of the same runs
# differed by up to 30% on a free host (1738 to 2245 ms for the baseline),
# more than the costs to resolve.  BENCH_WALLCLOCK=1 times the emulator's
# wall clock instead, two vCPUs.  BENCH_B=REV (a git revision) adds the
# runs of REV's module, loaded in turn with this tree's in every round
# (lines ustack_b_*): a change's before and after in one boot.
top=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${BENCH_WALLCLOCK:-0}" != 1 ]; then
	export USTACK_VM_ACCEL=tcg,thread=single USTACK_VM_CPUS=1
	export USTACK_VM_QEMU_ARGS="-icount shift=0,sleep=off"
fi
USTACK_VM_B_REV=${BENCH_B:-} USTACK_VM_PERF=1 USTACK_LOG_SUFFIX=.bench bash "$top/scripts/vm-test.sh" 6.1 _bench-stream |
	grep -v '^PASS'
tr -d '\r' <"$top/build/logs/vm-6.1.bench.log" | sed -n 's/^    \(bench .*\)/\1/p'
