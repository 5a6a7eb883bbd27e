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
# (6.12-rt, at boot, no module loaded).  Single-threaded TCG avoids the
# race but delays every cross-CPU interrupt by up to its 100 ms time slice:
# tests of 999 Hz sampling on 2 vCPUs then run past their time limits.
# A guest with no USTACK- line for longer than the running test may take
# (plus 30 s for the guest's own watchdog and a margin) is stalled: QEMU's
# monitor names where each vCPU is (the kernel's kallsyms of a nokaslr
# boot, the module's symbols), three samples a second apart, in a STALL
# line, and the guest is stopped.
# A boot that fails by the emulator is booted once more, and says so (RETRY
# line; the first log is kept as LOG.first): an int3 oops or stall in its
# kernel log, a stall where QEMU's monitor does not answer (QEMU itself
# hung), a stall with a vCPU in int3 handling, or a stall with every
# vCPU idle in every sample, long after the running test's time limit (the
# guest's timers stopped: its own timeout never fired).  Any other stall
# is a failure, reported with the vCPUs' places.  The second boot runs its
# vCPUs in one host thread (thread=single): the race is between vCPUs
# running at once (CI met it twice in one lane), and a lane's one host
# core is about what it has beside the other lane anyway.
# USTACK_VM_ACCEL: the first boot's -accel (default tcg).
# USTACK_VM_QEMU_ARGS: more of QEMU's options (a benchmark's -icount).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
label=$1 vmlinuz=$2 initrd=$3 tests=$4 log=$5
tmo=${6:-900} cpus=${7:-2}
mem=${USTACK_VM_MEM:-2048}
per_test=${USTACK_TEST_TIMEOUT:-300}

int3_race() {	# the log shows the emulator's race: an int3 oops (its
	# trace is the interrupted task's, without exc_int3), or a stall in
	# exc_int3
	grep -q 'Oops: int3' "$log" ||
		{ grep -q 'rcu: INFO: .*detected stall' "$log" &&
		  grep -q 'exc_int3' "$log"; }
}
# How long the guest may go without a USTACK- line: the running test's time
# limit (its "# timeout: N" line, else per_test), plus 30 s for the guest's
# own watchdog and a margin; outside any test, per_test and that margin.
test_limit() {
	local n
	n=$(sed -n 's/^# timeout: \([0-9]*\)$/\1/p' "$here/../../tests/vm/$1.sh" 2>/dev/null | head -n1)
	[ "${n:-0}" -gt "$per_test" ] || n=$per_test	# as the guest does
	echo "$n"
}
stall_limit() {
	local last
	last=$(tr -d '\r' <"$log" | grep '^USTACK-' | tail -n1)
	case $last in
	"USTACK-TEST-BEGIN "*) last=${last#USTACK-TEST-BEGIN }; echo $(( $(test_limit "${last%% *}") + 90 )) ;;
	*) echo $((per_test + 90)) ;;
	esac
}
mon=$(mktemp -u "${TMPDIR:-/tmp}/ustack-mon.XXXXXX")
trap 'rm -f "$mon.in" "$mon.out" "$mon.reply" "$mon.modmap" "$mon.kmap"' EXIT
# The kernel's text symbols by address, for naming a stalled vCPU's place
# (nokaslr: the same on every boot of that image): the first boot of an
# image dumps /proc/kallsyms to a second serial port, kept in the cache.
ksyms=${USTACK_VM_KALLSYMS:-}
dump_serial=() dump_param=
if [ -n "$ksyms" ] && [ ! -s "$ksyms" ]; then
	dump_serial=(-serial "file:$ksyms.$$") dump_param=" ustack_kallsyms=1"
fi

