# Benchmark (make bench): a victim's walk cost under a user's discovery
# churn (issue 25, item 9).  A root-owned --gsframe victim (workload_sf,
# found by ELF discovery; rule_cache=0, so every frame asks discovery) is
# sampled at 999 Hz alone, then while nobody walks its own stack in a
# loop over a fake frame chain through 80 files of its own (disc_thrash),
# and, as the control, while nobody only spins (a competitor for the CPU
# that asks discovery nothing).  From the engine's counters, only the
# victim's walks (pid=): walk_ns per walk in each run, their ratios, and
# the victim's system objects re-validated during the churn.
# debug: skip (a benchmark; timings under KASAN mean nothing)
# timeout: 300
. ./lib.sh
mkdir -p /opt/victim /tmp/thrash
cp bin/workload_sf /opt/victim/workload_sf
chmod 0755 /opt/victim/workload_sf
chown 65534:65534 /tmp/thrash
ustack_load sample_hz=999 rule_cache=0
rm -f /tmp/go && mkfifo /tmp/go || fail "mkfifo"
record_start /tmp/rec

# victim_run SECS: walks, walk_ns and system checks the victim's run adds.
victim_run() {
	/opt/victim/workload_sf cpu "$1" </tmp/go &
	_p=$!
	param_set pid $_p
	_w=$(stat_of walks) _n=$(stat_of walk_ns) _c=$(stat_of discovery_checks_system)
	echo go >/tmp/go
	wait $_p || fail "victim"
	echo "$(($(stat_of walks) - _w)) $(($(stat_of walk_ns) - _n)) $(($(stat_of discovery_checks_system) - _c))"
}

victim_run 1 >/dev/null		# its verdict, once
alone=$(victim_run 3)
bin/as_nobody bin/workload cpu 5 >/dev/null 2>&1 &
sp=$!
sleep 1
spin=$(victim_run 3)
wait $sp
bin/as_nobody bin/disc_thrash /tmp/thrash 80 6 >/tmp/thrash.out 2>&1 &
tp=$!
sleep 1
churn=$(victim_run 3)
wait $tp || fail "disc_thrash: $(cat /tmp/thrash.out)"
record_stop
ustack_unload
echo "alone: $alone; spin: $spin; churn: $churn (walks walk_ns checks); thrasher: $(cat /tmp/thrash.out)"
echo "$alone $spin $churn" | awk '{
	if (!$1 || !$4 || !$7) { print "FAIL: no walks"; exit 1 }
	a = $2 / $1; s = $5 / $4; c = $8 / $7
	printf "bench discovery_victim_walk_ns_alone %.0f ns\n", a
	printf "bench discovery_victim_walk_ns_spin %.0f ns\n", s
	printf "bench discovery_victim_walk_ns_churn %.0f ns\n", c
	printf "bench discovery_victim_walk_churn_ratio %.3f x\n", c / a
	printf "bench discovery_victim_walk_churn_vs_spin %.3f x\n", c / s
	printf "bench discovery_victim_revalidations %d count\n", $9
}' || fail "no walks"
