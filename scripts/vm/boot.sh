#!/usr/bin/env bash
# boot.sh LABEL VMLINUZ INITRAMFS TESTS LOG [TIMEOUT] [CPUS]
# Boot the guest under QEMU TCG with a serial console and no network, run
# TESTS (comma-separated names of tests/vm/*.sh), and print the verdicts of
# verdict.sh on the serial log.  tsc=reliable: with 4 vCPUs under TCG,
# 6.12-rt flipping the sched_clock static key at boot (TSC found unstable)
# can die in text patching ("Oops: int3" in sched_clock_cpu) before any
# module is loaded; a reliable TSC leaves that key alone.
# thread=single: one host thread runs every vCPU in turn.  With multi-
# threaded TCG, live text patching (text_poke_bp: the int3 dance behind
# every static key and tracepoint switch, e.g. sched_switch at each module
# load) races the other vCPU's translated code: it keeps hitting an int3
# that is gone (an RCU stall in exc_int3 at __schedule, 6.1) or dies on
# it ("Oops: int3", 6.12-rt).  USTACK_VM_TCG_THREAD=multi brings it back.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
label=$1 vmlinuz=$2 initrd=$3 tests=$4 log=$5
tmo=${6:-900} cpus=${7:-2}
mem=${USTACK_VM_MEM:-2048}
per_test=${USTACK_TEST_TIMEOUT:-300}

timeout -s KILL "$tmo" qemu-system-x86_64 -accel "tcg,thread=${USTACK_VM_TCG_THREAD:-single}" -cpu max -smp "$cpus" -m "$mem" \
	-display none -monitor none -serial stdio -no-reboot -nodefaults \
	-kernel "$vmlinuz" -initrd "$initrd" \
	-append "console=ttyS0 loglevel=5 panic=-1 rdinit=/init mitigations=off tsc=reliable ustack_tests=$tests ustack_timeout=$per_test ${USTACK_VM_APPEND:-}" \
	</dev/null >"$log" 2>&1
qrc=$?

"$here/verdict.sh" "$label" "$tests" "$log" "qemu exit $qrc"
