# CPU hotplug while sampling (2 vCPUs): a CPU-bound program pinned to cpu 1
# gets cpu=1 samples; cpu 1 goes offline under it (the program moves to
# cpu 0): no sample says cpu=1 while it is offline, sampling goes on on
# cpu 0; cpu 1 comes back, the program is pinned to it again and cpu=1
# samples come back.  Four offline/online cycles with the reader open (two
# in make check; the second changes sample_hz while cpu 1 is offline),
# then the reader closes (the cpuhp state goes away) and the module
# unloads.  Phases are delimited by CLOCK_MONOTONIC marks, the clock of
# the records' time=.  The rule caches follow the online CPUs: one per
# online CPU at load, not one per possible CPU (the guest has more of
# those: vm-test.sh boots it with maxcpus), one fewer while cpu 1 is
# offline, and cpu 1's again once it is back.
. ./lib.sh
on=/sys/devices/system/cpu/cpu1/online
[ -w $on ] || fail "cpu 1 cannot go offline here (no $on)"
[ "$(cat $on)" = 1 ] || fail "cpu 1 is not online"
states=/sys/devices/system/cpu/hotplug/states
ustack_load sample_hz=999 buffer_kb=32768
ncpus() { grep -c '^processor' /proc/cpuinfo; }
rcc=$(stat_of rule_cache_cpus)
echo "possible cpus $(cat /sys/devices/system/cpu/possible), online $(ncpus), rule caches $rcc"
[ "$rcc" = "$(ncpus)" ] || fail "$rcc rule caches for $(ncpus) online CPUs"
hz=$(cat /sys/module/ustack/parameters/sample_hz)
record_start /tmp/rec
if [ -f $states ]; then
	grep -q 'ustack:sample' $states || fail "no ustack:sample cpuhp state with a reader open"
fi
./bin/hotplug spin 1 600 &
P=$!
param_set pid $P
# It pins itself once started: its start-up may run on cpu 0.
i=0
until grep -q '^Cpus_allowed_list:[[:space:]]*1$' /proc/$P/status 2>/dev/null; do
	i=$((i + 1)); [ $i -lt 100 ] || fail "the program did not pin itself to cpu 1"
	sleep 0.05
done
sleep 0.2
now() { ./bin/hotplug now; }
: >/tmp/phases
# What the program and the engine did in a phase, for a phase in which the
# program was not sampled: its CPU ticks (utime+stime), its state, the
# engine's requests, perf throttling in the log.
snap() {
	set -- $(cut -d' ' -f3,14,15 /proc/$P/stat)
	echo "state=$1 ticks=$(($2 + $3)) requests=$(stat_of requests) walks=$(stat_of walks)"
}
phase() {	# phase NAME SECONDS: mark [start, end] of a phase of SECONDS
	s0=$(snap); t0=$(now); sleep "$2"; t1=$(now); s1=$(snap)
	echo "$1 $t0 $t1 before: $s0 after: $s1" >>/tmp/phases
}
phase start 2
for cycle in $(seq $(long 4 2)); do
	echo 0 >$on || fail "cycle $cycle: offline cpu 1"
	[ "$(cat $on)" = 0 ] || fail "cycle $cycle: cpu 1 still online"
	rcc=$(stat_of rule_cache_cpus)
	[ "$rcc" = "$(ncpus)" ] || fail "cycle $cycle: $rcc rule caches with cpu 1 offline"
	[ $cycle = 2 ] && param_set sample_hz $((hz / 2))
	phase off$cycle 0.5
	[ $cycle = 2 ] && param_set sample_hz $hz
	echo 1 >$on || fail "cycle $cycle: online cpu 1"
	taskset -p 2 $P >/dev/null || fail "cycle $cycle: pin to cpu 1 again"
	rcc=$(stat_of rule_cache_cpus)
	[ "$rcc" = "$(ncpus)" ] || fail "cycle $cycle: $rcc rule caches with cpu 1 back"
	sleep 0.2	# the pin takes effect at the next tick
	phase on$cycle 0.5
done
kill $P; wait $P 2>/dev/null
record_stop
if [ -f $states ]; then
	! grep -q 'ustack:sample' $states || fail "the cpuhp state outlives the last reader"
fi
cat /tmp/phases
dmesg | grep -iE 'perf: |throttl' | tail -3
# Per phase: every sample (any task) must not say cpu=1 while cpu 1 is
# offline; the program's samples are on cpu 0 while it is offline and on
# cpu 1 once pinned back.
awk -v pid=$P -v on_min=$(per_hz 100) -v off_min=$(per_hz 50) '
	function kv(k,  i) { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
	FILENAME == "/tmp/phases" { n++; name[n] = $1; lo[n] = $2; hi[n] = $3; line[n] = $0; next }
	/^sample / {
		# Numbers, not strings: as strings "9048835438" > "11490691491",
		# and a phase that crossed 10 s of uptime lost all its samples.
		t = kv("time") + 0; c = kv("cpu") + 0; p = kv("pid") + 0
		for (i = 1; i <= n; i++) if (t >= lo[i] && t <= hi[i]) {
			if (name[i] ~ /^off/ && c == 1) { bad++; if (bad < 5) print "offline cpu 1 sampled in " name[i] ": " $0 }
			if (p == pid && kv("event") == "cpu-clock") cnt[i, c]++
		}
	}
	END {
		for (i = 1; i <= n; i++) {
			printf "%s: program samples cpu0=%d cpu1=%d\n", name[i], cnt[i, 0], cnt[i, 1]
			if (cnt[i, 0] + cnt[i, 1] == 0) { bad++; print name[i] ": the program was not sampled at all: " line[i]; continue }
			if (name[i] ~ /^off/ && cnt[i, 0] < off_min) { bad++; print name[i] ": sampling stopped on cpu 0" }
			if (name[i] ~ /^(on|start)/ && cnt[i, 1] < on_min) { bad++; print name[i] ": too few cpu=1 samples" }
			if (name[i] ~ /^(on|start)/ && cnt[i, 0] > cnt[i, 1] / 10) { bad++; print name[i] ": pinned to cpu 1, sampled on cpu 0" }
		}
		exit bad > 0
	}' /tmp/phases /tmp/rec || fail "samples across hotplug"
# Every sample of the program still has its user stack.
if ! awk -f syms.awk -f stream-check.awk -v comm=hotplug -v syms=bin/hotplug.syms \
	-v obj=/tests/vm/bin/hotplug -v hot=cpu_inner -v chain=run_cpu,main \
	-v ends=outermost,bad-frame,no-info -v event=cpu-clock -v min_samples=$(per_hz 1000) /tmp/rec; then
	grep -B2 -A8 'hotplug+' /tmp/rec | head -40
	fail "stream check"
fi
l=$(lost_lines /tmp/rec | head -3)
[ -z "$l" ] || fail "records lost: $l"
grep -E '^(requests|walks|deliveries|regs_mismatch|dropped) ' /sys/kernel/debug/ustack/stats | tr '\n' ' '; echo
ustack_unload
