#!/usr/bin/env bash
# The registry's unmapping probes (tests/vm/_bench-registry.sh), in a guest
# of Debian's 6.1 kernel under QEMU TCG (times are emulated; compare them):
#   bench registry_munmap_ns_CONF   mmap+munmap of one page, ns
#   bench registry_mremap_ns_CONF   mmap+mremap onto a fixed page, ns
#   bench registry_OP_CONF_vs_unloaded   their ratios to unloaded
# CONF: unloaded, loaded (nothing registered), other_registered (another
# process registered), self_registered (the timed process registered).
# Usage: tests/bench/registry.sh [KERNEL]   (default 6.1)
top=$(cd "$(dirname "$0")/../.." && pwd)
exec bash "$top/tests/bench/lib/vm-bench.sh" "${1:-6.1}" _bench-registry
