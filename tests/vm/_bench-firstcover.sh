# Benchmark (make bench): how long an object no one has seen goes without
# unwind info, and what a program's first run loses meanwhile (issue 50).
# tests/bench/firstcover.sh collects the lines.
#   firstcover_exec_ms      a program just built (a fresh copy of
#                           bin/first_cover, a new build-id), from its exec
#                           to its store entry as the module sees it: the
#                           first of its own walks (SFRAME_IOC_SELF_STACK,
#                           one a millisecond, the first queueing the miss
#                           as a first sample's would) that leaves its
#                           frame by SFrame; ustackd otherwise idle, the
#                           store holding the system's objects
#   firstcover_dlopen_ms    the same for a fresh library it then dlopens
#                           (store_cache_lib), from the dlopen
#   firstcover_generate_ms  ustackd's part of those: from its read of
#                           the miss (every 100 ms) to its STORE_ADD
#                           (its log's "done in")
#   firstcover_pass_exec_ms, firstcover_pass_dlopen_ms
#                           the same while ustackd's pass over the system
#                           runs: ustackd started on an empty store, the
#                           rounds from its "ready" on (the guest's own
#                           system is a few objects: the pass is given
#                           fresh copies of libc and libstdc++ in /opt,
#                           BENCH_PASS_COPIES of each, default 16), only
#                           the rounds that ended before the pass did
#   firstcover_pass_s, firstcover_pass_rounds
#                           how long that pass took, the rounds within it
# each the median of BENCH_ROUNDS rounds (default 5), then a fresh
# first_prog and libfirst.so (first-sample's) run once, 0.7 s of CPU at
# 999 Hz, with miss_wait_ms=0 (nowait: no walk waits for ustackd) and
# with the module's default (wait), in turn, BENCH_RUNS times each
# (default 3), the median run of each:
#   firstcover_{nowait,wait}_complete   its user stacks that reach the
#                           outermost frame, per mille of those not in the
#                           exec or the loader (first-sample's count)
#   firstcover_{nowait,wait}_lost       the others: stacks a first run loses
#   firstcover_{nowait,wait}_gap_ms     the longest gap between two of its
#                           samples (a wait stops its ticks; nowait: the
#                           control)
#   firstcover_wait_waits   the module's waits in a run (store_miss_waits)
#   firstcover_wait_ms_per_process      their total (store_miss_wait_ms:
#                           one process waits)
#   firstcover_wait_ms_per_object       all runs' wait over their waits
# kernels: 6.1
# timeout: 1800
. ./lib.sh
[ -x /usr/sbin/ustackd ] || fail "ustackd not built"
R=${BENCH_ROUNDS:-5}
RUNS=${BENCH_RUNS:-3}
COPIES=${BENCH_PASS_COPIES:-16}
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
salt() { echo "$$-$1-$(cut -d' ' -f1 /proc/uptime)"; }

ustack_unload
rm -rf /var/cache/ustack /opt/fc-pass
ustack_load sample_hz=999 buffer_kb=16384
DEF_WAIT=$(cat /sys/module/ustack/parameters/miss_wait_ms)
[ "$DEF_WAIT" -gt 0 ] || fail "miss_wait_ms defaults to $DEF_WAIT"
# the latency rounds: no walk waits (their walks poll)
param_set miss_wait_ms 0

# the pass's work: copies of two large libraries no one has seen
mkdir -p /opt/fc-pass
i=0
while [ $i -lt "$COPIES" ]; do
	for l in libc.so.6 libstdc++.so.6; do
		f=/opt/fc-pass/$i.$l
		cp -L "/usr/lib/x86_64-linux-gnu/$l" "$f" &&
			bin/first_rebid "$f" "$(salt pass$i)" >/dev/null || fail "copy $l into $f"
	done
	i=$((i + 1))
done

# cover_round DIR SALT: a fresh first_cover and library in DIR, run (in
# a command substitution: its failure is its output and status):
# prints "EXEC_MS DLOPEN_MS"
cover_round() {
	mkdir -p "$1"
	cp bin/first_cover "$1/first_cover" && cp bin/store_cache_lib "$1/libfc.so" ||
		fail "copy into $1"
	bin/first_rebid "$1/first_cover" "$2" >/dev/null && bin/first_rebid "$1/libfc.so" "$2" >/dev/null ||
		fail "first_rebid"
	_o=$(bin/first_cover exec "$1/first_cover" "$1/libfc.so") || fail "first_cover: $_o"
	echo "$_o" | sed -n 's/^first_cover exec_ms=\([0-9.]*\) dlopen_ms=\([0-9.]*\)$/\1 \2/p' |
		grep . || fail "first_cover: $_o"
}

# While the pass runs: ustackd on an empty store, the rounds from ready on.
: >/tmp/fc-ud.log
ustackd -v 2>/tmp/fc-ud.log & UD=$!
trap 'kill $UD 2>/dev/null' EXIT
wait_ready /tmp/fc-ud.log
t0=$(cut -d' ' -f1 /proc/uptime)
: >/tmp/fc-pass
n=0
while [ $n -lt "$R" ]; do
	r=$(cover_round /tmp/fc.pass.$n "$(salt p$n)") || { echo "$r"; exit 1; }
	grep -q '^ustackd: system objects:' /tmp/fc-ud.log && break
	echo "pass round $n: exec, dlopen to coverage: $r ms"
	echo "$r" >>/tmp/fc-pass
	n=$((n + 1))
