#!/usr/bin/env bash
# tests/harness: the VM test harness's own tests (scripts/vm/).  Its verdict
# on a serial log must catch every failure it claims to: a missing result, a
# missing end marker, each bad log pattern, a taint; a stalled guest's vCPUs
# are named.  bash tests/harness/run.sh [NAME...] (tests/select.sh).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/select.sh" harness "$@"
verdict=$top/scripts/vm/verdict.sh
tmp=$(mktemp -d)
on_exit 'rm -rf "$tmp"'

mklog() {	# mklog FILE [EXTRA-DMESG-LINE] [TAINT] [DONE]
	{
		echo "USTACK-BOOTED 6.1 cpus=2"
		echo "USTACK-TEST-BEGIN a"
		echo "    WARNING: printed by a test, not the kernel"
		echo "USTACK-RESULT PASS a"
		echo "USTACK-TAINTED ${3:-12288}"
		echo "USTACK-DMESG-BEGIN"
		echo "[    1.0] ustack: version 0.1.0 loaded"
		[ -n "${2:-}" ] && echo "$2"
		echo "USTACK-DMESG-END"
		[ "${4:-1}" = 1 ] && echo "USTACK-DONE"
	} >"$1"
}

expect() {	# expect NAME PATTERN FILE [TESTS]
	local out
	want "$1" || return 0
	out=$("$verdict" k "${4:-a}" "$3" note)
	if grep -q "$2" <<<"$out"; then
		pass "$1"
	else
		fail "$1" "expected '$2' in: $(echo "$out" | paste -sd'|')"
	fi
}

# A clean log: the harness's three verdicts pass, nothing fails.
clean_log_passes() {
	local out

	out=$("$verdict" k a "$tmp/clean" note)
	[ "$(grep -c "^PASS:" <<<"$out")" = 3 ] && ! grep -q FAIL <<<"$out" ||
		{ echo "$out" | paste -sd'|'; return 1; }
}

# A long log (a whole dmesg, past a pipe's 64 KiB) with its end marker,
# read 20 times: "echo | grep -q" under pipefail lost the marker about one
# time in two (CI, 6.12).
long_log_end_marker() {
	local bad=0 i out

	mklog "$tmp/long"
	{ head -n -1 "$tmp/long"; seq -f '[    3.0] line %g of a long dmesg' 4000
	  echo USTACK-DONE; seq -f '[    4.0] after the marker %g' 20000; } >"$tmp/long2"
	for i in $(seq 20); do
		out=$("$verdict" k a "$tmp/long2" note)
		grep -q 'FAIL: vm/k/boot-complete' <<<"$out" && bad=$((bad + 1))
	done
	[ $bad = 0 ] || { echo "$bad of 20 verdicts missed the marker"; return 1; }
}

mklog "$tmp/clean"
run_test clean-log-passes clean_log_passes
expect missing-result 'FAIL: vm/k/b: no result' "$tmp/clean" a,b
run_test long-log-end-marker long_log_end_marker
mklog "$tmp/nodone" "" 12288 0
expect missing-end-marker 'FAIL: vm/k/boot-complete' "$tmp/nodone"
# The restart after the end marker: a splat of the kernel's own (a wakeup
# racing reboot's stop of the other CPUs) passes; one naming the module,
# and one with no end marker before it, fail.
mklog "$tmp/reboot"
printf '%s\n' '[   15.6] WARNING: CPU: 1 PID: 33 at kernel/sched/core.c:3346 set_task_cpu+0x1b1/0x1d0' \
	'[   15.7] reboot: Restarting system' >>"$tmp/reboot"
expect reboot-splat-passes 'PASS: vm/k/kernel-log' "$tmp/reboot"
{ cat "$tmp/reboot"; echo '[   15.8]  ustack_exit+0x10/0x20 [ustack]'; } >"$tmp/reboot-ustack"
expect reboot-splat-ustack 'FAIL: vm/k/kernel-log' "$tmp/reboot-ustack"
grep -v '^USTACK-DONE' "$tmp/reboot" >"$tmp/reboot-nodone"
expect reboot-splat-nodone 'FAIL: vm/k/kernel-log' "$tmp/reboot-nodone"
mklog "$tmp/taint" "" $((12288 | 1))
expect unexpected-taint 'FAIL: vm/k/kernel-log: unexpected taint' "$tmp/taint"
n=0
while IFS= read -r sample; do
	n=$((n + 1))
	mklog "$tmp/bad$n" "[    2.0] $sample"
	expect "bad-pattern-$n" 'FAIL: vm/k/kernel-log' "$tmp/bad$n"
done <<'SAMPLES'
BUG: kernel NULL pointer dereference, address: 0000000000000000
WARNING: CPU: 1 PID: 77 at kernel/task_work.c:42 task_work_add+0x1/0x2
Oops: 0000 [#1] PREEMPT SMP NOPTI
------------[ cut here ]------------
BUG: scheduling while atomic: sh/77/0x00000002
BUG: sleeping function called from invalid context at mm/memory.c:5678
WARNING: possible circular locking dependency detected
WARNING: suspicious RCU usage
rcu: INFO: rcu_preempt self-detected stall on CPU
watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [sh:77]
INFO: task sh:77 blocked for more than 120 seconds.
list_add corruption. next->prev should be prev
UBSAN: array-index-out-of-bounds in module.c:12:3
BUG: KASAN: slab-out-of-bounds in ustack_read+0x1/0x2 [ustack]
unreferenced object 0xffff888003c1c000 (size 64):
general protection fault, probably for non-canonical address 0xdead000000000100
SAMPLES

# A stalled guest's vCPUs are named from QEMU's "info registers -a": a
# kernel address by kallsyms, a module address by ustack.ko's .text
# symbols and where that .text was loaded, HLT=1 as halted.
vcpu_places() {
	local out want

	printf '%s\n' 'ffffffff81000000 T _text' 'ffffffff81a59280 t native_safe_halt' \
		'ffffffff81a59300 T next_fn' 'ffffffff81b00000 D some_data' >"$tmp/kmap"
	printf '%s\n' '0000000000000000 ustack_first' '0000000000000100 ustack_walk' >"$tmp/modmap"
	out=$(printf '%s\n' 'info registers -a' 'CPU#0' 'RAX=0000000000000000 RBX=0000000000000000' \
		'RIP=ffffffff81a592eb RFL=00000246 [---Z-P-] CPL=0 II=0 A20=1 SMM=0 HLT=1' \
		'CPU#1' 'RIP=ffffffffc0201123 RFL=00000246 [---Z-P-] CPL=0 II=0 A20=1 SMM=0 HLT=0' \
		'CPU#2' 'RIP=0000000000401000 RFL=00000246 [---Z-P-] CPL=3 II=0 A20=1 SMM=0 HLT=0' |
		awk -v kmap="$tmp/kmap" -v modmap="$tmp/modmap" -v modbase=0xffffffffc0201000 \
			-f "$top/scripts/vm/vcpu-places.awk")
	want='vCPU0 native_safe_halt+0x6b (halted), vCPU1 ustack_walk+0x23 [ustack], vCPU2 0000000000401000'
	[ "$out" = "$want" ] || { echo "got '$out', want '$want'"; return 1; }
}
run_test vcpu-places vcpu_places
