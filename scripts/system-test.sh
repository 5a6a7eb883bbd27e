#!/usr/bin/env bash
# system-test.sh RELEASE [TEST...]: the whole-system tests (tests/system/)
# on Debian RELEASE (bookworm, trixie), installed from this tree's packages
# as a user installs them.  Prints PASS:/FAIL: lines (system/RELEASE/...).
#
# The image (scripts/system-image.sh, cached) boots under QEMU TCG with its
# own kernel and initramfs, no network, from a copy-on-write overlay that
# is thrown away afterwards: the cached image is never written.  A second
# disk (ext4, LABEL=USTACKTEST) holds the packages `make deb` built from
# this tree, tests/system/ and the runner, which the image's
# ustack-test.service runs once the system is up (tests/system/guest-run.sh);
# the results come out on the second serial port, the console (the kernel
# log) on the first: both go to build/logs/system-RELEASE*.log, read by
# scripts/vm/verdict.sh (a boot fails on oops, WARN, lockdep, ... as the
# busybox guests' do).  TEST: tests/system/NAME.sh, default `user` (the one
# make check runs); `make check-system` runs them all.
#   USTACK_SYSTEM_DEBS=DIR   use these .debs instead of building them
# (One compound command, read whole before it runs: editing the file
# meanwhile cannot change what a running build does.)
{
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
release=${1:?usage: system-test.sh RELEASE [TEST...]}
shift
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(user)
cache=${USTACK_CACHE:-/var/cache/ustack}
label=$release
log_dir=${USTACK_LOG_DIR:-$top/build/logs}
mkdir -p "$log_dir"
log=$log_dir/system-$release${USTACK_LOG_SUFFIX-.$$}

if ! info=$("$top/scripts/system-image.sh" "$release" 2>"$log.image"); then
	echo "FAIL: system/$label/image: $(tail -n 3 "$log.image" | paste -sd' ')"
	exit 0
fi
eval "$info"

mkdir -p "$cache/systems"
work=$(mktemp -d "$cache/systems/run.$release.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The packages, as `make deb` builds them (from a clean copy of the tree).
debs=${USTACK_SYSTEM_DEBS:-}
if [ -z "$debs" ]; then
	debs=$work/deb
	if ! make -s -C "$top" deb DEBDIR="$debs" >"$log.deb" 2>&1; then
		echo "FAIL: system/$label/deb: make deb failed (see $log.deb)"
		exit 0
	fi
fi
pay=$work/payload
mkdir -p "$pay/debs"
cp "$debs"/ustack-dkms_*_all.deb "$debs"/ustack-tools_*_amd64.deb "$pay/debs/" ||
	{ echo "FAIL: system/$label/deb: no packages in $debs"; exit 0; }
cp -r "$top"/tests/system/. "$pay/"
mv "$pay/guest-run.sh" "$pay/run.sh"
mkfs.ext4 -q -L USTACKTEST -d "$pay" "$work/payload.img" 64M >/dev/null
qemu-img create -q -f qcow2 -F raw -b "$IMAGE" "$work/root.qcow2"

# The boot: reboots restart the guest with the same kernel (no -no-reboot);
# the runner powers it off at the end.  tsc=reliable, nokaslr: as
# scripts/vm/boot.sh (6.12-rt's sched_clock switch, the STALL names).
tmo=0
for t in "${tests[@]}"; do
	n=$(sed -n 's/^# timeout: \([0-9]*\)$/\1/p' "$top/tests/system/$t.sh" 2>/dev/null | head -n1)
	tmo=$((tmo + ${n:-900}))
done
tmo=$(( (tmo + 600) * ${USTACK_VM_SLOWDOWN:-1} ))
accel=tcg
qemu() {
	: >"$log.console"
	: >"$log"
	timeout -s KILL "$tmo" qemu-system-x86_64 -accel "$accel" -cpu max -smp "${USTACK_VM_CPUS:-2}" \
		-m "${USTACK_VM_MEM:-2048}" -display none -nodefaults -no-user-config \
		-serial "file:$log.console" -serial "file:$log" \
		-drive "file=$work/root.qcow2,if=virtio,format=qcow2,cache=unsafe" \
		-drive "file=$work/payload.img,if=virtio,format=raw,readonly=on" \
		-kernel "$VMLINUZ" -initrd "$INITRD" \
		-append "root=/dev/vda rw console=ttyS0 loglevel=5 panic=-1 mitigations=off tsc=reliable nokaslr ustack_test=$(IFS=,; echo "${tests[*]}") ${USTACK_VM_APPEND:-}" \
		</dev/null >"$log.qemu" 2>&1
}
t0=$SECONDS
qemu && qrc=0 || qrc=$?
# The emulator's own failure (multi-threaded TCG racing live text
# patching, as scripts/vm/boot.sh says): one more boot, said so, with
# its vCPUs in one host thread, where the race cannot happen.
if grep -q 'Oops: int3' "$log.console"; then
	echo "RETRY: system/$label: the emulator's text-patching race (an int3 oops); first log: $log.first"
	mv "$log" "$log.first"
	cp "$log.console" "$log.first.console"
	rm -f "$work/root.qcow2"
	qemu-img create -q -f qcow2 -F raw -b "$IMAGE" "$work/root.qcow2"
	accel=tcg,thread=single
	qemu && qrc=0 || qrc=$?
fi
note="qemu exit $qrc after $((SECONDS - t0)) s"
[ $qrc != 137 ] || note="stopped after ${tmo} s (time limit)"

# The verdicts: the runner's results, then the kernel's log of every boot
# (the console) checked as a busybox guest's is.
{ tr -d '\r' <"$log"; echo "USTACK-CONSOLE-BEGIN"; tr -d '\r' <"$log.console"; } >"$log.all"
"$top/scripts/vm/verdict.sh" "$label" "$(IFS=,; echo "${tests[*]}")" "$log.all" "$note" |
	sed 's#^\(PASS\|FAIL\): vm/#\1: system/#'
echo "system/$label: $((SECONDS - t0)) s in the guest ($KREL), log $log"
exit
}
