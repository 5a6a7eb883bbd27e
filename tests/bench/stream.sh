#!/usr/bin/env bash
# Sampling cost and bytes per sample, ustack next to perf (without a call
# graph: the sampling interrupt alone; --call-graph dwarf and fp), measured
# in one guest boot of Debian's 6.1 kernel (QEMU TCG: absolute times are
# emulated; the ratios are the result, and only on a quiet host: the runs
# are wall-clock times of an emulated guest).  BENCH_B=REV (a git
# revision) adds the runs of REV's module, loaded in turn with this tree's
# in every round (lines ustack_b_*): a change's before and after in one boot.
top=$(cd "$(dirname "$0")/../.." && pwd)
USTACK_VM_B_REV=${BENCH_B:-} USTACK_VM_PERF=1 USTACK_LOG_SUFFIX=.bench bash "$top/scripts/vm-test.sh" 6.1 _bench-stream |
	grep -v '^PASS'
tr -d '\r' <"$top/build/logs/vm-6.1.bench.log" | sed -n 's/^    \(bench .*\)/\1/p'
