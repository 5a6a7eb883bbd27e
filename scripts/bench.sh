#!/usr/bin/env bash
# make bench: every benchmark, side by side in one run; each result is also
# printed as one line "bench <name> <value> <unit>".  BENCHES="walk shim"
# runs a subset (names of tests/bench/*.sh).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
bash scripts/deps.sh check
make -s tools
mkdir -p build/logs
out=build/logs/bench.log
: >"$out"
for b in ${BENCHES:-$(cd tests/bench && ls *.sh | sed 's/\.sh$//')}; do
	echo "== $b" | tee -a "$out"
	bash "tests/bench/$b.sh" 2>&1 | tee -a "$out" | grep --line-buffered '^bench '
done
echo "all bench lines: $(grep -c '^bench ' "$out") (log: $out)"
