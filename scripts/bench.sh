#!/usr/bin/env bash
# make bench: every benchmark, side by side in one run; each result is also
# printed as one line "bench <name> <value> <unit>".  The benchmarks are
# tests/bench/NAME.sh, their one place (tests/bench/README.md lists them;
# guest-side parts stay in tests/vm, which the guest build copies).
#   bash scripts/bench.sh [NAME...]     (or BENCHES="walk shim"; default all)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
all=$(cd tests/bench && ls ./*.sh | sed 's|^\./||; s/\.sh$//')
benches=${*:-${BENCHES:-$all}}
for b in $benches; do
	[ -f "tests/bench/$b.sh" ] || { echo "bench: no tests/bench/$b.sh (see tests/bench/README.md)" >&2; exit 1; }
done
bash scripts/deps.sh check
make -s tools
mkdir -p build/logs
out=build/logs/bench.log
: >"$out"
for b in $benches; do
	echo "== $b" | tee -a "$out"
	bash "tests/bench/$b.sh" 2>&1 | tee -a "$out" | grep --line-buffered '^bench '
done
echo "all bench lines: $(grep -c '^bench ' "$out") (log: $out)"
