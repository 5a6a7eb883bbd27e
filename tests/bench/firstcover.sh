#!/usr/bin/env bash
# An object met first (issue 50; tests/vm/_bench-firstcover.sh), in a
# guest of Debian's 6.1 kernel under QEMU TCG (times are emulated):
#   bench firstcover_exec_ms        a program no one has seen, from its exec
#                                   to its store entry, as the module's
#                                   walks find it; ustackd otherwise idle
#   bench firstcover_dlopen_ms      a library it dlopens, from the dlopen
#   bench firstcover_pass_exec_ms, firstcover_pass_dlopen_ms
#                                   the same while ustackd's pass over the
#                                   system runs (firstcover_pass_s long)
#   bench firstcover_{nowait,wait}_complete, _lost, _gap_ms
#                                   such a program's first run at 999 Hz
#                                   with miss_wait_ms=0 and the default:
#                                   its complete user stacks (per mille),
#                                   the others, its longest gap in samples
#   bench firstcover_wait_waits, _ms_per_process, _ms_per_object
#                                   the waits of a run, what they took
# Usage: tests/bench/firstcover.sh [KERNEL]   (default 6.1)
top=$(cd "$(dirname "$0")/../.." && pwd)
exec bash "$top/tests/bench/lib/vm-bench.sh" "${1:-6.1}" _bench-firstcover
