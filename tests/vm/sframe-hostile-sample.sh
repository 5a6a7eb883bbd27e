# The costliest SFrame section the caps allow, walked by sampling (issue
# 14): an unprivileged user's child spins inside its text on a crafted
# stack of 1024 return addresses past the last FRE of their FDEs, while
# root samples every CPU.  Every such walk ends on the work budget, the
# mean walk stays well under a second, the child dies at once on SIGKILL;
# the harness checks the kernel log (no soft lockup, no splat).
# timeout: 600
. ./lib.sh
ustack_load sample_hz=199
record_start /tmp/hs.rec
b0=$(stat_of end_budget) w0=$(stat_of walks) n0=$(stat_of walk_ns)
out=$(su -s /bin/sh nobody -c "bin/sframe_hostile spin $(long 5 3)" 2>&1) || fail "as nobody: $out"
b1=$(stat_of end_budget) w1=$(stat_of walks) n1=$(stat_of walk_ns)
record_stop
ustack_unload
echo "$out"
budget=$((b1 - b0)) walks=$((w1 - w0))
mean=$(( (n1 - n0) / (walks > 0 ? walks : 1) / 1000000 ))
echo "sampled: $walks walks, $budget ended on the budget, mean walk $mean ms"
[ "$budget" -gt 5 ] || fail "only $budget walks of the spinning child ended on the budget"
[ "$mean" -lt 1000 ] || fail "mean walk $mean ms"
grep -q '^sample .* comm=sframe_hostile' /tmp/hs.rec || fail "no sample of the child"
echo ok
