# The pool's shares for any number of users (issue 25, item 8): 600
# distinct uids (a root helper drops to each in turn) ask once for their
# own stack, more than the old share table's 256 slots.  Then the pool
# attack of hostile-pool.sh with off-CPU samples on: an unprivileged
# user's 200 threads each ask once and sleep, each parking a request (its
# off-CPU sample) in its stay, with a pool of 64.  That user must still be
# capped at its share (share_refused counts its refusals), and root's
# sampled program must get a cookie and a user stack for every sample.
# kernels: 6.1 debug
. ./lib.sh
ustack_load sample_hz=199 max_tasks=64 offcpu=1
record_start /tmp/pu.rec
./bin/uid_spread 20000 600 || fail "uid_spread"
./bin/hostile pool 200 8 >/tmp/pu.out &
hp=$!
i=0
until grep -q holding /tmp/pu.out; do
	i=$((i + 1)); [ $i -lt 300 ] || fail "the threads never all asked: $(cat /tmp/pu.out)"
	kill -0 $hp 2>/dev/null || fail "hostile: $(cat /tmp/pu.out)"
	sleep 0.1
done
./bin/workload_fp cpu 1
record_stop
nomem=$(stat_of nomem)
refused=$(stat_of share_refused)
kill $hp 2>/dev/null
wait $hp
ustack_unload
total=$(grep -c '^sample .* comm=workload_fp' /tmp/pu.rec)
zero=$(grep -c '^sample cookie=0x0000000000000000 .* comm=workload_fp' /tmp/pu.rec)
echo "after 600 uids: root's program $total samples, $zero without a cookie; nomem $nomem, share_refused $refused"
[ "$total" -gt 20 ] || fail "too few samples: $total"
[ "$refused" -gt 0 ] || fail "the attacker was never held to its share (share_refused 0)"
[ "$nomem" -eq 0 ] || fail "the pool turned requests away: nomem $nomem"
[ "$zero" -le 1 ] || fail "$zero of $total samples lost their user stack"
