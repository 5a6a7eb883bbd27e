#!/usr/bin/env bash
# make check: install what is missing, build, run every host test area
# (tests/<area>/run.sh) and the VM tests on every kernel of the matrix, and
# end with "N passed, N failed" (", N skipped" when a test was skipped:
# tests/select.sh says what a skip is; it never counts as a pass, and only
# failures fail the run).
#   AREAS="sframe report"   host areas to run (default: all; "none" for none)
#   KERNELS="6.1 6.12"      kernels (default: kernels.conf, plus debug)
#   TESTS="vm/load report/join-*"  tests by name (default: all); AREA/NAME:
#                           test NAME of host area AREA (tests/select.sh),
#                           vm/NAME a VM test; a bare NAME goes to every
#                           area and kernel that runs (as before, the VM
#                           tests: add AREAS=none, or KERNELS=none for host
#                           names).  An area that TESTS names no test of is
#                           not run.
#   SYSTEMS="bookworm trixie"  whole Debian systems (tests/system/, default:
#                           check_systems below; "none" for none): one boot
#                           each, the packages installed as a user would
#   SYSTEM_TESTS="user"     the tests of that boot (make check-system: every
#                           variant, in a second boot of each system)
#   USTACK_CHECK_BUDGET=4200 seconds after which no further kernel is started
#   USTACK_CHECK_LANES=1    one step at a time (default: two lanes, below)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
mkdir -p build/logs
log=build/logs/check.log
: >"$log"

bash scripts/deps.sh check || { echo "deps failed"; echo "0 passed, 1 failed"; exit 1; }
. scripts/kernels.conf

results=$(mktemp)
trap 'rm -f "$results"' EXIT
run() {	# run LABEL CMD...: stream a step's lines, keep its results
	local t0=$SECONDS
	echo "== $1" | tee -a "$log"
	shift
	# (STALL and RETRY lines, and a failed boot's last console lines, are
	# shown too; only PASS, FAIL and SKIP lines count)
	"$@" 2>&1 | tee -a "$log" | grep --line-buffered -E '^(PASS|FAIL|SKIP|STALL|RETRY): |^    \| ' |
		tee -a "$results"
	local dt=$((SECONDS - t0))
	echo "   took ${dt} s" | tee -a "$log"
}

if ! make -s tools >>"$log" 2>&1; then
	echo "FAIL: build/tools: make tools failed (see $log)" | tee -a "$results"
else
	echo "PASS: build/tools" | tee -a "$results"
fi

# tests_of AREA: the names TESTS gives AREA ("vm" for the VM tests); fails
# when TESTS names tests but none of AREA.
tests_of() {
	local t n=0
	set -f	# names are patterns for the area, not for this shell
	for t in ${TESTS:-}; do
		case $t in
		"$1"/*) echo "${t#*/}" ;;
		*/*) continue ;;
		*) echo "$t" ;;
		esac
		n=$((n + 1))
	done
	set +f
	[ -z "${TESTS:-}" ] || [ $n -gt 0 ]
}

# The whole matrix: tests/kbuild leaves the VM lanes' kernels to them.
kbuild_not_vm=
[ -n "${KERNELS+x}" ] || kbuild_not_vm=1
# An area whose run.sh has a line "# check: full" (a long one that tests
# the harness rather than ustack) runs in make check-full alone.
default_areas=$(for r in tests/*/run.sh; do
	[ "${USTACK_VM_ALL:-0}" = 1 ] || ! grep -qx '# check: full' "$r" || continue
	echo "$r"
done | cut -d/ -f2 | paste -sd' ')
host_areas() {
	local area names
	for area in ${AREAS:-$default_areas}; do
		[ "$area" = none ] && continue
		names=$(tests_of "$area") || continue
		if [ -n "$names" ]; then mapfile -t names <<<"$names"; else names=(); fi
		USTACK_KBUILD_NOT_VM=$kbuild_not_vm run "host: $area" bash "tests/$area/run.sh" ${names[@]+"${names[@]}"}
	done
}
vm_tests=$(tests_of vm) || KERNELS=none

# A kernel is started only within the time budget (CI stops at 90 min; a
# cold run took 71 at ddc54a6 on this project's 2-core machine, some 67
# since): past it, it is a failure that says so, not a run cut off
# without a count.
budget=${USTACK_CHECK_BUDGET:-4200}
vm_kernels() {	# vm_kernels KERNEL...: one after another
	local k
	for k in "$@"; do
		[ "$k" = none ] && continue
		if [ $SECONDS -gt "$budget" ]; then
			echo "FAIL: vm/$k: not run: make check has used its ${budget} s budget (USTACK_CHECK_BUDGET)" |
				tee -a "$log" "$results"
			continue
		fi
		# shellcheck disable=SC2086
		USTACK_LOG_SUFFIX= run "vm: $k" bash scripts/vm-test.sh "$k" $vm_tests
	done
}

