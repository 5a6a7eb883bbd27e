# Benchmark (make bench): slowdown of a CPU-bound workload sampled at 99 and
# 999 Hz against no sampling, and bytes per sample, side by side with
# Debian's perf record --call-graph dwarf and fp on the same workload, and
# perf record without a call graph: the cost of the sampling interrupt
# itself under TCG, the floor of every sampled run.  Each slowdown is
# against a baseline run the same way: ustack's runs are under
# `sframe-register run`, so is their baseline (workload_base_shim_ms);
# perf's runs are plain, so is theirs (workload_base_ms).  elapsed_ns is
# timed inside the program around the work loop only.  Under TCG on a
# loaded host the run-to-run noise is large: BENCH_ROUNDS (default 5)
# rounds over all configurations, the best of each; the workload runs about 0.85 s.
# With a second module at /opt/ustack/ustack-b.ko (stream.sh BENCH_B=REV:
# the module of another revision), its runs (b_ustack99, b_ustack999,
# b_ustack999_x100) are in every round too, each module loaded in turn: a
# change's cost before and after, in one boot; its results are the lines
# named ustack_b_*.
# Two more ustack runs at 999 Hz take their SFrame from the kernel's store
# instead of the shim (as ustackd gives it on a real system: entries for
# the workload, libc and ld.so, made here), the workload run plainly:
# alone (ustack999_store) and as 100 processes started at once, sharing
# the rule cache (ustack999_x100, `workload group`), next to perf --call-
# graph fp and dwarf on the same 100 (perf_fp_x100, perf_dwarf_x100) and
# their baseline (base_x100); the same two at 99 Hz (ustack99_store,
# ustack99_x100).
# Each ustack run also gives the share of the workload's user stacks that
# are complete (outermost): the cost is not bought with completeness.
# timeout: 1800
. ./lib.sh
N=${BENCH_WORK:-2400}
G=$((N / 40))	# each of the 100: the group's work is 2.5 N
R=${BENCH_ROUNDS:-5}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a / b }'; }
ms() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1e6 }'; }
KO_B=/opt/ustack/ustack-b.ko
loaded=
use_module() {	# use_module CONFIG: its module loaded (not in a subshell)
	case $1 in
	b_*) set -- b ;;
	ustack*) set -- a ;;
	*) return 0 ;;
	esac
	[ "$loaded" = "$1" ] && return 0
	if [ "$1" = a ]; then
		ustack_load sample_hz=0 buffer_kb=65536
		store_fill
	else
		ustack_unload
		insmod $KO_B sample_hz=0 buffer_kb=65536 || fail "insmod $KO_B"
		store_fill
	fi
	loaded=$1
}
# The store's entries for what the plain workload maps (ustackd's, made
# here), the shim's runs unaffected: a registration comes first.
store_fill() {
	local o
	mkdir -p /tmp/store
	for o in $(realpath ./bin/workload /lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2); do
		[ -f /tmp/store/${o##*/}.elf ] ||
			sframe-register gen $o -o /tmp/store/${o##*/}.elf --version 3 >/dev/null || fail "gen $o"
		bin/sframe_store add $o /tmp/store/${o##*/}.elf || fail "store add $o"
	done
}
one() {	# one CONFIG: elapsed_ns of one timed run of the workload
	local hz
	case $1 in
	base) ./bin/workload work $N ;;
	base_shim) sframe-register run ./bin/workload work $N ;;
	base_x100) ./bin/workload group $G 100 ;;
	ustack* | b_ustack*)
		hz=${1#*ustack}
		param_set sample_hz ${hz%_*}
		./bin/ustack_read dump /tmp/u.bin workload >>/tmp/$1.txt &
		r=$!
		sleep 0.3
		case $1 in
		*_store) ./bin/workload work $N ;;
		*_x100) ./bin/workload group $G 100 ;;
		*) sframe-register run ./bin/workload work $N ;;
		esac
		kill -TERM $r; wait $r
		param_set sample_hz 0 ;;
	perf_*_x100) set -- ${1%_x100}
		perf record -q -F 999 -e cpu-clock --call-graph ${1#perf_} \
			-o /tmp/p.${1#perf_}_x100 ./bin/workload group $G 100 ;;
	perf_nocg) perf record -q -F 999 -e cpu-clock -o /tmp/p.nocg ./bin/workload work $N ;;
	perf_*) perf record -q -F 999 -e cpu-clock --call-graph ${1#perf_} -o /tmp/p.${1#perf_} \
		./bin/workload work $N ;;
	esac 2>&1 >/dev/null | sed -n 's/^elapsed_ns=//p'
}
use_module ustack
configs="base base_shim ustack99 ustack999 ustack99_store ustack999_store base_x100 ustack99_x100 ustack999_x100"
[ -f $KO_B ] && configs="$configs b_ustack99 b_ustack999 b_ustack999_x100"
command -v perf >/dev/null && configs="$configs perf_nocg perf_dwarf perf_fp perf_fp_x100 perf_dwarf_x100"
rm -f /tmp/ustack*.txt /tmp/b_ustack*.txt
# A warm-up run (TCG translates the code once), then R rounds over every
# configuration in turn, the best run of each (best_rounds).
one base >/dev/null
# shellcheck disable=SC2086	# the configurations hold no spaces
best_rounds $R use_module $configs
echo "bench workload_base_ms $(ms $best_base) ms"
echo "bench workload_base_shim_ms $(ms $best_base_shim) ms"
for c in ustack b_ustack; do
	[ "$c" = ustack ] || [ -f $KO_B ] || continue
	name=$(echo $c | sed 's/^b_ustack$/ustack_b/')
	for hz in 99 999; do
		eval "t=\$best_$c$hz"
		s=$(sed -n 's/.*samples=\([0-9]*\).*/\1/p' /tmp/$c$hz.txt | awk '{ n += $1 } END { print n + 0 }')
		b=$(sed -n 's/.*bytes=\([0-9]*\).*/\1/p' /tmp/$c$hz.txt | awk '{ n += $1 } END { print n + 0 }')
		echo "bench ${name}_slowdown_${hz}hz $(ratio $t $best_base_shim) x"
		[ "${s:-0}" -gt 0 ] && echo "bench ${name}_bytes_per_sample_${hz}hz $((b / s)) bytes"
	done
