# Benchmark (make bench): what perf's deferred callchains cost, the
# kernel's own unwinder next to ustack's walk in its place.  sid's perf
# records the workload (bin/workload, -O2, no frame pointers) at 999 Hz:
#   perf_fp               --call-graph fp: the kernel's frame-pointer walk
#                         in the sampling interrupt
#   perf_defer_kernel     --call-graph fp,defer with kernel_unwinder=0: the
#                         kernel's deferred frame-pointer walk at the
#                         return to user space
#   perf_defer_ustack     the same with kernel_unwinder=1: ustack's SFrame
#                         walk answers unwind_user() (the store's entries
#                         for the workload, libc and ld.so, as ustackd's)
# each against the workload run plainly (workload_base_ms), the best of
# BENCH_ROUNDS rounds (default 3), every configuration once a round; then
# ustack's added time over the kernel's deferred walk
# (perf_defer_ustack_vs_kernel: 1 costs what the kernel's own does), and
# the share of each one's callchains reaching main and _start, the ticks
# inside a deferred walk itself counted apart (perf-defer.sh).
# kernels: sid
# perf: sid
# timeout: 1800
. ./lib.sh
PERF=perf-sid
command -v $PERF >/dev/null || fail "no perf of sid in the guest"
N=${BENCH_WORK:-2400}
R=${BENCH_ROUNDS:-3}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a / b }'; }
ms() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1e6 }'; }
ustack_load sample_hz=0
mkdir -p /tmp/store
for o in $(realpath ./bin/workload /lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2); do
	sframe-register gen $o -o /tmp/store/${o##*/}.elf --version 3 >/dev/null || fail "gen $o"
	bin/sframe_store add $o /tmp/store/${o##*/}.elf || fail "store add $o"
done
KU=/sys/module/ustack/parameters/kernel_unwinder
one() {	# one CONFIG: elapsed_ns of one timed run of the workload
	case $1 in
	base) ./bin/workload work $N ;;
	perf_fp) $PERF record -q -N -F 999 -e cpu-clock --call-graph fp \
		-o /tmp/$1.data ./bin/workload work $N ;;
	perf_defer_*)
		[ $1 = perf_defer_ustack ] && echo 1 >$KU
		$PERF record -q -N -F 999 -e cpu-clock --call-graph fp,defer \
			-o /tmp/$1.data ./bin/workload work $N
		echo 0 >$KU ;;
	esac 2>&1 >/dev/null | sed -n 's/^elapsed_ns=//p'
}
configs="base perf_fp perf_defer_kernel perf_defer_ustack"
one base >/dev/null	# TCG translates the code once
# shellcheck disable=SC2086	# the configurations hold no spaces
best_rounds $R : $configs
echo "bench workload_base_ms $(ms $best_base) ms"
for c in perf_fp perf_defer_kernel perf_defer_ustack; do
	eval "t=\$best_$c"
	echo "bench ${c}_slowdown_999hz $(ratio $t $best_base) x"
	set -- $(perf_share $PERF /tmp/$c.data workload)
	[ "$3" -gt 0 ] || fail "$c: no samples of the workload"
	awk -v k="$1" -v o="$2" -v n="$3" -v c="$c" 'BEGIN {
		printf "bench %s_complete %.2f percent\n", c, 100 * k / n
		printf "bench %s_in_walk %.2f percent\n", c, 100 * o / n }'
done
awk -v u="$best_perf_defer_ustack" -v k="$best_perf_defer_kernel" -v b="$best_base" 'BEGIN {
	d = k / b - 1
	if (d > 0.0005) printf "bench perf_defer_ustack_vs_kernel %.2f ratio\n", (u / b - 1) / d
	else print "bench perf_defer_ustack_vs_kernel inf ratio" }'
ustack_unload
