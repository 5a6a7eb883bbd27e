#!/usr/bin/env bash
# tests/arm64: issue 52's guests, Debian's arm64 6.1 and 6.12 (bookworm)
# under qemu-system-aarch64 (TCG), one after the other: the SFrame core on
# AArch64, the module's load and unload, the workload's stacks and stays
# (scripts/arm64-vm.sh says what each test asserts).  About a minute each
# with a warm cache.  bash tests/arm64/run.sh [NAME...] (tests/select.sh):
# NAME is SERIES/TEST (6.1/stacks-sf, '6.12/*').
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/select.sh" arm64 "$@"
for series in 6.1.0 6.12; do
	want "${series%.0}/*" || continue
	USTACK_ARM64_SERIES=$series bash "$top/scripts/arm64-vm.sh"
done
