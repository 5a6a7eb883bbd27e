# Unloading while a user's requests keep coming.  The trace events,
# enabled through tracefs (echo 1 > enable, or trace-cmd record: neither
# pins the module, as perf's events do), run the sources with no
# /dev/ustack reader; uid 65534's 16 threads (bin/naps) go off CPU again
# and again with offcpu=1, each nap a walk owed at its wake-up, and are
# sampled at 999 Hz.  Each round starts `modprobe -r` and lets the
# threads go a moment later (0 to 200 ms), so that they ask just as the
# unload begins: a walk queued then, once the module is going, ran after
# its text and its pool were freed (an oops or KASAN's use-after-free at
# a sleeper's wake-up).  Now nothing is queued once unloading has begun,
# the sources stop first, and the sleepers nap on: every round unloads
# (retried while the module is in use) and the threads end as they
# should.
# kernels: 6.1 sid debug
# trace-cmd: yes
# timeout: 900
. ./lib.sh
T=/sys/kernel/tracing
command -v trace-cmd >/dev/null || fail "no trace-cmd in the guest"
ustack_unload
ustack_install
n=$(long 40 12)
[ $DEBUG_KERNEL = 0 ] || n=$(long 16 6)
hz=999
[ $DEBUG_KERNEL = 0 ] || hz=$DEBUG_HZ
NP= TC= U=
trap 'kill $NP $TC $U 2>/dev/null' EXIT
i=0 busy=0
while [ $i -lt $n ]; do
	harness_asleep
	rm -f /tmp/go; mkfifo /tmp/go
	bin/as_nobody bin/naps 16 1 </tmp/go >/tmp/naps.out & NP=$!
	exec 7>/tmp/go
	modprobe ustack offcpu=1 sample_hz=$hz pid=$NP || fail "load $i"
	TC=
	if [ $((i % 2)) = 1 ]; then
		trace-cmd record -e ustack -o /tmp/tc.dat >/tmp/tc.out 2>&1 & TC=$!
	else
		echo 1 >$T/events/ustack/enable || fail "enable the events"
	fi
	j=0
	until grep -q '^sources_on 1' /sys/kernel/debug/ustack/stats 2>/dev/null; do
		j=$((j + 1)); [ $j -lt 200 ] || fail "round $i: the events did not start the sources"
		sleep 0.05
	done
	# the unload, and the sleepers let go a moment after it began
	modprobe -r ustack 2>/tmp/rmmod.err & U=$!
	case $((i % 5)) in
	0) ;;
	1) sleep 0.02 ;;
	2) sleep 0.05 ;;
	3) sleep 0.1 ;;
	4) sleep 0.2 ;;
	esac
	echo go >&7
	exec 7>&-
	wait $U || busy=$((busy + 1))
	U=
	# in use: a walk owed by a sleeper that asked before; retried
	j=0
	while [ -d /sys/module/ustack ]; do
		j=$((j + 1)); [ $j -lt 100 ] ||
			fail "round $i: modprobe -r: $(modprobe -r ustack 2>&1); refcnt $(cat /sys/module/ustack/refcnt)"
		modprobe -r ustack 2>/dev/null || sleep 0.1
	done
	wait $NP || fail "round $i: the sleepers: exit $? ($(cat /tmp/naps.out))"
	NP=
	grep -q '^naps=[1-9]' /tmp/naps.out || fail "round $i: the sleepers did not nap: $(cat /tmp/naps.out)"
	if [ -n "$TC" ]; then
		kill -INT $TC
		wait $TC
		TC=
	fi
	i=$((i + 1))
done
echo "$n rounds unloaded under tracefs consumers and sleepers; $busy first tries found the module in use"
