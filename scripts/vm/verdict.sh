#!/usr/bin/env bash
# verdict.sh LABEL TESTS LOG [NOTE]
# Read a guest's serial log and print one line per test (PASS: vm/LABEL/NAME
# or FAIL: vm/LABEL/NAME: reason) plus the checks of the boot itself: it
# finished, and its whole kernel log is clean (no oops, BUG, WARN, lockdep or
# RCU splat, ...: bad-log-patterns) with no taint but out-of-tree/unsigned
# module.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
label=$1 tests=$2 log=$3 note=${4:-}
clean=$(tr -d '\r' <"$log")

# The guest's own verdicts.
echo "$clean" | sed -n 's/^USTACK-RESULT \(PASS\|FAIL\) \([^:]*\)\(.*\)$/\1: vm\/'"$label"'\/\2\3/p'
# Tests that never reported (hang, crash).
for t in ${tests//,/ }; do
	grep -q "^USTACK-RESULT [A-Z]* $t\b" <(echo "$clean") ||
		echo "FAIL: vm/$label/$t: no result (guest died or hung; see $log)"
done

# Not "echo | grep -q": with pipefail, grep leaving early SIGPIPEs a long
# log's echo and the pipeline fails though the marker is there.
if grep -q '^USTACK-DONE' <<<"$clean"; then
	echo "PASS: vm/$label/boot-complete"
else
	echo "FAIL: vm/$label/boot-complete: $note, no end marker (see $log)"
	echo "$clean" | grep -v '^ *$' | tail -n 12 | sed 's/^/    | /'
fi

# The whole log: the console (live, in case the guest died) and the full
# dmesg the guest dumped at the end.  What follows the end marker is the
# kernel's own restart (reboot -f): it stops the other CPUs without
# migrating their tasks, and a wakeup racing that can WARN about an offline
# CPU (CI, 6.12-rt with 4 vCPUs).  Those lines count only if they name the
# module.
body=$(sed '/^USTACK-DONE/q' <<<"$clean")
grep -q 'ustack' < <(sed '1,/^USTACK-DONE/d' <<<"$clean") && body=$clean
bad=$(grep -v '^#' "$here/bad-log-patterns" | grep -v '^$' | paste -sd'|')
hits=$(echo "$body" | grep -v '^ *USTACK-\|^    ' | grep -E "$bad" | sort -u | head -n 5)
taint=$(echo "$clean" | sed -n 's/^USTACK-TAINTED \([0-9]*\)$/\1/p' | tail -n1)
allowed=$(( (1 << 12) | (1 << 13) ))	# O: out-of-tree, E: unsigned module
if [ -n "$hits" ]; then
	echo "FAIL: vm/$label/kernel-log: $(echo "$hits" | paste -sd';' | cut -c1-300) (see $log)"
elif [ -n "$taint" ] && [ $(( taint & ~allowed )) -ne 0 ]; then
	echo "FAIL: vm/$label/kernel-log: unexpected taint $taint (see $log)"
elif [ -z "$taint" ]; then
	echo "FAIL: vm/$label/kernel-log: no taint report (see $log)"
else
	echo "PASS: vm/$label/kernel-log"
fi
