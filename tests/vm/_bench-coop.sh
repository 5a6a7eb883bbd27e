# Benchmark (make bench): cooperative unwinding's cost.  python3.11 under
# the shim runs bench_coop.py (recursion, a callback through sorted()),
# timed inside, with no sampling, and at 99 and 999 Hz with and without
# cooperative frames ("nocoop": the same process with the signal blocked,
# so only cooperative unwinding's cost differs).  Results: the slowdowns
# against no sampling and their ratio (coop / nocoop) at each rate; the
# cost of one answered request at 999 Hz (the time coop adds, over its
# interp records); the bytes and frames of one binary interp record.
# The handler's share: of the samples of the python process at 999 Hz
# with coop, those whose user stack runs through a signal frame (taken
# while the shim's handler answered).  The answered share: of the
# requests the kernel raised in the whole run, those answered (with
# frames, or with none).
# BENCH_ROUNDS (default 3) rounds over all configurations, the best run
# of each (TCG on a shared host is noisy).
# python: yes
# timeout: 1800
. ./lib.sh
# 160 rounds of the workload: some 3 s under TCG, so that the
# interpreter's start-up does not make the figures.
N=${BENCH_WORK:-160}
R=${BENCH_ROUNDS:-3}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a / b }'; }
ms() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1e6 }'; }
one() {	# one CONFIG: elapsed_ns of one timed run
	case $1 in
	base) sframe-register run python3.11 bench_coop.py coop $N ;;
	*)
		hz=${1#s}; hz=${hz%_*}
		param_set sample_hz $hz
		./bin/ustack_read dump /tmp/u.bin python >>/tmp/$1.txt &
		r=$!
		sleep 0.3
		sframe-register run python3.11 bench_coop.py ${1#*_} $N
		kill -TERM $r; wait $r
		param_set sample_hz 0 ;;
	esac 2>&1 >/dev/null | sed -n 's/^elapsed_ns=//p'
}
ustack_load sample_hz=0 buffer_kb=65536
configs="base s99_nocoop s99_coop s999_nocoop s999_coop"
rm -f /tmp/s*_*.txt
one base >/dev/null
i=0
while [ $i -lt $R ]; do
	for c in $configs; do
		e=$(one $c)
		[ -n "$e" ] || fail "$c: no elapsed_ns"
		echo "run $i $c $(ms $e) ms"
		eval "b=\${best_$c:-}"
		[ -z "$b" ] || [ "$e" -lt "$b" ] && eval "best_$c=$e"
	done
	i=$((i + 1))
done
grep '^coop_' /sys/kernel/debug/ustack/stats | tr '\n' ' '; echo
sum() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" /tmp/$2.txt | awk '{ n += $1 } END { print n + 0 }'; }
echo "bench coop_python_base_ms $(ms $best_base) ms"
for hz in 99 999; do
	eval "c=\$best_s${hz}_coop n=\$best_s${hz}_nocoop"
	echo "bench coop_slowdown_${hz}hz $(ratio $c $best_base) x"
	echo "bench nocoop_slowdown_${hz}hz $(ratio $n $best_base) x"
	echo "bench coop_vs_nocoop_${hz}hz $(ratio $c $n) x"
done
# nocoop blocks the signal once Python runs its script: the interpreter's
# start-up still answers; only the answers coop adds are counted.
nn=$(sum interps s999_nocoop)
ni=$(( $(sum interps s999_coop) - nn ))
echo "interp records at 999 Hz: $((ni + nn)) coop, $nn nocoop (start-up)"
[ "$ni" -gt 0 ] || fail "no more interp records with coop than without"
# Answers per run, from R runs; the time they added in the best runs.
awk -v c="$best_s999_coop" -v n="$best_s999_nocoop" -v a="$ni" -v r="$R" \
	'BEGIN { printf "bench coop_cost_per_answer %.1f us\n", (c - n) / 1000 / (a / r) }'
echo "bench coop_answers_per_s_999hz $(awk -v a="$ni" -v r="$R" -v c="$best_s999_coop" 'BEGIN { printf "%.0f", a / r / (c / 1e9) }') 1/s"
echo "bench coop_bytes_per_interp $(( $(sum interp_bytes s999_coop) / (ni + nn) )) bytes"
echo "bench coop_handler_share_999hz $(awk -v s="$(sum comm_in_signal s999_coop)" -v u="$(sum comm_users s999_coop)" 'BEGIN { printf "%.2f", u ? 100 * s / u : 0 }') percent"
sig=$(stat_of coop_signalled)
echo "bench coop_answered $(awk -v a="$(stat_of coop_answered)" -v e="$(stat_of coop_empty)" -v s="$sig" 'BEGIN { printf "%.2f", s ? 100 * (a + e) / s : 0 }') percent"
echo "bench coop_frames_per_interp $(awk -v f="$(sum interp_frames s999_coop)" -v n="$((ni + nn))" 'BEGIN { printf "%.1f", f / n }') frames"
ustack_unload
