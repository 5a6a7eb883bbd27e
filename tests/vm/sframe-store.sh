# The system-wide SFrame store: a program built without frame pointers and
# without SFrame, started before its objects (itself, libc) were added to
# the store and without the shim, is sampled at 999 Hz: every stack in its
# own loop reaches the outermost frame, its frames and libc's found by
# SFrame read from the store files' page cache, and the stats count store
# hits.
# kernels: debug
. ./lib.sh
ustack_load sample_hz=999
[ -x /usr/bin/sframe-register ] || fail "no sframe-register"
obj=/tests/vm/bin/workload_nofp
libc=$(realpath /lib/x86_64-linux-gnu/libc.so.6)
mkdir -p /tmp/store
sframe-register gen $obj -o /tmp/store/w.elf --version 3 || fail "gen $obj"
sframe-register gen $libc -o /tmp/store/libc.elf --version 3 || fail "gen $libc"
$obj cpu 600 &
pid=$!
sleep 0.5
bin/sframe_store add $obj /tmp/store/w.elf || fail "add $obj"
bin/sframe_store add $libc /tmp/store/libc.elf || fail "add $libc"
[ "$(stat_of store_entries)" = 2 ] || fail "store_entries $(stat_of store_entries)"
record_start /tmp/rec
sleep 3
# stopped before the recording, so that no walk of it is still on its way
kill $pid; wait $pid 2>/dev/null
record_stop
nofp_sframe_check /tmp/rec $obj $libc
if grep -q "user 0x[0-9a-f]* fp $obj+" /tmp/rec; then
	grep -m3 "user 0x[0-9a-f]* fp $obj+" /tmp/rec
	fail "program frames by frame pointer"
fi
[ "$(stat_of store_hits)" -gt 0 ] || fail "store_hits 0"
grep '^store_' /sys/kernel/debug/ustack/stats
ustack_unload
echo "ok"
