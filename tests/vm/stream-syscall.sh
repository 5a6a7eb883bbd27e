# 10^5 write() calls traced with syscalls=write: one sample and one user
# record per call, every stack complete, the caller's frames right
# (main > run_write > write_one > write).  Recorded in binary mode and
# checked with ustack-report (busybox awk over 10^5 text records is slow).
# timeout: 900
# debug: skip (10^5 traced calls under KASAN take too long; the other stream tests cover it)
# kernels: 6.1 6.12 6.12-rt sid
. ./lib.sh
ustack_load sample_hz=0 syscalls=write buffer_kb=65536
[ "$(cat /sys/module/ustack/parameters/syscalls)" = write ] || fail "syscalls param"
./bin/ustack_read dump /tmp/rec.bin >/tmp/dump.txt &
r=$!
until grep -q '^active 1' /sys/kernel/debug/ustack/stats; do sleep 0.05; done
# Only the workload is traced (pid=), so the recorder is not.
mkfifo /tmp/go
WAIT_STDIN=1 sframe-register run ./bin/workload_sf write 100000 </tmp/go &
w=$!
param_set pid $w
echo >/tmp/go
wait $w || fail "workload"
stream_drain
kill -TERM $r; wait $r
cat /tmp/dump.txt
ustack-report --folded --event syscall:write --kallsyms /proc/kallsyms /tmp/rec.bin >/tmp/folded || fail "ustack-report"
ustack-report --summary /tmp/rec.bin | sed -n '1,12p'
# The program's own 10^5 writes (the shim writes a little at start-up too).
awk '/^workload_sf;/ && /;run_write;/ {
	n = $NF; total += n
	if ($0 !~ /;main;run_write;write_one;/ || $0 ~ /\[no user stack\]|\[incomplete/) {
		bad += n; if (++shown < 3) print "wrong stack: " $0 }
     }
     END { print total + 0 " writes from run_write, " bad + 0 " with a wrong stack"
	   exit (total != 100000) || bad > 0 }' /tmp/folded ||
	fail "folded check"
ustack_unload
