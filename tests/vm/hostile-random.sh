# A random hostile user (issue 14): as uid 65534, four processes call
# random /dev/sframe ioctls, map, unmap, protect and scribble over what
# they name (a copy of a real .sframe section among them), fork, exec
# and start threads, while root samples every task at 999 Hz with the
# off-CPU and system-call sources on.  Every process must come back on
# time, every kind of operation must have run, the module must unload,
# and the kernel log stays clean (the harness).  The kernel command line
# may set ustack_random_secs= and ustack_random_seed= (USTACK_VM_APPEND)
# for a long run; the seed is printed so that a failure can be replayed.
# timeout: 200
. ./lib.sh
arg() { sed -n "s/.*\<$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
secs=$(arg ustack_random_secs); secs=${secs:-20}
seed=$(arg ustack_random_seed); seed=${seed:-$(date +%s)}
ustack_load sample_hz=999 offcpu=1 syscalls=mmap,munmap,mprotect,ioctl
record_start /tmp/rnd.rec
./bin/hostile_random "$secs" "$seed" 4 >/tmp/rnd.out 2>&1 &
hr=$!
i=0
while kill -0 $hr 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt $(((secs + 60) * 10)) ] || fail "seed $seed: not back $((secs + 60)) s after a $secs s run: $(cat /tmp/rnd.out)"
	sleep 0.1
done
wait $hr || fail "seed $seed: $(cat /tmp/rnd.out)"
record_stop
cat /tmp/rnd.out
for op in mmap munmap mprotect scribble register unregister self coop store ioctl fork exec thread; do
	grep -q "^$op=[1-9]" /tmp/rnd.out || fail "seed $seed: no $op operation ran"
done
# Some registrations were valid: the walks met them.
grep -q '^register=[0-9]* ok:[1-9]' /tmp/rnd.out || fail "seed $seed: no registration succeeded"
grep -E '^(requests|walks|deliveries|nomem|share_refused|self_limited|registry_bytes) ' /sys/kernel/debug/ustack/stats | tr '\n' ' '; echo
[ "$(stat_of walks)" -gt 0 ] || fail "no walk ran"
grep -q '^user .* pid=' /tmp/rnd.rec || fail "no user record"
ustack_unload
