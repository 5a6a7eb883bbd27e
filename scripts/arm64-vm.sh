#!/usr/bin/env bash
# arm64-vm.sh: issue 52's guest.  Boots Debian's arm64 6.1 kernel
# (linux-image-6.1.0-*-arm64, unpacked by kernel.sh --image, never
# installed) under qemu-system-aarch64 -machine virt -cpu max (TCG) with a
# busybox initramfs (busybox-static:arm64, unpacked), and in it:
#   selfwalk-plain, selfwalk-pac-ret   the SFrame core, built for AArch64
#       into tests/arm64/selfwalk.c (static, no frame pointers, SFrame from
#       aarch64-linux-gnu-as --gsframe; the second with signed return
#       addresses), walking its own stack and through a signal frame,
#       against libgcc's unwinder; selfwalk-fp-pac-ret the same with frame
#       pointers and the frame-pointer rule alone
#   insmod, rmmod   ustack.ko cross-built against the image's headers as
#       tests/kbuild builds it; a clean kernel log
#   stacks-sf, stacks-fp   the stream tests' workload (static; SFrame
#       without frame pointers, frame pointers alone) sampled at 999 Hz,
#       off-CPU on, through the trace events alone: >= 99% of its user
#       stacks whole (tests/arm64/stacks.awk)
#   stays-sf, stays-fp   each stay ends at its return to user space (the
#       return probe of module/stay_exitprobe.c): one walk per cookie and
#       a cookie per tick (tests/arm64/stays.awk)
# Prints PASS:/FAIL: lines (arm64/SERIES/NAME) and exits non-zero on a FAIL.
# make check runs it for 6.1 and 6.12 (tests/arm64/run.sh).
#   USTACK_ARM64_SUITE=bookworm   the suite of the image and busybox
#   USTACK_ARM64_SERIES=6.1.0     the image's series: its newest generic
#                                 flavour (6.12 takes 6.12.*+deb12)
#   USTACK_ARM64_TIMEOUT=600      seconds for the guest
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=$(realpath -m "${USTACK_CACHE:-/var/cache/ustack}")
suite=${USTACK_ARM64_SUITE:-bookworm}
series=${USTACK_ARM64_SERIES:-6.1.0}
timeout=${USTACK_ARM64_TIMEOUT:-600}
# (in the cache: a build root sees the cache alone)
mkdir -p "$cache/arm64"
work=$(mktemp -d "$cache/arm64/run.XXXXXX")
trap 'rm -rf "$work"' EXIT
t0=$SECONDS

# Results are named arm64/SERIES/NAME (6.1, 6.12): make check runs both.
tag=${series%.0}
fail() { echo "FAIL: arm64/$tag/$1: $2"; exit 1; }
for c in qemu-system-aarch64 aarch64-linux-gnu-gcc cpio; do
	command -v $c >/dev/null || fail setup "$c is missing (scripts/deps.sh check)"
done

# The newest generic arm64 image of the suite's series, its headers.
conf=$("$top/scripts/apt-suite.sh" "$suite" arm64) || fail setup "no $suite arm64 lists"
img=$(APT_CONFIG=$conf apt-cache search --names-only "^linux-image-${series//./\\.}[-.][0-9a-z.+]*-arm64\$" |
	cut -d' ' -f1 | grep -v -e '-dbg$' -e '-unsigned$' | sort -V | tail -n1)
