# 10^5 write() calls traced with syscalls=write: one sample and one user
# record per call, the caller's frames right (write_one > run_write > main).
# timeout: 900
# debug: skip (10^5 traced calls under KASAN take too long; the other stream tests cover it)
. ./lib.sh
ustack_load sample_hz=0 syscalls=write buffer_kb=65536
[ "$(cat /sys/module/ustack/parameters/syscalls)" = write ] || fail "syscalls param"
record_start /tmp/rec
# Only the workload is traced (pid=), so the recorder's own writes are not.
mkfifo /tmp/go
WAIT_STDIN=1 sframe-register run ./bin/workload_sf write 100000 </tmp/go &
w=$!
param_set pid $w
echo >/tmp/go
wait $w || fail "workload"
record_stop 1
awk -f stream-check.awk -v comm=workload_sf -v syms=bin/workload_sf.syms \
	-v obj=/tests/vm/bin/workload_sf -v chain=write_one,run_write,main \
	-v event=syscall:write -v exact_samples=100000 -v kchain=do_syscall_64 \
	/tmp/rec || fail "stream check"
users=$(grep -c '^user .*pid='"$(grep -m1 'comm=workload_sf' /tmp/rec | sed 's/.* pid=\([0-9]*\).*/\1/')"' ' /tmp/rec)
[ "$users" -ge 100000 ] || fail "$users user records"
! grep -q '^lost' /tmp/rec || fail "records lost"
ustack_unload
