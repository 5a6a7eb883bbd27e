# Benchmark (make bench): slowdown of a CPU-bound workload sampled at 99 and
# 999 Hz against no sampling, and bytes per sample, side by side with
# Debian's perf record --call-graph dwarf and fp on the same workload.
. ./lib.sh
N=${BENCH_WORK:-800}
best() {	# best of 3 elapsed_ns of CMD...
	b=
	for i in 1 2 3; do
		e=$("$@" 2>&1 >/dev/null | sed -n 's/^elapsed_ns=//p')
		[ -z "$b" ] || [ "$e" -lt "$b" ] && b=$e
	done
	echo "$b"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a / b }'; }
ustack_load sample_hz=0 buffer_kb=65536
base=$(best ./bin/workload work $N)
echo "bench workload_base_ms $(awk -v n=$base 'BEGIN { printf "%.1f", n / 1e6 }') ms"
for hz in 99 999; do
	param_set sample_hz $hz
	./bin/ustack_read dump /tmp/u$hz.bin >/tmp/u$hz.txt &
	r=$!
	sleep 0.3
	t=$(best sframe-register run ./bin/workload work $N)
	kill -TERM $r; wait $r
	s=$(sed -n 's/.*samples=\([0-9]*\).*/\1/p' /tmp/u$hz.txt)
	b=$(sed -n 's/.*bytes=\([0-9]*\).*/\1/p' /tmp/u$hz.txt)
	echo "bench ustack_slowdown_${hz}hz $(ratio $t $base) x"
	[ "${s:-0}" -gt 0 ] && echo "bench ustack_bytes_per_sample_${hz}hz $((b / s)) bytes"
	param_set sample_hz 0
done
if command -v perf >/dev/null; then
	for cg in dwarf fp; do
		t=$(best perf record -q -F 999 -e cpu-clock --call-graph $cg -o /tmp/p.$cg ./bin/workload work $N)
		s=$(perf report -i /tmp/p.$cg --stats 2>/dev/null | sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' | head -n1)
		b=$(stat -c %s /tmp/p.$cg)
		echo "bench perf_${cg}_slowdown_999hz $(ratio $t $base) x"
		[ "${s:-0}" -gt 0 ] && echo "bench perf_${cg}_bytes_per_sample_999hz $((b / s)) bytes"
	done
fi
ustack_unload
