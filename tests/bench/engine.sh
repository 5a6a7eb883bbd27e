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
k=${1:-6.12}
logs=$(mktemp -d)
USTACK_LOG_DIR=$logs bash "$top/scripts/vm-test.sh" "$k" _bench-engine >"$logs/verdict" 2>&1
if ! grep -q "^PASS: vm/$k/_bench-engine" "$logs/verdict"; then
	echo "engine: VM run failed:" >&2
	cat "$logs/verdict" >&2
	tr -d '\r' <"$logs"/vm-*.log | sed -n '/USTACK-TEST-BEGIN/,/USTACK-RESULT/p' >&2
	rm -rf "$logs"
	exit 1
fi
echo "# kernel $k under QEMU TCG"
cat "$logs"/vm-*.log | tr -d '\r' | sed -n 's/^ *\(bench [a-z_]* -\{0,1\}[0-9.]* [a-zA-Z]*\)$/\1/p'
rm -rf "$logs"
