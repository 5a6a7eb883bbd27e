#!/usr/bin/env bash
# boot.sh LABEL VMLINUZ INITRAMFS TESTS LOG [TIMEOUT] [CPUS]
# Boot the guest under QEMU TCG with a serial console and no network, run
# TESTS (comma-separated names of tests/vm/*.sh), and print the verdicts of
# verdict.sh on the serial log.  tsc=reliable: with 4 vCPUs under TCG,
# 6.12-rt flipping the sched_clock static key at boot (TSC found unstable)
# can die in text patching ("Oops: int3" in sched_clock_cpu) before any
# module is loaded; a reliable TSC leaves that key alone.
# Multi-threaded TCG races live text patching now and then (text_poke_bp,
# the int3 dance behind every static key and tracepoint switch, such as
# sched_switch's at each module load): a vCPU keeps executing an int3 that
# is gone, an RCU stall in exc_int3 at __schedule (6.1) or "Oops: int3"
# (6.12-rt, at boot, no module loaded).  A boot that fails that way, with
# int3 in its kernel log, is booted once more, and says so (RETRY line; the
# first log is kept as LOG.int3).  Single-threaded TCG avoids the race but
# delays every cross-CPU interrupt by up to its 100 ms time slice: tests
# of 999 Hz sampling on 2 vCPUs then run past their time limits.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
label=$1 vmlinuz=$2 initrd=$3 tests=$4 log=$5
tmo=${6:-900} cpus=${7:-2}
mem=${USTACK_VM_MEM:-2048}
per_test=${USTACK_TEST_TIMEOUT:-300}

int3_race() {	# the log shows the emulator's race: an int3 oops (its
	# trace is the interrupted task's, without exc_int3), or a stall in
	# exc_int3
	tr -d '\r' <"$log" | grep -q 'Oops: int3' ||
		{ tr -d '\r' <"$log" | grep -q 'rcu: INFO: .*detected stall' &&
		  tr -d '\r' <"$log" | grep -q 'exc_int3'; }
}
run_qemu() {	# a guest stuck in that race is stopped at once, not at $tmo
	timeout -s KILL "$tmo" qemu-system-x86_64 -accel tcg -cpu max -smp "$cpus" -m "$mem" \
		-display none -monitor none -serial stdio -no-reboot -nodefaults \
		-kernel "$vmlinuz" -initrd "$initrd" \
		-append "console=ttyS0 loglevel=5 panic=-1 rdinit=/init mitigations=off tsc=reliable ustack_tests=$tests ustack_timeout=$per_test ${USTACK_VM_APPEND:-}" \
		</dev/null >"$log" 2>&1 &
	local q=$!
	while kill -0 $q 2>/dev/null; do
		sleep 5
		if int3_race; then
			sleep 10	# the rest of the backtrace
			pkill -KILL -P $q 2>/dev/null	# qemu, then its timeout
			kill -KILL $q 2>/dev/null
		fi
	done
	wait $q
}
run_qemu
qrc=$?
if int3_race; then
	mv "$log" "$log.int3"
	echo "RETRY: vm/$label: the emulator's text-patching race (int3 in a stall or oops; first log: $log.int3)"
	run_qemu
	qrc=$?
fi

"$here/verdict.sh" "$label" "$tests" "$log" "qemu exit $qrc"
