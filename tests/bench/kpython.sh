#!/usr/bin/env bash
# The kernel's reading of CPython's frames (module/py_frames.c; guest
# side: tests/vm/_bench-kpython.sh), in one boot of Debian's 6.1 kernel
# whose guest counts instructions (lib/icount.sh): python3.11 run
# plainly at 999 Hz with the reader off and on, its added time and the
# cost of one interp record, next to the cooperative answer of the same
# workload under the shim; a C workload with the reader off and on, what
# the reader costs a process with no CPython.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib/icount.sh"
bash "$top/tests/bench/lib/vm-bench.sh" 6.1 _bench-kpython
