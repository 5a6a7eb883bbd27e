#!/usr/bin/env bash
# Sampling cost and bytes per sample, ustack next to perf (without a call
# graph: the sampling interrupt alone; --call-graph dwarf and fp), measured
# in one guest boot of Debian's 6.1 kernel.  The guest counts instructions
# (lib/icount.sh): wall-clock rounds of the same runs differed by up to
# 30% on a free host (1738 to 2245 ms for the baseline), more than the
# costs to resolve.  BENCH_B=REV (a git revision) adds the
# runs of REV's module, loaded in turn with this tree's in every round
# (lines ustack_b_*): a change's before and after in one boot.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib/icount.sh"
USTACK_VM_B_REV=${BENCH_B:-} USTACK_VM_PERF=1 USTACK_LOG_SUFFIX=.bench bash "$top/scripts/vm-test.sh" 6.1 _bench-stream |
	grep -v '^PASS'
tr -d '\r' <"$top/build/logs/vm-6.1.bench.log" | sed -n 's/^    \(bench .*\)/\1/p'
