# Benchmark (make bench): the kernel's reading of CPython's frames
# (module/py_frames.c).  ustackd covers what the workloads map, as on a
# real system (a first run each, not timed).  Then, each round:
#   python3.11 bench_coop.py, run plainly (no shim, no opt-in), its CPU
#   time unsampled (base), at 999 Hz with the reader off (python=0) and
#   on: the reader's added time (kpython_added_999hz), its cost per
#   interp record, the records' bytes and frames;
#   the same under the shim, the reader off, with cooperative answers
#   and with the signal blocked (coop, nocoop): what the cooperative
#   answer adds (kpython_coop_added_999hz), and the cost of one answer
#   next to one record of the kernel's;
#   bin/workload (C, no CPython) at 999 Hz with the reader off and on,
#   while the store holds python3.11's layout: what every other process
#   pays (kpython_other_added_999hz), and the mapping lookups per walk.
# Figures are medians of the rounds' own ratios (BENCH_ROUNDS, default 5).
# python: yes
# timeout: 2400
. ./lib.sh
[ -x /usr/sbin/ustackd ] || fail "ustackd not built"
N=${BENCH_WORK:-160}
W=${BENCH_WORK_C:-2400}
R=${BENCH_ROUNDS:-5}
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a / b }'; }
# one CONFIG: "ns records" of one timed run (ns: the Python workload's CPU
# time, the C workload's elapsed time; records: the interp records)
one() {
	local cmd comm
	case $1 in
	py_*) cmd="python3.11 bench_coop.py coop $N" ;;
	coop) cmd="sframe-register run python3.11 bench_coop.py coop $N" ;;
	nocoop) cmd="sframe-register run python3.11 bench_coop.py nocoop $N" ;;
	c_*) cmd="./bin/workload work $W" ;;
	esac
	case $1 in
	*_on) param_set python 1 ;;
	*) param_set python 0 ;;
	esac
	if [ "$1" = py_base ]; then
		$cmd 2>&1 >/dev/null | sed -n 's/.* cpu_ns=\([0-9]*\).*/\1 0/p'
		return
	fi
	param_set sample_hz 999
	case $1 in
	c_*) comm=workload ;;
	*) comm=python ;;
	esac
	./bin/ustack_read dump /tmp/u.bin $comm >/tmp/one.txt &
	r=$!
	sleep 0.3
	# shellcheck disable=SC2086	# cmd is a command with its arguments
	t=$($cmd 2>&1 >/dev/null | sed -n 's/.* cpu_ns=\([0-9]*\).*/\1/p; s/^elapsed_ns=//p')
	kill -TERM $r; wait $r
	param_set sample_hz 0
	cat /tmp/one.txt >>/tmp/kb_$1.txt
	echo "$t $(sed -n 's/.* interps=\([0-9]*\).*/\1/p' /tmp/one.txt)"
}
rm -rf /var/cache/ustack /tmp/kb_*.txt
ustack_load sample_hz=0 buffer_kb=65536
ustackd_start /tmp/kb-ud.log
# first runs, not timed: ustackd covers python3.11, the workload, libc
for c in py_on c_on coop; do one $c >/dev/null; done
[ "$(stat_of store_python)" -ge 1 ] || fail "no store entry with a CPython: $(grep python /tmp/kb-ud.log | head -3)"
rm -f /tmp/kb_*.txt
configs="py_base py_off py_on coop nocoop c_off c_on"
i=0
while [ $i -lt $R ]; do
	line="round $i:"
	for c in $configs; do
		set -- $(one $c)
		[ -n "${1:-}" ] || fail "$c: no time"
		eval "t_$c=$1 n_$c=${2:-0}"
		line="$line $c $(($1 / 1000000)) ms"
	done
	echo "$line"
	added="${added:-} $(ratio $t_py_on $t_py_off)"
	slow_off="${slow_off:-} $(ratio $t_py_off $t_py_base)"
	slow_on="${slow_on:-} $(ratio $t_py_on $t_py_base)"
	per_rec="${per_rec:-} $(awk -v a=$t_py_on -v b=$t_py_off -v n=$n_py_on 'BEGIN { if (n > 0) printf "%.0f", (a - b) / n }')"
	coop_added="${coop_added:-} $(ratio $t_coop $t_nocoop)"
	per_ans="${per_ans:-} $(awk -v a=$t_coop -v b=$t_nocoop -v n=$((n_coop - n_nocoop)) 'BEGIN { if (n > 0) printf "%.0f", (a - b) / n }')"
	other="${other:-} $(ratio $t_c_on $t_c_off)"
	i=$((i + 1))
done
sum() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" /tmp/kb_$2.txt | awk '{ n += $1 } END { print n + 0 }'; }
n=$(sum interps py_on)
[ "$n" -gt 0 ] || fail "no interp records with the reader on"
[ "$(sum interps py_off)" = 0 ] || fail "interp records with the reader off"
echo "py_* stats: $(grep -E '^(py_|store_python|coop_signalled)' /sys/kernel/debug/ustack/stats | tr '\n' ' ')"
echo "bench kpython_slowdown_off_999hz $(echo $slow_off | median) x"
echo "bench kpython_slowdown_on_999hz $(echo $slow_on | median) x"
echo "bench kpython_added_999hz $(echo $added | median | awk '{ printf "%.2f", ($1 - 1) * 100 }') percent"
echo "bench kpython_ns_per_record $(echo $per_rec | median) ns"
echo "bench kpython_bytes_per_record $(( $(sum interp_bytes py_on) / n )) bytes"
echo "bench kpython_frames_per_record $(awk -v f="$(sum interp_frames py_on)" -v n="$n" 'BEGIN { printf "%.1f", f / n }') frames"
echo "bench kpython_records_per_sample $(awk -v n="$n" -v s="$(sum comm_users py_on)" 'BEGIN { printf "%.2f", s ? n / s : 0 }') x"
echo "bench kpython_coop_added_999hz $(echo $coop_added | median | awk '{ printf "%.2f", ($1 - 1) * 100 }') percent"
echo "bench kpython_coop_ns_per_answer $(echo $per_ans | median) ns"
echo "bench kpython_other_added_999hz $(echo $other | median | awk '{ printf "%.2f", ($1 - 1) * 100 }') percent"
kill $UD; wait $UD
ustack_unload
