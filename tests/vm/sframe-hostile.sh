# The costliest SFrame sections the caps allow, registered and walked
# (SFRAME_IOC_SELF_STACK) by an unprivileged user: the section shaped
# for linear lookups is refused, the costliest one accepted ends its walk
# on the work budget within a second, and a task walking in a loop dies
# at once on SIGKILL.  The harness checks the kernel log (no soft lockup).
# A walk that meets a return address of 0 ends on a bad frame, counted
# under its SFrame code in the stats (bad_frame_bad-return-address).
# timeout: 600
. ./lib.sh
ustack_load
out=$(su -s /bin/sh nobody -c "bin/sframe_hostile" 2>&1) || fail "as nobody: $out"
echo "$out"
b0=$(stat_of bad_frame_bad-return-address); b0=${b0:-0}
out=$(su -s /bin/sh nobody -c "bin/sframe_hostile badra" 2>&1) || fail "as nobody: $out"
echo "$out"
b1=$(stat_of bad_frame_bad-return-address); b1=${b1:-0}
[ "$((b1 - b0))" = 1 ] || fail "bad_frame_bad-return-address went from $b0 to $b1, want one more"
echo ok
