#!/usr/bin/env bash
# A victim's walk under a user's ELF discovery churn (issue 25, item 9;
# tests/vm/_bench-discovery.sh), in a guest of Debian's 6.1 kernel under
# QEMU TCG (times are emulated; the ratio is the result):
#   bench discovery_victim_walk_ns_alone    walk_ns per walk of a --gsframe victim
#   bench discovery_victim_walk_ns_spin     the same while nobody only spins
#   bench discovery_victim_walk_ns_churn    the same while nobody churns 80 files
#   bench discovery_victim_walk_churn_ratio churn / alone
#   bench discovery_victim_walk_churn_vs_spin churn / spin: what the churn
#                                           adds beyond a competitor's CPU
#   bench discovery_victim_revalidations    system verdicts taken again meanwhile
# Usage: tests/bench/discovery.sh [KERNEL]   (default 6.1)
top=$(cd "$(dirname "$0")/../.." && pwd)
exec bash "$top/tests/bench/lib/vm-bench.sh" "${1:-6.1}" _bench-discovery
