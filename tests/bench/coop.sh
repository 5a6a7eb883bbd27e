#!/usr/bin/env bash
# Cooperative unwinding's cost (guest side: tests/vm/_bench-coop.sh): a
# python3.11 workload's slowdown at 99 and 999 Hz with and without
# cooperative frames, their ratios, the cost of one answered request and
# the bytes of one interp record, in one boot of Debian's 6.1 kernel
# (QEMU TCG: absolute times are emulated, the ratios are the result).
top=$(cd "$(dirname "$0")/../.." && pwd)
bash "$top/tests/bench/lib/vm-bench.sh" 6.1 _bench-coop
