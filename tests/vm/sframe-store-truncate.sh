# A store file truncated and rewritten while walks read it: walks that
# meet the cut end cleanly (no splat, no stall), and once the file is whole
# again its entry serves complete stacks again: no rule read while the
# file changed (a page of zeroes, say) outlives the change in the rule
# cache.  The program runs alone on CPU 1, so no other process's walk
# empties that CPU's rule cache meanwhile.
# kernels: debug
. ./lib.sh
ustack_load sample_hz=999
obj=/tests/vm/bin/workload_nofp
libc=$(realpath /lib/x86_64-linux-gnu/libc.so.6)
mkdir -p /tmp/store
sframe-register gen $obj -o /tmp/store/w.elf --version 3 >/dev/null || fail "gen $obj"
sframe-register gen $libc -o /tmp/store/libc.elf --version 3 >/dev/null || fail "gen $libc"
cp /tmp/store/w.elf /tmp/store/w.whole
cp /tmp/store/libc.elf /tmp/store/libc.whole
bin/sframe_store add $obj /tmp/store/w.elf || fail "add $obj"
bin/sframe_store add $libc /tmp/store/libc.elf || fail "add $libc"
taskset -p 1 $$ >/dev/null || fail "pin the test to CPU 0"
taskset -c 1 $obj cpu 600 &
pid=$!
record_start /tmp/rec
# 4 rounds on the debug kernel, where each takes over 10 s
rounds=10
case $KREL in *debug*) rounds=4 ;; esac
i=0
while [ $i -lt $rounds ]; do
	: >/tmp/store/w.elf
	head -c 1900000 /tmp/store/libc.whole >/tmp/store/libc.elf
	sleep 0.1
	cat /tmp/store/w.whole >/tmp/store/w.elf
	cat /tmp/store/libc.whole >/tmp/store/libc.elf
	sleep 0.05
	i=$((i + 1))
done
record_stop
n=$(grep -c '^user .*end=' /tmp/rec)
[ "$n" -gt "$(per_hz 50)" ] || fail "$n user records while truncating"
echo "$n user records while truncating: $(grep -o 'end=[a-z_]*' /tmp/rec | sort | uniq -c | tr '\n' ' ')"
# whole again: complete stacks
record_start /tmp/rec2
sleep 2
kill $pid; wait $pid 2>/dev/null
record_stop
awk -f syms.awk -f stream-check.awk -v comm=workload_nofp -v syms=bin/workload_nofp.syms \
	-v obj=$obj -v hot=cpu_inner,cpu_outer -v chain=cpu_outer,run_cpu,main \
	-v min_samples=$(per_hz 100) /tmp/rec2 || fail "stacks after the file is whole"
grep '^store_' /sys/kernel/debug/ustack/stats
ustack_unload
echo "ok"
