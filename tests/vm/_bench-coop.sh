# Benchmark (make bench): cooperative unwinding's cost.  python3.11 under
# the shim runs bench_coop.py (recursion, a callback through sorted();
# some 3 s under TCG, so that the interpreter's start-up does not make
# the figures), timed inside by its own CPU time (user and system: the
# signal's delivery and the answer's system call count), with no
# sampling, and at 99 and 999 Hz with and without cooperative frames
# ("nocoop": the same process with the signal blocked, so only
# cooperative unwinding's cost differs).
#
# TCG on a shared host is noisy (the same run varies by a third when
# other guests run beside it): each round runs every configuration once,
# the two of a rate back to back, in turns first, and every figure is
# the median over the rounds of that round's own ratio.  Results: the
# slowdowns against no sampling and their ratio (coop / nocoop) at each
# rate; the cost of one answered request at 999 Hz (the CPU time coop
# adds over the answers it adds); the handler's share: of the python
# process's samples at 999 Hz with coop, those whose user stack runs
# through a signal frame (taken while the shim's handler answered); the
# share of the requests the kernel raised that were answered (with
# frames, or with none); the bytes and frames of one interp record; the
# floor any signal-borne answer costs here (sig_floor), and the cost of
# an answer as a multiple of it (coop_answer_vs_floor).  Then where an
# answer's time goes: one more 999 Hz coop run with the shim's stamps on
# (USTACK_COOP_TIMES=1, tools/shim/interp_times.c), each stage in us per
# answer (coop_stage_*: the handler whole, the unwinders, and in them the
# code-object cache, names, line tables, frames added, every read; the
# answer's ioctl; outside the handler: the request, the signal's delivery
# and sigreturn, coop_cost_per_answer less the handler), the stamps' own
# cost, the code-object cache's hits.
# BENCH_ROUNDS (default 5) rounds.
# python: yes
# timeout: 2400
. ./lib.sh
N=${BENCH_WORK:-160}
R=${BENCH_ROUNDS:-5}
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# one CONFIG [SHIM]: "cpu_ns interps" of one timed run (interps: the
# records its recording holds), with the shim SHIM instead of the
# installed one (its recording kept apart, in /tmp/CONFIG_a.txt)
one() {
	case $1 in
	base) sframe-register run python3.11 bench_coop.py coop $N 2>&1 >/dev/null |
		sed -n 's/.* cpu_ns=\([0-9]*\).*/\1 0/p' ;;
	*)
		hz=${1#s}; hz=${hz%_*}
		param_set sample_hz $hz
		./bin/ustack_read dump /tmp/u.bin python >/tmp/one.txt &
		r=$!
		sleep 0.3
		c=$(env ${2:+USTACK_SHIM=$2} sframe-register run python3.11 bench_coop.py ${1#*_} $N 2>&1 >/dev/null |
			sed -n 's/.* cpu_ns=\([0-9]*\).*/\1/p')
		kill -TERM $r; wait $r
		param_set sample_hz 0
		cat /tmp/one.txt >>/tmp/$1${2:+_a}.txt
		echo "$c $(sed -n 's/.* interps=\([0-9]*\).*/\1/p' /tmp/one.txt)" ;;
	esac
}
ustack_load sample_hz=0 buffer_kb=65536
rm -f /tmp/s*_*.txt
one base >/dev/null
i=0
while [ $i -lt $R ]; do
	set -- $(one base)
	base=$1
	[ -n "$base" ] || fail "base: no cpu_ns"
	line="run $i base $((base / 1000000)) ms"
	for hz in 99 999; do
		if [ $((i % 2)) = 0 ]; then order="nocoop coop"; else order="coop nocoop"; fi
		for m in $order; do
			set -- $(one s${hz}_$m)
			[ -n "${1:-}" ] || fail "s${hz}_$m: no cpu_ns"
			eval "${m}_t=$1 ${m}_a=${2:-0}"
			line="$line, ${hz} Hz $m $(($1 / 1000000)) ms"
		done
		r99=$(awk -v c=$coop_t -v n=$nocoop_t 'BEGIN { printf "%.4f", c / n }')
		eval "ratio$hz=\"\${ratio$hz:-} $r99\""
		eval "cslow$hz=\"\${cslow$hz:-} $(awk -v c=$coop_t -v b=$base 'BEGIN { printf "%.4f", c / b }')\""
		eval "nslow$hz=\"\${nslow$hz:-} $(awk -v n=$nocoop_t -v b=$base 'BEGIN { printf "%.4f", n / b }')\""
		if [ $hz = 999 ]; then
			cost="${cost:-} $(awk -v c=$coop_t -v n=$nocoop_t -v a=$((coop_a - nocoop_a)) \
				'BEGIN { if (a > 0) printf "%.1f", (c - n) / 1000 / a }')"
			rate="${rate:-} $(awk -v c=$coop_t -v a=$((coop_a - nocoop_a)) 'BEGIN { printf "%.0f", a / (c / 1e9) }')"
		fi
	done
	bases="${bases:-} $base"
	echo "$line"
	i=$((i + 1))
done
grep '^coop_' /sys/kernel/debug/ustack/stats | tr '\n' ' '; echo
sum() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" /tmp/$2.txt | awk '{ n += $1 } END { print n + 0 }'; }
echo "bench coop_python_base_ms $(echo "$bases" | median | awk '{ printf "%.1f", $1 / 1e6 }') ms"
for hz in 99 999; do
	eval "echo \"bench coop_slowdown_${hz}hz \$(echo \$cslow$hz | median) x\""
	eval "echo \"bench nocoop_slowdown_${hz}hz \$(echo \$nslow$hz | median) x\""
	eval "echo \"bench coop_vs_nocoop_${hz}hz \$(echo \$ratio$hz | median) x\""
	eval "echo \"coop / nocoop at $hz Hz, each round:\$ratio$hz\""
done
echo "bench coop_cost_per_answer $(echo $cost | median) us"
echo "bench coop_answers_per_s_999hz $(echo $rate | median) 1/s"
n=$(sum interps s999_coop)
[ "$n" -gt 0 ] || fail "no interp records"
echo "bench coop_handler_share_999hz $(awk -v s="$(sum comm_in_signal s999_coop)" -v u="$(sum comm_users s999_coop)" 'BEGIN { printf "%.2f", u ? 100 * s / u : 0 }') percent"
echo "bench coop_handler_share_99hz $(awk -v s="$(sum comm_in_signal s99_coop)" -v u="$(sum comm_users s99_coop)" 'BEGIN { printf "%.2f", u ? 100 * s / u : 0 }') percent"
sig=$(stat_of coop_signalled)
echo "bench coop_answered $(awk -v a="$(stat_of coop_answered)" -v e="$(stat_of coop_empty)" -v s="$sig" 'BEGIN { printf "%.2f", s ? 100 * (a + e) / s : 0 }') percent"
echo "bench coop_bytes_per_interp $(( $(sum interp_bytes s999_coop) / n )) bytes"
echo "bench coop_frames_per_interp $(awk -v f="$(sum interp_frames s999_coop)" -v n="$n" 'BEGIN { printf "%.1f", f / n }') frames"
# The floor under any answer by a signal on this machine (src/sig_floor.c:
# delivery, a handler's one system call, sigreturn), and what it alone
# adds to a process answering at 999 Hz: the share of coop_cost_per_answer
# no handler can take out.
set -- $(./bin/sig_floor 20000 | sed -n 's/.*floor_ns=\([0-9]*\).*/\1/p')
[ -n "${1:-}" ] || fail "sig_floor: no figure"
echo "bench coop_signal_floor $(awk -v f="$1" 'BEGIN { printf "%.1f", f / 1000 }') us"
echo "bench coop_signal_floor_999hz $(awk -v f="$1" 'BEGIN { printf "%.2f", f * 999 / 1e7 }') percent"
# The answer's cost in floors, measured in the same boot: what is left to
# take out of the answer itself, whatever this machine's signals cost
# (under TCG the floor alone is some 4% at 999 Hz).
echo "bench coop_answer_vs_floor $(awk -v c="$(echo $cost | median)" -v f="$1" 'BEGIN { printf "%.2f", f ? c * 1000 / f : 0 }') x"
# Side by side: a shim built before a change, placed at tests/vm/coop-a.so
# (not in git: the guest build copies the directory), measured in turns
# with the installed one at 999 Hz, R rounds, each build with a nocoop
# run of its own (a build's SFrame and walks may differ too): the cost
# of one answer and the handler's share, each build's median
# (coop_ab_*_a, coop_ab_*_b).
if [ -f coop-a.so ]; then
	i=0
	while [ $i -lt $R ]; do
		if [ $((i % 2)) = 0 ]; then order="a b"; else order="b a"; fi
		for v in $order; do
			shim=
			[ $v = b ] || shim=$PWD/coop-a.so
			set -- $(one s999_nocoop $shim)
			n=$1
			set -- $(one s999_coop $shim)
			eval "ab_$v=\"\${ab_$v:-} $(awk -v c=$1 -v n=$n -v a=${2:-0} 'BEGIN { if (a > 0) printf "%.1f", (c - n) / 1000 / a }')\""
		done
		echo "a/b round $i: a $(echo $ab_a | awk '{ print $NF }') us, b $(echo $ab_b | awk '{ print $NF }') us"
		i=$((i + 1))
	done
	echo "bench coop_ab_cost_per_answer_a $(echo $ab_a | median) us"
	echo "bench coop_ab_cost_per_answer_b $(echo $ab_b | median) us"
	echo "bench coop_ab_handler_share_a $(awk -v s="$(sum comm_in_signal s999_coop_a)" -v u="$(sum comm_users s999_coop_a)" 'BEGIN { printf "%.2f", u ? 100 * s / u : 0 }') percent"
	echo "bench coop_ab_handler_share_b $(awk -v s="$(sum comm_in_signal s999_coop)" -v u="$(sum comm_users s999_coop)" 'BEGIN { printf "%.2f", u ? 100 * s / u : 0 }') percent"
fi
# stage_run [SHIM]: the stage times of one 999 Hz coop run into /tmp/times.txt
stage_run() {
	param_set sample_hz 999
	param_set stage_times 1
	./bin/ustack_read dump /tmp/u.bin python >/dev/null &
	r=$!
	sleep 0.3
	env ${1:+USTACK_SHIM=$1} USTACK_COOP_TIMES=1 sframe-register run python3.11 bench_coop.py coop $N 2>&1 >/dev/null |
		grep '^coop-times ' >/tmp/times.txt
	kill -TERM $r; wait $r
	param_set stage_times 0
	param_set sample_hz 0
	echo "stage times${1:+ of $1}: $(cat /tmp/times.txt)"
}
if [ -f coop-a.so ]; then
	stage_run "$PWD/coop-a.so"
	awk '{
		for (i = 2; i <= NF; i++) { split($i, kv, "="); t[kv[1]] = kv[2] }
		split("handler unwind send", s, " ")
		for (i = 1; i in s; i++)
			if (t["answers"])
				printf "bench coop_ab_stage_%s_a %.1f us\n", s[i], t[s[i] "_ns"] / 1000 / t["answers"]
	}' /tmp/times.txt