[ -n "$img" ] || fail setup "no linux-image-$series*-arm64 in $suite"
eval "$("$top/scripts/kernel.sh" --image "$img" "$suite")" || fail setup "cannot unpack $img"
hdr=linux-headers-${img#linux-image-}
hinfo=$("$top/scripts/kernel.sh" --headers "$hdr" "$suite") || fail setup "cannot unpack $hdr"
kdir=$(echo "$hinfo" | sed -n 's/^KDIR=//p')
[ -n "$kdir" ] || fail setup "cannot unpack $hdr"
# (a suite newer than the host's builds in its cross build root, as
# tests/kbuild does)
broot=$(echo "$hinfo" | sed -n 's/^BUILDROOT=//p')

# bookworm's busybox-static:arm64 for every suite (static: any kernel
# runs it), unpacked once into the cache.
bb=$cache/arm64/busybox-bookworm
if [ ! -x "$bb/bin/busybox" ]; then
	mkdir -p "$work/bb"
	bconf=$("$top/scripts/apt-suite.sh" bookworm arm64) || fail setup "no bookworm arm64 lists"
	(cd "$work/bb" && APT_CONFIG=$bconf apt-get download -qq busybox-static:arm64 >/dev/null 2>&1) ||
		fail setup "apt-get download busybox-static:arm64 failed"
	rm -rf "$bb" && mkdir -p "$bb"
	dpkg-deb -x "$work"/bb/*.deb "$bb"
fi

# The guest's programs and the module.
root=$work/root
mkdir -p "$root"/{bin,proc,sys,dev,tmp}
cp "$bb/bin/busybox" "$root/bin/busybox"
core=$(make -s --no-print-directory -C "$top" -f module/core.mk USTACK_ARCH=arm64 \
	--eval 'p:;@echo $(addprefix $(USTACK_CORE_DIR),$(USTACK_CORE_SRCS))' p)
for v in plain pac-ret fp-pac-ret; do
	flags=(-fomit-frame-pointer)
	[ $v = pac-ret ] && flags+=(-mbranch-protection=pac-ret)
	# (no shrink-wrapping: f3 makes its frame record before the udf, where
	# the frame-pointer rule, blind to x30, would skip f2)
	[ $v = fp-pac-ret ] &&
		flags=(-fno-omit-frame-pointer -fno-shrink-wrap -mbranch-protection=pac-ret)
	(cd "$top" && aarch64-linux-gnu-gcc -static -O2 "${flags[@]}" \
		-Wa,--gsframe -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -Werror \
		-Imodule -Iinclude -o "$root/selfwalk-$v" tests/arm64/selfwalk.c $core) \
		>"$work/cc.log" 2>&1 || fail "build-selfwalk-$v" "$(head -n3 "$work/cc.log")"
done
# The workload of the stream tests, static: with SFrame (no frame
# pointers) and with frame pointers alone; its symbols for stacks.awk.
for v in sf fp; do
	flags=(-fomit-frame-pointer -Wa,--gsframe)
	[ $v = fp ] && flags=(-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer)
	aarch64-linux-gnu-gcc -static -O2 "${flags[@]}" -o "$root/workload_$v" \
		"$top/tests/vm/src/workload.c" -lpthread >"$work/cc.log" 2>&1 ||
		fail "build-workload-$v" "$(head -n3 "$work/cc.log")"
	# (its own functions and libc's way to main: a guest's awk is slow)
	aarch64-linux-gnu-nm -S "$root/workload_$v" | grep -w -E \
		'main|run_cpu|cpu_outer|cpu_inner|_start|__libc_start_main|__libc_start_call_main' \
		>"$root/workload_$v.syms"
done
cp "$top/tests/arm64/stacks.awk" "$top/tests/arm64/stays.awk" "$root/"
mkdir -p "$work/src"
(cd "$top" && find module include \( -name '*.[ch]' -o -name Kbuild -o -name Makefile -o -name '*.sh' -o -name '*.mk' \) -print0 |
	cpio --null -pdm --quiet "$work/src")
make=(make)
[ -z "$broot" ] || make=("$top/scripts/buildroot.sh" "$broot" make)
if ! nice "${make[@]}" -C "$kdir" M="$work/src/module" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
	modules >"$work/kbuild.log" 2>&1; then
	fail build-module "$(grep -m1 -E 'error|Error' "$work/kbuild.log")"
fi
cp "$work/src/module/ustack.ko" "$root/ustack.ko"
echo "PASS: arm64/$tag/build ($((SECONDS - t0)) s: $img, selfwalk, ustack.ko)"

cat >"$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug
echo "arm64-vm: $(uname -r) $(uname -m), PAC: $(grep -m1 -o -w paca /proc/cpuinfo || echo none)"
SELFWALK_VERBOSE=1 /selfwalk-plain
SELFWALK_VERBOSE=1 /selfwalk-pac-ret
SELFWALK_VERBOSE=1 /selfwalk-fp-pac-ret
if insmod /ustack.ko sample_hz=999 offcpu=1 2>/tmp/insmod.err; then
	echo "PASS: arm64/insmod"
	# The trace events alone start the sources: every task's stacks,
	# the ones the sampling tick and the off-CPU switch ask for.
	mount -t tracefs tracefs /sys/kernel/tracing
	T=/sys/kernel/tracing
	echo 16384 >$T/buffer_size_kb
	echo 1 >$T/events/ustack/user_stack/enable
	echo 1 >$T/events/ustack/sample/enable
	for v in sf fp; do
		/workload_$v cpu 5 >/dev/null & pid=$!
		wait $pid
		echo "$v $pid" >>/tmp/pids
	done
	echo 0 >$T/events/ustack/user_stack/enable
	echo 0 >$T/events/ustack/sample/enable
	cat $T/trace >/tmp/trace
	while read -r v pid; do
		awk -v pid=$pid -v name=$v -f /stacks.awk /workload_$v.syms /tmp/trace
		awk -v pid=$pid -v name=$v -f /stays.awk /tmp/trace
	done </tmp/pids
	grep -E '^(requests|walks|stays|stays_at_walk|nomem) ' /sys/kernel/debug/ustack/stats 2>/dev/null | tr '\n' ' '
	echo
	if rmmod ustack; then echo "PASS: arm64/rmmod"; else echo "FAIL: arm64/rmmod: rmmod failed"; fi
else
	echo "FAIL: arm64/insmod: $(dmesg | grep -o 'ustack: Unknown symbol [a-z_]*' | sort -u | paste -sd' ')"
fi
echo "arm64-vm: done"
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd.gz"

# The guest: TCG, one CPU per host core the CI shares, PAC by QEMU's
# cheap implementation-defined algorithm (QARMA is slow under TCG).
t=$SECONDS
timeout "$timeout" qemu-system-aarch64 -machine virt -cpu max,pauth-impdef=on -smp 2 -m 1024 \
	-nographic -no-reboot -kernel "$VMLINUZ" -initrd "$work/initrd.gz" \
	-append "console=ttyAMA0 panic=-1 rdinit=/init" >"$work/console.log" 2>&1
rc=$?
mkdir -p "$top/build/logs"
cp "$work/console.log" "$top/build/logs/arm64-vm.log"
grep -q 'arm64-vm: done' "$work/console.log" ||
	fail boot "the guest did not finish (qemu rc $rc, $((SECONDS - t)) s): build/logs/arm64-vm.log"
tr -d '\r' <"$work/console.log" | grep -E '^(PASS|FAIL): ' |
	sed "s|^\([A-Z]*\): arm64/|\1: arm64/$tag/|" >"$work/results"
cat "$work/results"
echo "PASS: arm64/$tag/boot ($KREL under TCG: $((SECONDS - t)) s)"
bad=$(tr -d '\r' <"$work/console.log" | grep -E -f <(grep -v '^#' "$top/scripts/vm/bad-log-patterns") | head -n1)
if [ -n "$bad" ]; then
	echo "FAIL: arm64/$tag/kernel-log: $bad"
else
	echo "PASS: arm64/$tag/kernel-log"
fi
! grep -q '^FAIL' "$work/results" && [ -z "$bad" ]
