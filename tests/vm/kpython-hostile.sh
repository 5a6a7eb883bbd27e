# Issue 51: a process that forges the CPython runtime state the kernel
# reads (bin/pyforge: a thread list that is a cycle, a frame chain that
# is a cycle, a name of 2^40 bytes, pointers into the kernel and to
# unmapped pages), run as uid 65534 at 999 Hz with ustackd registering
# its "3.11" layout: it gets short interp records or none, ends on time,
# and the kernel log stays clean (kernel-log).
# kernels: 6.1 debug
# timeout: 600
. ./lib.sh
[ -x /usr/sbin/ustackd ] || fail "ustackd not built"
ustack_unload
rm -rf /var/cache/ustack
ustack_load sample_hz=999 buffer_kb=16384
ustackd_start /tmp/kh-ud.log
cp bin/pyforge /tmp/pyforge && chown 65534 /tmp/pyforge
record_start /tmp/kh.rec
t0=$(date +%s)
bin/as_nobody /tmp/pyforge 8 >/tmp/kh.out 2>&1 || fail "pyforge: $(cat /tmp/kh.out)"
t1=$(date +%s)
record_stop 1
grep -e pyforge /tmp/kh-ud.log | head -3
grep -q "pyforge: .*generated" /tmp/kh-ud.log || fail "ustackd did not cover pyforge"
[ $((t1 - t0)) -le 30 ] || fail "pyforge took $((t1 - t0)) s for 8"
interp=$(grep -c "^interp " /tmp/kh.rec || true)
frames=$(awk '/^interp /{ n = 0; on = 1; next } on && /^    interp /{ n++; if (n > max) max = n; next } { on = 0 } END { print max + 0 }' /tmp/kh.rec)
echo "kpython-hostile: $interp interp records, at most $frames frames in one, $((t1 - t0)) s"
# the cycle of one frame: that frame once, then the walk ends
[ "$frames" -le 1 ] || fail "$frames frames in one record"
kill $UD; wait $UD
ustack_unload