done
wait_system_pass /tmp/fc-ud.log
t1=$(cut -d' ' -f1 /proc/uptime)
# the pass's end, from its own log line's time ("in N ms")
pass_ms=$(sed -n 's/^ustackd: system objects: .* in \([0-9]*\) ms;.*/\1/p' /tmp/fc-ud.log)
echo "pass: $pass_ms ms, $n rounds within it (ready at ${t0} s, seen ended at ${t1} s)"
[ "$n" -gt 0 ] || fail "the pass ended before a round did: more BENCH_PASS_COPIES"
grep -q "/opt/fc-pass/" /tmp/fc-ud.log || fail "the pass never covered /opt/fc-pass"

# ustackd idle, the store holding the system's objects
: >/tmp/fc-idle
l0=$(wc -l </tmp/fc-ud.log)
n=0
while [ $n -lt "$R" ]; do
	r=$(cover_round /tmp/fc.idle.$n "$(salt i$n)") || { echo "$r"; exit 1; }
	echo "idle round $n: exec, dlopen to coverage: $r ms"
	echo "$r" >>/tmp/fc-idle
	n=$((n + 1))
done
grep -q "/tmp/fc.idle.0/first_cover: generated" /tmp/fc-ud.log ||
	fail "ustackd did not generate first_cover's entry: $(grep first_cover /tmp/fc-ud.log | tail -n 3)"
# ustackd's part: from its read of a miss to its STORE_ADD, the idle rounds'
tail -n +$((l0 + 1)) /tmp/fc-ud.log | sed -n 's/^ustackd: miss: .* done in \([0-9]*\) ms$/\1/p' >/tmp/fc-gen
[ "$(wc -l </tmp/fc-gen)" -ge "$R" ] || fail "ustackd logged $(wc -l </tmp/fc-gen) misses in $R rounds"

echo "bench firstcover_exec_ms $(cut -d' ' -f1 /tmp/fc-idle | median) ms"
echo "bench firstcover_dlopen_ms $(cut -d' ' -f2 /tmp/fc-idle | median) ms"
echo "bench firstcover_generate_ms $(median </tmp/fc-gen) ms"
echo "bench firstcover_pass_exec_ms $(cut -d' ' -f1 /tmp/fc-pass | median) ms"
echo "bench firstcover_pass_dlopen_ms $(cut -d' ' -f2 /tmp/fc-pass | median) ms"
echo "bench firstcover_pass_s $(awk -v m="$pass_ms" 'BEGIN { printf "%.1f", m / 1000 }') s"
echo "bench firstcover_pass_rounds $(wc -l </tmp/fc-pass) rounds"

# gap PID REC: the longest gap between two samples of PID as first_prog, ms
gap() {
	awk -v pid="$1" '
	/^sample / && / comm=first_prog/ && $0 ~ " pid=" pid " " {
		for (i = 2; i <= NF; i++) if ($i ~ /^time=/) { t = substr($i, 6) / 1e6; break }
		if (n++ && t - last > g) g = t - last
		last = t
	}
	END { printf "%.1f\n", g }' "$2"
}
# first_run KIND I: a fresh first_prog run once, recorded; appends
# "complete lost gap waits wait_ms" to /tmp/fc-KIND
first_run() {
	_d=/tmp/fc.run.$1.$2
	first_fresh $_d "$(salt "$1$2")"
	_w0=$(stat_of store_miss_waits) _m0=$(stat_of store_miss_wait_ms)
	record_start /tmp/fc-run.rec
	$_d/first_prog 0.7 >/dev/null & P=$!
	wait $P || fail "first_prog"
	record_stop 1
	_w=$(($(stat_of store_miss_waits) - _w0)) _m=$(($(stat_of store_miss_wait_ms) - _m0))
	set -- "$1" "$2" $(first_stacks $P /tmp/fc-run.rec)
	_ok=$3 _apart=$4 _tot=$5
	[ "$_tot" -ge 200 ] || fail "$1 run $2: only $_tot stacks"
	_n=$((_tot - _apart))
	_g=$(gap $P /tmp/fc-run.rec)
	echo "$1 run $2: $_ok of $_n stacks outermost ($_apart in the exec or the loader), longest gap $_g ms, $_w waits, $_m ms waited; $(lost_lines /tmp/fc-run.rec | wc -l) lost records"
	echo "$((_ok * 1000 / _n)) $((_n - _ok)) $_g $_w $_m" >>/tmp/fc-$1
}
: >/tmp/fc-nowait
: >/tmp/fc-wait
n=0
while [ $n -lt "$RUNS" ]; do
	param_set miss_wait_ms 0
	first_run nowait $n
	param_set miss_wait_ms "$DEF_WAIT"
	first_run wait $n
	n=$((n + 1))
done
for k in nowait wait; do
	echo "bench firstcover_${k}_complete $(cut -d' ' -f1 /tmp/fc-$k | median) permille"
	echo "bench firstcover_${k}_lost $(cut -d' ' -f2 /tmp/fc-$k | median) stacks"
	echo "bench firstcover_${k}_gap_ms $(cut -d' ' -f3 /tmp/fc-$k | median) ms"
done
[ "$(cut -d' ' -f4 /tmp/fc-nowait | sort -u)" = 0 ] || fail "a walk waited with miss_wait_ms=0"
echo "bench firstcover_wait_waits $(cut -d' ' -f4 /tmp/fc-wait | median) waits"
echo "bench firstcover_wait_ms_per_process $(cut -d' ' -f5 /tmp/fc-wait | median) ms"
awk '{ w += $4; m += $5 } END { printf "bench firstcover_wait_ms_per_object %.1f ms\n", w ? m / w : 0 }' /tmp/fc-wait
kill $UD; wait $UD 2>/dev/null
UD=
ustack_unload
rm -rf /opt/fc-pass
