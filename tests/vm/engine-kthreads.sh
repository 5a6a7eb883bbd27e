# Kernel threads get no user walk and no sample; module unload is refused
# while walks are pending on many tasks, and works once they have run.
# debug: skip (30 blocked tasks at 999 Hz under KASAN run past the timeout)
. ./lib.sh
ustack_load sample_hz=999 offcpu=1
record_start /tmp/rec
i=0; pids=; while [ $i -lt 30 ]; do sleep 60 & pids="$pids $!"; i=$((i + 1)); done
# Each sleeper must be asleep in nanosleep (off-CPU) while the
# stream was open; on a slow guest (6.12-rt under TCG) one second was
# not always enough.
for p in $pids; do
	i=0
	until [ "$(cut -d' ' -f3 /proc/$p/stat)" = S ] &&
	      grep -qE '^(35|230) ' /proc/$p/syscall; do
		i=$((i + 1)); [ $i -lt 300 ] || fail "sleeper $p never slept"
		sleep 0.1
	done
done
sleep 0.5
record_stop
if grep -E '^sample .* comm=(kworker|ksoftirqd|rcu_|migration|kthreadd|cpuhp)' /tmp/rec | head -3 | grep .; then
	fail "samples of kernel threads"
fi
# The 30 sleepers went off-CPU with a request: their walks are pending
# until they wake up, so the module must stay.
[ "$(cat /sys/module/ustack/refcnt)" -ge 30 ] || fail "refcnt $(cat /sys/module/ustack/refcnt) with 30 walks pending"
if modprobe -r ustack 2>/dev/null; then fail "rmmod with walks pending"; fi
# Woken by a signal, each sleeper runs its walk on the way out and gives
# its reference back.  (Not unloaded here: this test's own parents went
# off-CPU while recording too, and hold walks until it ends.)  Other
# tasks may take or give back walk references meanwhile, so the count
# compared is the references that are not a pending walk's.
for p in $pids; do
	grep -q "^$p " /sys/kernel/debug/ustack/pending || fail "sleeper $p has no walk pending"
done
# The module's references less its pending walks, read between two equal
# reads of the count.
others() {
	local i=0 r n
	while [ $i -lt 50 ]; do
		r=$(cat /sys/module/ustack/refcnt)
		n=$(wc -l </sys/kernel/debug/ustack/pending)
		[ "$r" = "$(cat /sys/module/ustack/refcnt)" ] && { echo $((r - n)); return; }
		i=$((i + 1))
	done
	fail "the module's reference count never settled"
}
before=$(others)
kill $pids
wait
after=$(others)
echo "references not held by a pending walk: $before with the sleepers blocked, $after after they ran"
[ "$before" = "$after" ] || fail "the sleepers' walks did not give their references back"