fi
stage_run
echo "module: $(grep '^stage_coop_' /sys/kernel/debug/ustack/stats | tr ' ' = | tr '\n' ' ')"
awk -v cost="$(echo $cost | median)" -v req="$(stat_of stage_coop_request_ns)/$(stat_of stage_coop_request_n)" \
	-v ans="$(stat_of stage_coop_answer_ns)/$(stat_of stage_coop_answer_n)" '{
	for (i = 2; i <= NF; i++) { split($i, kv, "="); t[kv[1]] = kv[2] }
	n = t["answers"]
	if (!n) exit 1
	stamps = t["stamps"] * t["stamp_ps"] / 1e6 / n
	split("handler unwind cache names lines add read send", s, " ")
	for (i = 1; i in s; i++)
		printf "bench coop_stage_%s %.1f us\n", s[i], t[s[i] "_ns"] / 1000 / n
	split(req, q, "/"); split(ans, a, "/")
	if (q[2] > 0) printf "bench coop_stage_kernel_request %.1f us\n", q[1] / 1000 / q[2]
	if (a[2] > 0) printf "bench coop_stage_kernel_answer %.1f us\n", a[1] / 1000 / a[2]
	printf "bench coop_stage_outside %.1f us\n", cost - (t["handler_ns"] / 1000 / n - stamps)
	printf "bench coop_stage_stamps %.1f us\n", stamps
	printf "bench coop_stage_reads_per_answer %.1f reads\n", t["reads"] / n
	printf "bench coop_cache_hits %.1f percent\n", 100 * t["hits"] / (t["hits"] + t["misses"] + !(t["hits"] + t["misses"]))
}' /tmp/times.txt || fail "no stage times: $(cat /tmp/times.txt)"
ustack_unload
