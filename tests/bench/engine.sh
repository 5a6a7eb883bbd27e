#!/usr/bin/env bash
# The deferred engine under a request storm (tests/vm/_bench-engine.sh: 999 Hz
# sampling plus a traced getppid loop on a 500-frame stack), in a guest of
# Debian's 6.12 kernel under QEMU TCG (times are emulated):
#   bench engine_requests_per_walk   requests / walks
#   bench engine_coalesced_fraction  coalesced requests / requests
#   bench engine_frames_per_walk     user frames per deferred walk
#   bench engine_walk_ns_per_walk    the engine's walk_ns / walks
#   bench engine_walk_ns_per_frame   walk_ns / frames (frame pointers)
# Usage: tests/bench/engine.sh [KERNEL]   (default 6.12)
top=$(cd "$(dirname "$0")/../.." && pwd)
exec bash "$top/tests/bench/lib/vm-bench.sh" "${1:-6.12}" _bench-engine
