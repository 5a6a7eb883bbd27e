#!/usr/bin/env bash
# The hostile worst case (issue 14): boots a VM guest (QEMU TCG, emulated
# times) and runs tests/vm/sframe-hostile.sh, the costliest SFrame section
# the caps allow walked by SELF_STACK over 1024 crafted frames:
#   bench hostile_many_worst_walk  the worst of 5 walks, ms (each ends on
#                                  the work budget)
# Usage: tests/bench/hostile.sh [KERNEL]   (default 6.12)
top=$(cd "$(dirname "$0")/../.." && pwd)
exec bash "$top/tests/bench/lib/vm-bench.sh" "${1:-6.12}" sframe-hostile