monitor() {	# monitor COMMAND: QEMU's answer (empty if it gives none)
	: >"$mon.reply"
	timeout 5 sh -c 'echo "$1" >"$2"' sh "$1" "$mon.in" 2>/dev/null
	sleep 1
	tr -d '\r' <"$mon.reply"
}
vcpu_places() {	# "vCPU0 sym+0xoff, vCPU1 ..." (vcpu-places.awk)
	local modmap= modbase kmap
	modbase=$(tr -d '\r' <"$log" | sed -n 's/.*ustack: \.text at \(0x[0-9a-f]*\).*/\1/p' | tail -n1)
	if [ -n "$modbase" ] && [ -f "${USTACK_VM_KO:-}" ]; then
		modmap=$mon.modmap
		objdump -t "$USTACK_VM_KO" | awk '{ for (i = 1; i < NF; i++) if ($i == ".text") print $1, $NF }' >"$modmap"
	fi
	kmap=$ksyms
	if [ ! -s "$kmap" ] && [ -s "$ksyms.$$" ]; then	# this boot's own dump
		kmap=$mon.kmap
		tr -d '\r' <"$ksyms.$$" | sort >"$kmap"
	fi
	monitor "info registers -a" |
		awk -v kmap="$kmap" -v modmap="$modmap" -v modbase="$modbase" -f "$here/vcpu-places.awk"
}
accel=${USTACK_VM_ACCEL:-tcg}
run_qemu() {	# a guest stuck in that race, or stalled, is stopped at once
	rm -f "$mon.in" "$mon.out" && mkfifo "$mon.in" "$mon.out"
	timeout -s KILL "$tmo" qemu-system-x86_64 -accel "$accel" ${USTACK_VM_QEMU_ARGS:-} -cpu max -smp "$cpus" -m "$mem" \
		-display none -monitor "pipe:$mon" -serial stdio "${dump_serial[@]}" -no-reboot -nodefaults \
		-kernel "$vmlinuz" -initrd "$initrd" \
		-append "console=ttyS0 loglevel=5 panic=-1 rdinit=/init mitigations=off tsc=reliable nokaslr ustack_tests=$tests ustack_timeout=$per_test$dump_param ${USTACK_VM_APPEND:-}" \
		</dev/null >"$log" 2>&1 &
	local q=$! reader progress=-1 still=0 places=
	cat "$mon.out" >>"$mon.reply" 2>/dev/null &
	reader=$!
	stall=
	while kill -0 $q 2>/dev/null; do
		sleep 5
		n=$(grep -c '^USTACK-' "$log")
		if [ "$n" != "$progress" ]; then
			progress=$n still=0
		else
			still=$((still + 5))
		fi
		if [ -z "$stall" ] && [ $still -ge "${USTACK_VM_STALL_LIMIT:-$(stall_limit)}" ]; then
			for i in 1 2 3; do places="$places${places:+; }$(vcpu_places)"; done
			stall="no progress for ${still} s after '$(tr -d '\r' <"$log" | grep '^USTACK-' | tail -n1)'; vCPUs: ${places:-no answer from the QEMU monitor}"
			echo "STALL: vm/$label: $stall"
		fi
		if [ -n "$stall" ] || int3_race; then
			sleep 10	# the rest of the backtrace
			pkill -KILL -P $q 2>/dev/null	# qemu, then its timeout
			kill -KILL $q 2>/dev/null
		fi
	done
	wait $q
	local rc=$?
	kill $reader 2>/dev/null
	return $rc
}
emulator_stall() {	# why a stall is the emulator's, if it is: QEMU
	# does not answer, a vCPU is in int3 handling (the race above), or
	# every vCPU is idle in every sample long past the running test's time
	# limit: the guest's timers stopped (its own timeout never fired)
	local places=${stall#*vCPUs: }
	[ -n "$stall" ] || return 1
	if [[ $places == "no answer from the QEMU monitor" ]]; then
		echo "QEMU itself hung (its monitor does not answer)"
	elif [[ $places == *int3* ]]; then
		echo "the emulator's text-patching race (a stalled vCPU in int3 handling)"
	elif [ "$(grep -o 'vCPU[0-9]* [^,;]*' <<<"$places" | grep -vc '(halted)$')" = 0 ]; then
		echo "the guest's timers stopped (every vCPU idle past the test's time limit)"
	else
		return 1
	fi
}
run_qemu 2>/dev/null	# (no "Killed" from bash for a stopped guest)
qrc=$?
if [ -n "$dump_param" ]; then
	if [ "$(grep -c ' [tT] ' "$ksyms.$$")" -gt 1000 ]; then
		tr -d '\r' <"$ksyms.$$" | sort >"$ksyms.$$.sorted" && mv "$ksyms.$$.sorted" "$ksyms"
	fi
	rm -f "$ksyms.$$"
	dump_serial=() dump_param=
fi
if why=$(emulator_stall) || { int3_race && why="the emulator's text-patching race (an int3 oops or stall)"; }; then
	mv "$log" "$log.first"
	echo "RETRY: vm/$label: $why; first log: $log.first"
	accel=tcg,thread=single
	run_qemu 2>/dev/null
	qrc=$?
fi
note="qemu exit $qrc"
[ -z "$stall" ] || note="stalled: $stall"

"$here/verdict.sh" "$label" "$tests" "$log" "$note"
