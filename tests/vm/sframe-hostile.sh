# The costliest SFrame sections the caps allow, registered and walked
# (SFRAME_IOC_SELF_STACK) by an unprivileged user: the section shaped
# for linear lookups is refused, the costliest one accepted ends its walk
# on the work budget within a second, and a task walking in a loop dies
# at once on SIGKILL.  The harness checks the kernel log (no soft lockup).
# timeout: 600
. ./lib.sh
ustack_load
out=$(su -s /bin/sh nobody -c "bin/sframe_hostile" 2>&1) || fail "as nobody: $out"
echo "$out"
echo ok
