#!/usr/bin/env bash
# Cooperative unwinding's cost (guest side: tests/vm/_bench-coop.sh): a
# python3.11 workload's slowdown at 99 and 999 Hz with and without
# cooperative frames, their ratios, the cost of one answered request and
# the bytes of one interp record, in one boot of Debian's 6.1 kernel
# whose guest counts instructions (lib/icount.sh; times in us are
# thousands of instructions).  On the wall clock (BENCH_WALLCLOCK=1) TCG
# emulates each signal, system call and return to user space at a cost
# far above hardware's: there an answer cost 384 us and cooperative
# frames 1.53x at 999 Hz.  The floor of a signal-borne answer (sig_floor)
# is 4.9k instructions here; run natively on this host's CPU, the same
# program gives 3.4 to 4.1 us.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/bench/lib/icount.sh"
bash "$top/tests/bench/lib/vm-bench.sh" 6.1 _bench-coop
