# Cooperative unwinding's thread entries always come back (issue 25,
# item 4): uid 65534 runs 64 opted-in threads that owe requests (walked
# inside io_uring_enter()'s wait: src/coop_kill.c) and kills them, 16
# times with SIGKILL and 4 with SIGTERM (8 and 2 in make check); none of them returns to user
# space.  A process of root with 64 threads answering afterwards still
# gets a slot for each (no coop_full) and its answers are accepted.
# Each thread copies 4 MiB inline per io_uring_enter(): 64 of them ask
# for more copying than TCG's two vCPUs do.  On 6.1 that only slows the
# 2 s each process lives (a round takes 3 to 6 s); on the debug kernel,
# where KASAN and lockdep slow everything else too, the shell, thread
# creation and exits starved: no round ended in 550 s and the test ran
# past its 900 s limit.  There the threads copy 256 KiB a time (a round
# takes 14 to 39 s, with thousands of requests still owed).  There the
# module before the fix passed too (3790 owed, coop_full 0): on the debug
# kernel the test checks the kill path under KASAN, lockdep and kmemleak,
# not yet the slots' return, which 6.1 proves.  A round that does not end
# is shown (where its threads are) and fails.  Since it proves nothing
# more there for 8 minutes of the debug lane, make check-full alone runs
# it on the debug kernel.
# kernels: 6.1
. ./lib.sh
ustack_load sample_hz=999
dd if=/dev/urandom of=/tmp/coop_kill.dat bs=1M count=4 2>/dev/null
chmod 644 /tmp/coop_kill.dat
kb=4096
[ $DEBUG_KERNEL = 1 ] && kb=256
# (USTACK_VM_APPEND=coop_kill_kb=N coop_kill_rounds=N: for a look at one)
v=$(sed -n 's/.*coop_kill_kb=\([0-9]*\).*/\1/p' /proc/cmdline); kb=${v:-$kb}
rounds=$(sed -n 's/.*coop_kill_rounds=\([0-9]*\).*/\1/p' /proc/cmdline)
now() { cut -d" " -f1 /proc/uptime | cut -d. -f1; }
# Where a process's threads are in the kernel.
dump() {
	grep '^coop_\|^walks \|^requests ' /sys/kernel/debug/ustack/stats | tr '\n' ' '; echo
	echo "pending: $(tr '\n' ';' </sys/kernel/debug/ustack/pending)"
	for t in /proc/$1/task/*; do
		echo "  ${t##*/} $(cat $t/comm) $(sed -n 's/^State:\t//p' $t/status) wchan=$(cat $t/wchan)"
		sed 's/^/      /' $t/stack
	done 2>&1 | head -300
}
gone() { ! grep -q '^State:.[^Z]' /proc/$1/status 2>/dev/null; }
record_start /dev/null
d0=$(stat_of coop_deferred)
for r in $(seq ${rounds:-$(long 20 10)}); do
	sig=KILL
	[ $((r % 5)) = 0 ] && sig=TERM
	t0=$(now)
	bin/as_nobody bin/coop_kill 64 $kb >/tmp/kill.out 2>&1 &
	pid=$!
	until grep -q '^ready' /tmp/kill.out; do
		kill -0 $pid 2>/dev/null || { cat /tmp/kill.out; fail "coop_kill died"; }
		[ $(($(now) - t0)) -lt 300 ] || { dump $pid; fail "round $r: coop_kill not ready in 300 s"; }
		sleep 0.1
	done
	t1=$(now)
	sleep 2
	kill -$sig $pid
	t2=$(now)
	until gone $pid; do
		[ $(($(now) - t2)) -lt 300 ] || { dump $pid; fail "round $r: not gone 300 s after SIG$sig"; }
		sleep 0.1
	done
	wait $pid 2>/dev/null
	echo "round $r SIG$sig: ready in $((t1 - t0)) s, gone $(($(now) - t2)) s after the signal, $(( $(stat_of coop_deferred) - d0 )) owed so far"
done
owed=$(( $(stat_of coop_deferred) - d0 ))
echo "coop-kill: $owed requests owed inside a system call by the killed threads ($kb KiB a copy)"
grep '^coop_' /sys/kernel/debug/ustack/stats | tr '\n' ' '; echo
[ "$owed" -ge 64 ] || fail "only $owed requests owed: the scenario did not happen"
f0=$(stat_of coop_full)
param_set coop_timeout_ms 5000
./bin/coop_c threads 2 >/tmp/victim.out 2>&1 || { cat /tmp/victim.out; fail "coop_c threads exit $?"; }
cat /tmp/victim.out
record_stop 0.5
val() { tr ' ' '\n' </tmp/victim.out | sed -n "s/^$1=//p"; }
full=$(( $(stat_of coop_full) - f0 ))
grep '^coop_' /sys/kernel/debug/ustack/stats | tr '\n' ' '; echo
[ "$full" = 0 ] || fail "root's threads found no slot $full times after the kills"
[ "$(val ok)" -ge 64 ] || fail "root's 64 threads: only $(val ok) answers accepted"
ustack_unload
