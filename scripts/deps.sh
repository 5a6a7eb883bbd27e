#!/usr/bin/env bash
# deps.sh [demo|check]: install, only when missing, the Debian packages of one
# set.  Idempotent: when everything is present it only runs dpkg-query.
#   demo   what `make demo` needs: build the tools and the module, boot the
#          stock 6.1 kernel under QEMU with a busybox initramfs, python3.11
#   check  (default) everything the tests and benchmarks need: the demo set,
#          clang/libFuzzer, chromium, linux-source-6.1 for the debug kernel,
#          dkms, the Debian packaging tools, perf, trace-cmd, bpftrace,
#          btrfs-progs (a VM test's guest makes a btrfs), mmdebstrap (the
#          trixie and sid build roots, the whole Debian systems of
#          scripts/system-image.sh), qemu-utils (their disk images),
#          openjdk-17 (the JVM agent's headers, and the JVM its VM test
#          runs), gcc-aarch64-linux-gnu (tests/kbuild's arm64 cross
#          builds, the arm64 guest's test program), qemu-system-arm (the
#          arm64 guest of check-full), ...
# Kernel images and headers are never installed: scripts/kernel.sh downloads
# and unpacks them into the cache.  Neither is Debian sid's binutils (the
# SFrame v3 tests): scripts/sid-binutils.sh unpacks it into the cache,
# checked with debian-archive-keyring.  Nor are trixie's and sid's compilers:
# scripts/buildroot.sh makes a build root of each suite in the cache with
# mmdebstrap.
set -euo pipefail

set_name=${1:-check}
demo=(
	build-essential make gcc libelf-dev libdw-dev elfutils file
	qemu-system-x86 busybox-static cpio kmod python3.11 xz-utils zstd
	libprotobuf-c-dev protobuf-c-compiler zlib1g-dev
)
case $set_name in
demo)	pkgs=("${demo[@]}") ;;
check)	pkgs=("${demo[@]}"
		clang llvm libclang-rt-14-dev binutils-dev libunwind-dev
		python3 bc flex bison libssl-dev dwarves
		linux-source-6.1 chromium linux-perf libxml2-utils
		dkms debhelper dh-dkms lintian devscripts
		debian-archive-keyring golang-go python3-jsonschema strace
		trace-cmd bpftrace btrfs-progs mmdebstrap qemu-utils
		openjdk-17-jdk-headless gcc-aarch64-linux-gnu libc6-dev-arm64-cross
		qemu-system-arm)
	# npm fetches speedscope's schema for the report tests; a Node.js
	# installed from elsewhere brings its own npm, which Debian's would
	# conflict with.
	command -v npm >/dev/null || pkgs+=(npm)
	;;
*)	echo "usage: deps.sh [demo|check]" >&2; exit 2 ;;
esac

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages (run as root to install): ${missing[*]}" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
stamp=/var/lib/apt/periodic/ustack-update-stamp
if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +360 2>/dev/null)" ]; then
	apt-get update -qq
	mkdir -p "$(dirname "$stamp")" && touch "$stamp"
fi
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
