# Profile (not a test): perf record -a -g in the guest while ustack samples
# the bench workload at 999 Hz.
# perf: yes
# timeout: 600
. ./lib.sh
N=${BENCH_WORK:-2400}
ustack_load sample_hz=0 buffer_kb=65536
sframe-register run ./bin/workload work $N
for mode in off on; do
	if [ $mode = on ]; then
		param_set sample_hz 999
		./bin/ustack_read dump /tmp/u.bin >/tmp/u.txt &
		r=$!
		sleep 0.3
	fi
	perf record -q -a -g -F 2999 -e cpu-clock -o /tmp/prof.$mode -- \
		sframe-register run ./bin/workload work $N 2>&1 | grep elapsed
	if [ $mode = on ]; then
		kill -TERM $r; wait $r; cat /tmp/u.txt
		param_set sample_hz 0
		cat /sys/kernel/debug/ustack/stats | tr '\n' ' '; echo
		ustack-report --summary /tmp/u.bin 2>&1 | head -60
	fi
	echo "==== $mode: by symbol, workload only"
	perf report -i /tmp/prof.$mode --kallsyms /proc/kallsyms --stdio --no-children -g none --comm workload --sort sym --percent-limit 0.1 2>&1 | grep -v '^#' | grep -v '^$' | head -80
	echo "==== $mode: children, workload only"
	perf report -i /tmp/prof.$mode --kallsyms /proc/kallsyms --stdio --children -g none --comm workload --sort sym --percent-limit 0.3 2>&1 | grep -v '^#' | grep -v '^$' | head -120
	echo "==== $mode: all comms"
	perf report -i /tmp/prof.$mode --stdio --no-children -g none --sort comm,dso --percent-limit 0.5 2>/dev/null | grep -v '^#' | grep -v '^$' | head -30
done
ustack_unload