done
# The store as every object's source, alone and as 100 processes.
sum() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" "$2" | awk '{ n += $1 } END { print n + 0 }'; }
for hz in 99 999; do
	eval "echo \"bench ustack_store_slowdown_${hz}hz \$(ratio \$best_ustack${hz}_store $best_base) x\""
	eval "echo \"bench ustack_x100_slowdown_${hz}hz \$(ratio \$best_ustack${hz}_x100 $best_base_x100) x\""
done
[ -f $KO_B ] && echo "bench ustack_b_x100_slowdown_999hz $(ratio $best_b_ustack999_x100 $best_base_x100) x"
for c in ustack999 ustack999_store ustack999_x100; do
	name=ustack${c#ustack999}
	awk -v k="$(sum comm_complete /tmp/$c.txt)" -v u="$(sum comm_users /tmp/$c.txt)" -v n="$name" \
		'BEGIN { printf "bench %s_complete_999hz %.2f percent\n", n, u ? 100 * k / u : 0 }'
done
if command -v perf >/dev/null; then
	for cg in nocg dwarf fp; do
		eval "t=\$best_perf_$cg"
		s=$(perf report -i /tmp/p.$cg --stats 2>/dev/null | sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' | head -n1)
		b=$(stat -c %s /tmp/p.$cg)
		echo "bench perf_${cg}_slowdown_999hz $(ratio $t $best_base) x"
		[ "${s:-0}" -gt 0 ] && echo "bench perf_${cg}_bytes_per_sample_999hz $((b / s)) bytes"
	done
	echo "bench perf_fp_x100_slowdown_999hz $(ratio $best_perf_fp_x100 $best_base_x100) x"
	echo "bench perf_dwarf_x100_slowdown_999hz $(ratio $best_perf_dwarf_x100 $best_base_x100) x"
	# ustack's added time over perf fp's (issue 28's goal: at most 1.5)
	added() { awk -v u="$1" -v ub="$2" -v p="$3" -v pb="$4" 'BEGIN { d = p / pb - 1
		if (d > 0.0005) printf "%.2f", (u / ub - 1) / d; else printf "inf" }'; }
	echo "bench ustack_added_vs_perf_fp_999hz $(added $best_ustack999 $best_base_shim $best_perf_fp $best_base) ratio"
	echo "bench ustack_store_added_vs_perf_fp_999hz $(added $best_ustack999_store $best_base $best_perf_fp $best_base) ratio"
	echo "bench ustack_x100_added_vs_perf_fp_999hz $(added $best_ustack999_x100 $best_base_x100 $best_perf_fp_x100 $best_base_x100) ratio"
fi
# Where a sample's time goes: one more run at 999 Hz with the stages
# timed (stage_times=1, kept out of the runs above), ns per stage each
# time it ran (stats: stage_NAME_ns / stage_NAME_n, the run's own share
# of the sums), and how many times; and the sections the walks looked up
# (in the registry, the files' PT_GNU_SFRAME and the store) per walk:
# the rule cache's misses that left a text range.
stages() {	# stages CONFIG PREFIX: the stage lines of one timed run
	use_module $1
	cp /sys/kernel/debug/ustack/stats /tmp/stats.before
	param_set stage_times 1
	one $1 >/dev/null
	param_set stage_times 0
	awk -v p="$2" 'FNR == NR { v0[$1] = $2; next }
		{ v[$1] = $2 - v0[$1] }
		END {
			split("request deferral walk record ring", st, " ")
			for (i = 1; i <= 5; i++) {
				n = v["stage_" st[i] "_n"]
				if (n > 0)
					printf "bench %sstage_%s_ns %.0f ns\n", p, st[i], v["stage_" st[i] "_ns"] / n
				printf "bench %sstage_%s_count %d times\n", p, st[i], n
			}
			n = v["stage_walk_n"]
			f = v["sections_registered"] + v["sections_elf"] + v["store_hits"]
			if (n > 0)
				printf "bench %ssections_per_walk %.2f sections\n", p, f / n
		}' /tmp/stats.before /sys/kernel/debug/ustack/stats
}
stages ustack999 ""
stages ustack999_x100 x100_
[ -f $KO_B ] && stages b_ustack999 ustack_b_
ustack_unload