# The whole-system images (scripts/system-image.sh: downloads and
# mmdebstrap) are made at once, in the background, while the host areas
# and kernels run; their tests wait for them (the image's lock).
# The releases whose whole-system test (`user`, one boot each) make check
# runs.  None yet: to put one in, name its release here (bookworm, trixie);
# make check-system runs every release and every variant regardless.
check_systems=()
systems=(${SYSTEMS:-${check_systems[*]:-none}})
[ "${systems[0]}" != none ] || systems=()
set -f
system_names=()
for t in ${TESTS:-}; do
	case $t in system/*) system_names+=("${t#system/}") ;; esac
done
set +f
[ -z "${TESTS:-}" ] || [ ${#system_names[@]} -gt 0 ] || systems=()
for r in ${systems[@]+"${systems[@]}"}; do
	nice -n 10 bash scripts/system-image.sh "$r" >"build/logs/system-image-$r.log" 2>&1
done &
images=$!
system_tests() {	# system_tests RELEASE...: one boot each (two for check-system)
	local r
	for r in "$@"; do
		if [ $SECONDS -gt "$budget" ]; then
			echo "FAIL: system/$r: not run: make check has used its ${budget} s budget (USTACK_CHECK_BUDGET)" |
				tee -a "$log" "$results"
		elif [ ${#system_names[@]} -gt 0 ]; then
			USTACK_LOG_SUFFIX= run "system: $r" bash scripts/system-test.sh "$r" "${system_names[@]}"
		elif [ "${SYSTEM_TESTS:-user}" = all ]; then
			USTACK_LOG_SUFFIX= run "system: $r" bash scripts/system-test.sh "$r" user
			USTACK_LOG_SUFFIX=.variants run "system: $r, the variants" \
				bash scripts/system-test.sh "$r" container fullvar reboot upgrade rootro
		else
			# shellcheck disable=SC2086
			USTACK_LOG_SUFFIX= run "system: $r" bash scripts/system-test.sh "$r" ${SYSTEM_TESTS:-user}
		fi
	done
}

default_kernels="${KERNEL_NAMES[*]}"
[ -x scripts/debug-kernel.sh ] && default_kernels="debug $default_kernels"
kernels=(${KERNELS:-$default_kernels})
# Two lanes: a guest under TCG keeps about one of the two cores busy (a
# whole 6.12 run: 105% of a CPU), so one lane starts the kernels at once
# while the other runs the host areas first (compilers, fuzzers: both
# cores when they can, at nice 10, so that the guest beside them, whose
# tests time what they run, keeps its core).  Each lane then takes the next
# kernel of one queue, the longest (debug) first: whichever lane is free
# takes it, and a retried boot on one delays no kernel waiting behind it.
# USTACK_CHECK_LANES=1: one lane.
queue=$(mktemp)
trap 'rm -f "$results" "$queue" "$queue.lock"' EXIT
printf '%s\n' "${kernels[@]}" >"$queue"
next_kernel() {	# next_kernel: pop the queue's first kernel (none: fail)
	(
		flock 9
		k=$(head -n1 "$queue")
		[ -n "$k" ] || exit 1
		sed -i 1d "$queue"
		echo "$k"
	) 9>"$queue.lock"
}
kernel_lane() {	# kernel_lane: run kernels from the queue until it is empty
	local k
	while k=$(next_kernel); do vm_kernels "$k"; done
}
if [ "${USTACK_CHECK_LANES:-2}" = 1 ]; then
	host_areas
	kernel_lane
	system_tests ${systems[@]+"${systems[@]}"}
else
	{
		(renice -n 10 -p $BASHPID >/dev/null 2>&1; host_areas)
		kernel_lane
		system_tests ${systems[@]+"${systems[@]}"}
	} &
	lane=$!
	kernel_lane
	wait "$lane"
fi
wait "$images" 2>/dev/null

passed=$(grep -c '^PASS: ' "$results")
failed=$(grep -c '^FAIL: ' "$results")
skipped=$(grep -c '^SKIP: ' "$results")
if [ "$skipped" -gt 0 ]; then
	echo "Skipped:"
	grep '^SKIP: ' "$results" | sed 's/^/  /'
fi
if [ "$failed" -gt 0 ]; then
	echo "Failures:"
	grep '^FAIL: ' "$results" | sed 's/^/  /'
fi
more=
[ "$skipped" = 0 ] || more=", $skipped skipped"
echo "$passed passed, $failed failed$more"
[ "$failed" -eq 0 ]
