# A 32-bit (compat) task's self-stack: one frame (its IP) and end reason
# NO_INFO, never a wrong 64-bit walk; compat ioctls refuse unknown flags.
# kernels: 6.1 6.12 sid debug
. ./lib.sh
ustack_load
bin/sframe_compat32
rc=$?
[ $rc = 0 ] || fail "compat32 check $rc failed"
echo ok
