#!/usr/bin/env bash
# make check: install what is missing, build, run every host test area
# (tests/<area>/run.sh) and the VM tests on every kernel of the matrix, and
# end with "N passed, N failed".
#   AREAS="sframe report"   host areas to run (default: all; "none" for none)
#   KERNELS="6.1 6.12"      kernels (default: kernels.conf, plus debug)
#   TESTS="load modinfo"    VM tests (default: all of tests/vm)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
mkdir -p build/logs
log=build/logs/check.log
: >"$log"

bash scripts/deps.sh || { echo "deps failed"; echo "0 passed, 1 failed"; exit 1; }
. scripts/kernels.conf

results=$(mktemp)
trap 'rm -f "$results"' EXIT
run() {	# run LABEL CMD...: stream a step's lines, keep its PASS/FAIL lines
	local t0=$SECONDS
	echo "== $1" | tee -a "$log"
	shift
	"$@" 2>&1 | tee -a "$log" | grep --line-buffered -E '^(PASS|FAIL): ' | tee -a "$results"
	local dt=$((SECONDS - t0))
	echo "   took ${dt} s" | tee -a "$log"
}

if ! make -s tools >>"$log" 2>&1; then
	echo "FAIL: build/tools: make tools failed (see $log)" | tee -a "$results"
else
	echo "PASS: build/tools" | tee -a "$results"
fi

default_areas=$(ls tests/*/run.sh 2>/dev/null | cut -d/ -f2 | paste -sd' ')
for area in ${AREAS:-$default_areas}; do
	[ "$area" = none ] && continue
	run "host: $area" bash "tests/$area/run.sh"
done

default_kernels="${KERNEL_NAMES[*]}"
[ -x scripts/debug-kernel.sh ] && default_kernels="$default_kernels debug"
for k in ${KERNELS:-$default_kernels}; do
	[ "$k" = none ] && continue
	# shellcheck disable=SC2086
	USTACK_LOG_SUFFIX= run "vm: $k" bash scripts/vm-test.sh "$k" ${TESTS:-}
done

passed=$(grep -c '^PASS: ' "$results")
failed=$(grep -c '^FAIL: ' "$results")
if [ "$failed" -gt 0 ]; then
	echo "Failures:"
	grep '^FAIL: ' "$results" | sed 's/^/  /'
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
