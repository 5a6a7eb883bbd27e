#!/usr/bin/env bash
# make demo: boot Debian's stock 6.1 kernel under QEMU, load ustack, profile
# a program built without frame pointers (as Debian builds) and Debian's
# python3.11 with frame pointers alone (what perf --call-graph fp sees),
# then with ustack and ustackd; print the summaries and a few joined
# stacks, write the flame graphs; python3.11 under the shim with its own
# frames.  Then the whole system: programs started before the module,
# without the shim, sampled with frame pointers alone and with ustackd
# (tests/vm/_demo-system.sh), and the flame graph of every process.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
bash scripts/deps.sh demo
make -s tools
out=build/demo
mkdir -p "$out" build/logs
echo "Booting Debian's $(bash scripts/kernel.sh 6.1 | sed -n 's/^KREL=//p') kernel under QEMU (TCG) ..."
USTACK_VM_PYTHON=1 USTACK_LOG_SUFFIX=.demo bash scripts/vm-test.sh 6.1 _demo _demo-system >"$out/verdict.txt"
log=build/logs/vm-6.1.demo.log
tr -d '\r' <"$log" | sed -n '/^USTACK-TEST-BEGIN _demo/,/^USTACK-RESULT/p' |
	sed -e '1d' -e '$d' -e 's/^    //' | grep -v -e '^\[ *[0-9.]*\]' -e '^USTACK-' |
	sed '/^DEMO-SVG/,/^DEMO-SVG.*END/d'
tr -d '\r' <"$log" | sed -n '/^    DEMO-SVG-BEGIN/,/^    DEMO-SVG-END/p' | sed -e '1d' -e '$d' -e 's/^    //' >"$out/flame-ustack.svg"
tr -d '\r' <"$log" | sed -n '/^    DEMO-SVG-PY-BEGIN/,/^    DEMO-SVG-PY-END/p' | sed -e '1d' -e '$d' -e 's/^    //' >"$out/flame-python.svg"
tr -d '\r' <"$log" | sed -n '/^    DEMO-SVG-FP-BEGIN/,/^    DEMO-SVG-FP-END/p' | sed -e '1d' -e '$d' -e 's/^    //' >"$out/flame-fp.svg"
echo
cat "$out/verdict.txt"
echo "Flame graphs: $out/flame-ustack.svg (ustack with ustackd)"
echo "             $out/flame-fp.svg (the same, frame pointers alone)"
echo "             $out/flame-python.svg (python3.11 with demo.py's own frames)"
echo "Full guest log: $log"
tr -d '\r' <"$log" | sed -n '/^    DEMO-SVG-SYSTEM-BEGIN/,/^    DEMO-SVG-SYSTEM-END/p' | sed -e '1d' -e '$d' -e 's/^    //' >"$out/flame-system.svg"
echo "The whole system's flame graph: $out/flame-system.svg (with ustackd, no shim)"
! grep -q '^FAIL' "$out/verdict.txt"
