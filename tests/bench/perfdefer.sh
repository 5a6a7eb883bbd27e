#!/usr/bin/env bash
# perf's deferred callchains (tests/vm/_bench-perfdefer.sh), in a guest of
# sid's kernel under QEMU TCG counting instructions (lib/icount.sh): sid's
# perf records the workload at 999 Hz
#   bench workload_base_ms                the workload alone
#   bench perf_fp_slowdown_999hz          --call-graph fp
#   bench perf_defer_kernel_slowdown_999hz  fp,defer, kernel_unwinder=0:
#                                         the kernel's deferred walk
#   bench perf_defer_ustack_slowdown_999hz  fp,defer, kernel_unwinder=1:
#                                         ustack's walk in its place
#   bench perf_defer_ustack_vs_kernel     ustack's added time over the
#                                         kernel's (1: the same cost)
#   bench perf_*_complete, perf_*_in_walk the callchains reaching main and
#                                         _start, the ticks inside a walk
# Usage: tests/bench/perfdefer.sh
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib/icount.sh"
exec bash "$top/tests/bench/lib/vm-bench.sh" sid _bench-perfdefer
