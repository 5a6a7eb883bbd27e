# Benchmark (make bench): what the registry's kprobes on unmap_vmas() and
# move_page_tables() cost every process while ustack is loaded, registered
# or not.  bin/bench_munmap times mmap+munmap of one untouched page and
# mmap+mremap onto a fixed page, ns per round, in four configurations:
#   unloaded          ustack not loaded
#   loaded            loaded, nothing registered
#   other_registered  loaded, another process registered (the registry is
#                     not empty: every unmapping looks its mm up)
#   self_registered   loaded, the timed process registered its own .sframe
#                     (the lookup finds it and checks the range)
# BENCH_ROUNDS (default 5) rounds over all four, interleaved, the best of
# each (TCG on a shared host is noisy); BENCH_ITERS (default 10000) rounds
# of each system call pattern per run.  Prints ns per round for each and
# the ratios to unloaded.
# timeout: 900
. ./lib.sh
N=${BENCH_ITERS:-10000}
R=${BENCH_ROUNDS:-5}
CONFS="unloaded loaded other_registered self_registered"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a / b }'; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }

run() {	# run CONF: "munmap NS" and "mremap NS" lines
	case $1 in
	unloaded) ustack_unload; bin/bench_munmap $N ;;
	loaded) bin/bench_munmap $N ;;
	self_registered) bin/bench_munmap $N reg ;;
	other_registered)
		# The holder stays registered until fd 3, its stdin, closes.
		rm -f /tmp/hold /tmp/hold.out; mkfifo /tmp/hold || fail mkfifo
		bin/bench_munmap hold </tmp/hold >/tmp/hold.out 2>&1 &
		exec 3>/tmp/hold
		i=0
		until grep -q ready /tmp/hold.out; do
			i=$((i + 1)); [ $i -lt 100 ] ||
				fail "holder: $(cat /tmp/hold.out)"
			sleep 0.1
		done
		bin/bench_munmap $N
		rc=$?
		exec 3>&-
		wait
		return $rc ;;
	esac
}

for r in $(seq "$R"); do
	for c in $CONFS; do
		[ "$c" = unloaded ] || [ -d /sys/module/ustack ] || ustack_load
		out=$(run $c) || fail "$c: $out"
		for op in munmap mremap; do
			v=$(echo "$out" | sed -n "s/^$op //p")
			[ -n "$v" ] || fail "$c: no $op time in: $out"
			eval "best_${op}_$c=\$(min $v \"\${best_${op}_$c}\")"
		done
		echo "round $r $c: $(echo $out)"
	done
done
ustack_unload
for op in munmap mremap; do
	for c in $CONFS; do
		eval "v=\$best_${op}_$c"
		echo "bench registry_${op}_ns_$c $v ns"
	done
	eval "base=\$best_${op}_unloaded"
	for c in loaded other_registered self_registered; do
		eval "v=\$best_${op}_$c"
		echo "bench registry_${op}_${c}_vs_unloaded $(ratio $v $base) x"
	done
done
