# Parameters change while a reader is open; the pid filter holds; a reader
# killed mid-read leaves nothing behind; rmmod is refused while a reader is
# blocked and works once it is gone.
# kernels: 6.1 6.12 sid debug
. ./lib.sh
ustack_load sample_hz=99
record_start /tmp/rec
param_set sample_hz 999
./bin/workload_fp cpu 0.5 || fail "workload"
param_set sample_hz 0
param_set syscalls write,getpid
[ "$(cat /sys/module/ustack/parameters/syscalls)" = write,getpid ] || fail "syscalls readback"
echo "param_set syscalls bogus_call" >/dev/null
if echo bogus_call >/sys/module/ustack/parameters/syscalls 2>/dev/null; then
	fail "an unknown syscall name was accepted"
fi
param_set syscalls ""
param_set offcpu 1
[ "$(cat /sys/module/ustack/parameters/offcpu)" = Y ] || fail "offcpu readback"
param_set offcpu 0
record_stop
n=$(grep -c 'event=cpu-clock comm=workload_fp' /tmp/rec)
[ "$n" -gt 0 ] || fail "no samples after changing sample_hz"
# The pid filter: only the chosen process is recorded.
./bin/workload_fp cpu 100 &
target=$!
param_set pid $target
param_set sample_hz 499
record_start /tmp/rec2
./bin/workload cpu 0.5
sleep 0.5
record_stop
kill $target; wait $target 2>/dev/null
param_set pid 0
others=$(grep '^sample' /tmp/rec2 | grep -vc " pid=$target ")
mine=$(grep -c "^sample .* pid=$target " /tmp/rec2)
echo "target samples=$mine others=$others"
[ "$mine" -gt 0 ] || fail "no samples of the chosen pid"
[ "$others" = 0 ] || fail "$others samples of other processes"
# A reader killed in the middle of a blocking read.
cat /dev/ustack >/dev/null &
r=$!
sleep 0.3
kill -9 $r; wait $r 2>/dev/null
# rmmod while a reader is blocked: refused, then fine once it is gone.
cat /dev/ustack >/dev/null &
r=$!
sleep 0.3
if modprobe -r ustack 2>/dev/null; then fail "rmmod succeeded under a reader"; fi
kill $r; wait $r 2>/dev/null
ustack_unload
