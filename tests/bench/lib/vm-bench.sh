#!/usr/bin/env bash
# vm-bench.sh KERNEL TEST: boot KERNEL's guest for tests/vm/TEST.sh (a
# benchmark's guest side, which stays with the guest build) and print the
# `bench` lines it wrote, after a line naming the kernel.  Fails, with the
# guest's verdict and test output, if the run did.  Not a benchmark itself:
# tests/bench/*.sh call it.
top=$(cd "$(dirname "$0")/../../.." && pwd)
k=$1 t=$2
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
USTACK_LOG_DIR=$logs bash "$top/scripts/vm-test.sh" "$k" "$t" >"$logs/verdict" 2>&1
if ! grep -q "^PASS: vm/$k/$t" "$logs/verdict"; then
	echo "$t: VM run failed:" >&2
	cat "$logs/verdict" >&2
	tr -d '\r' <"$logs"/vm-*.log | sed -n '/USTACK-TEST-BEGIN/,/USTACK-RESULT/p' >&2
	exit 1
fi
echo "# kernel $k under QEMU TCG"
tr -d '\r' <"$logs"/vm-*.log | sed -n 's/^ *\(bench [a-z0-9_]* -\{0,1\}[0-9.]* [a-zA-Z]*\)$/\1/p'
