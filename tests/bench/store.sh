#!/usr/bin/env bash
# The SFrame store (tests/vm/_bench-store.sh), in a guest of Debian's 6.1
# kernel under QEMU TCG (times are emulated; compare the two):
#   bench kwalk_store_per_frame   kernel self-walk, SFrame from the store's
#                                 page cache, ns per frame
#   bench kwalk_user_per_frame    the same through PT_GNU_SFRAME in user
#                                 memory (discovery), ns per frame
#   bench kwalk_store_cached_per_frame, kwalk_user_cached_per_frame
#                                 the same with the per-CPU rule cache on
#                                 (the two above run with rule_cache=0)
#   bench kwalk_store_cached_turns_per_frame
#                                 the cached store walk of a process taking
#                                 turns with another on one CPU, walk by
#                                 walk; _vs_alone: its ratio to the walk
#                                 of a process alone (1: the cache keeps
#                                 each process's rules)
#   bench kmem_per_store_entry    kernel bytes per store entry
# Usage: tests/bench/store.sh [KERNEL]   (default 6.1)
top=$(cd "$(dirname "$0")/../.." && pwd)
exec bash "$top/tests/bench/lib/vm-bench.sh" "${1:-6.1}" _bench-store
