# kernel_unwinder (issue 27) on a kernel without the kernel's own deferred
# unwinder (CONFIG_UNWIND_USER, 6.17): writing 1 is refused with
# EOPNOTSUPP and one line in the log saying why, the parameter stays 0 and
# the engine keeps working; given at load, the load is refused the same
# way, and a load without it works.
# kernels: 6.12
. ./lib.sh
why='kernel_unwinder: no deferred user unwinder (CONFIG_UNWIND_USER, 6.17)'
ustack_load
p=/sys/module/ustack/parameters/kernel_unwinder
[ "$(cat $p)" = 0 ] || fail "kernel_unwinder is $(cat $p) at load"
refused_eopnotsupp kernel_unwinder "$why"
echo 0 >$p || fail "kernel_unwinder=0 refused"
# the engine still records
bin/workload cpu 3 >/dev/null & PW=$!
record_start /tmp/rec
wait $PW
record_stop
grep -q '^user ' /tmp/rec || fail "no user records after the refusal"
ustack_unload
if modprobe ustack kernel_unwinder=1 2>/tmp/err; then
	fail "loaded with kernel_unwinder=1"
fi
grep -qi 'not supported' /tmp/err || fail "load not refused with EOPNOTSUPP: $(cat /tmp/err)"
[ ! -d /sys/module/ustack ] || fail "module left loaded"
ustack_load
echo ok
