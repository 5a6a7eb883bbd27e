# Root's shim uses ustackd's store: a root process started under
# LD_PRELOAD=libsframe-register.so writes the store entries of its
# objects (a program built without frame pointers or SFrame, Debian's
# libc) to /var/cache/ustack/sframe and registers them with STORE_ADD; a
# second process of the same program, started without the shim, then
# reaches the outermost frame through them (its frames and libc's by
# SFrame from the store).  A second root process under the shim keeps
# the entries there (SFRAME_STORE_KEEP: none replaced, read or validated
# again).  The entries are the files ustackd names:
# ustackd started afterwards reuses them instead of generating them.
# kernels: debug
. ./lib.sh
ustack_load sample_hz=999
[ -f /usr/lib/libsframe-register.so ] || fail "libsframe-register.so not built"
[ -x /usr/bin/sframe-register ] || fail "sframe-register not built"
[ -x /usr/sbin/ustackd ] || fail "ustackd not built"
rm -rf /var/cache/ustack
obj=/tests/vm/bin/workload_nofp
libc=$(realpath /lib/x86_64-linux-gnu/libc.so.6)

LD_PRELOAD=/usr/lib/libsframe-register.so $obj cpu 1 >/dev/null ||
	fail "$obj under the shim"
ls -l /var/cache/ustack/sframe
n=$(stat_of store_entries)
# the program, libc, ld.so: registered for every process
[ "$n" -ge 2 ] || fail "store_entries $n after the shim's run"
for f in /var/cache/ustack/sframe/*.v3.sframe; do
	[ "$(mode_of "$f")" = "644 0" ] || fail "$f: mode and owner $(mode_of "$f")"
done
k0=$(stat_of store_kept)
LD_PRELOAD=/usr/lib/libsframe-register.so $obj cpu 0.1 >/dev/null ||
	fail "$obj under the shim, again"
k1=$(stat_of store_kept)
echo "second root process under the shim: store_kept $k0 -> $k1, $n entries"
[ "$(stat_of store_entries)" = "$n" ] ||
	fail "store_entries $(stat_of store_entries) after the second run, was $n"
[ $((k1 - k0)) -ge "$n" ] || fail "the second run kept $((k1 - k0)) of $n entries"

# Without the shim: the store alone.
$obj cpu 600 >/dev/null &
pid=$!
UD=
trap 'kill $pid $UD 2>/dev/null' EXIT
sleep 0.5
record_start /tmp/rec
sleep 3
# stopped before the recording, so that no walk of it is still on its way
kill $pid; wait $pid 2>/dev/null
record_stop
nofp_sframe_check /tmp/rec $obj $libc
[ "$(stat_of store_hits)" -gt 0 ] || fail "store_hits 0"
grep '^store_' /sys/kernel/debug/ustack/stats

# ustackd: the program and libc (mapped by $pid) reused, not generated.
$obj cpu 600 >/dev/null &
pid=$!
sleep 0.5
: >/tmp/ud.log
ustackd -v 2>/tmp/ud.log & UD=$!
i=0
until grep -q '^ustackd: ready$' /tmp/ud.log; do
	kill -0 $UD 2>/dev/null || fail "ustackd exited: $(tail -n 5 /tmp/ud.log)"
	i=$((i + 1)); [ $i -lt 3000 ] || fail "ustackd not ready in 300 s"
	sleep 0.1
done
grep -E 'workload_nofp|libc.so.6|objects:' /tmp/ud.log
grep -q "$obj: reused " /tmp/ud.log || fail "ustackd did not reuse the entry of $obj"
grep -q "libc.so.6: reused " /tmp/ud.log || fail "ustackd did not reuse libc's entry"
grep -qE "(workload_nofp|libc.so.6): generated" /tmp/ud.log &&
	fail "ustackd generated again: $(grep ': generated' /tmp/ud.log)"
kill -TERM $UD
wait $UD || fail "ustackd exit $? after SIGTERM"
UD=
kill $pid
wait $pid 2>/dev/null
ustack_unload
echo "shim-store: ok"
