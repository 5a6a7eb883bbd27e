# Sourced by a benchmark whose guest counts instructions: QEMU's -icount
# shift=0 advances the guest's clock 1 ns per instruction (one vCPU and
# single-threaded TCG, which icount needs), so its times are instruction
# counts, the same in every round and on a busy host.  A `rep movsb` or
# `rep stosb` counts each byte; a system call, a signal's delivery or a
# page fault counts its instructions only, which TCG's wall clock weighs
# far above hardware.  BENCH_WALLCLOCK=1: the emulator's wall clock, two
# vCPUs, instead.
if [ "${BENCH_WALLCLOCK:-0}" != 1 ]; then
	export USTACK_VM_ACCEL=tcg,thread=single USTACK_VM_CPUS=1
	export USTACK_VM_QEMU_ARGS="-icount shift=0,sleep=off"
fi
