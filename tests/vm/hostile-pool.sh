# The pool attack (issue 14): with a pool of 64 task states, an
# unprivileged user's 200 threads each ask for their own stack once and
# then sleep; root's sampled program still gets a cookie and a user stack
# for every sample.
. ./lib.sh
ustack_load sample_hz=199 max_tasks=64
record_start /tmp/pool.rec
./bin/hostile pool 200 8 >/tmp/pool.out &
hp=$!
i=0
until grep -q holding /tmp/pool.out; do
	i=$((i + 1)); [ $i -lt 300 ] || fail "the threads never all asked: $(cat /tmp/pool.out)"
	kill -0 $hp 2>/dev/null || fail "hostile: $(cat /tmp/pool.out)"
	sleep 0.1
done
./bin/workload_fp cpu 1
record_stop
nomem=$(stat_of nomem)
refused=$(stat_of share_refused)
kill $hp 2>/dev/null
wait $hp
ustack_unload
total=$(grep -c '^sample .* comm=workload_fp' /tmp/pool.rec)
zero=$(grep -c '^sample cookie=0x0000000000000000 .* comm=workload_fp' /tmp/pool.rec)
echo "root's program: $total samples, $zero without a cookie; nomem $nomem, share_refused $refused"
[ "$total" -gt 20 ] || fail "too few samples: $total"
# A tick in the program's exit has no cookie by design (the task is
# exiting): allow that one, not a pool that turned root away.
[ "$nomem" -eq 0 ] || fail "the pool turned requests away: nomem $nomem"
[ "$zero" -le 1 ] || fail "$zero of $total samples lost their user stack"
