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
	unload_round $i $hz
	i=$((i + 1))
done
echo "$n rounds unloaded under tracefs consumers and sleepers; $busy first tries found the module in use"
