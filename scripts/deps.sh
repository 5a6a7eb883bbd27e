#!/usr/bin/env bash
# Install, only when missing, every Debian package that build, tests and demo need.
# Idempotent: when everything is present it only runs dpkg-query and returns.
# Debian sid's binutils (SFrame v3 tests) are not installed: scripts/sid-binutils.sh
# unpacks them into the cache, checked with debian-archive-keyring.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/kernels.conf
. "$here/kernels.conf"

pkgs=(
	build-essential make gcc clang llvm libclang-rt-14-dev
	libelf-dev libdw-dev elfutils binutils-dev libunwind-dev
	qemu-system-x86 busybox-static cpio kmod dkms
	python3 bc flex bison libssl-dev xz-utils zstd dwarves
	linux-source-6.1 chromium linux-perf libxml2-utils
	debian-archive-keyring
	libprotobuf-c-dev protobuf-c-compiler zlib1g-dev
	golang-go python3-jsonschema
)
# npm fetches speedscope's schema for the report tests; a Node.js installed
# from elsewhere brings its own npm, which Debian's package would conflict with
command -v npm >/dev/null || pkgs+=(npm)
want_headers=${USTACK_WANT_HEADERS:-1}

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done

# Kernel headers: one concrete package per kernel of the matrix, resolved from
# the Debian meta-packages (kernels.conf), so a new point release is picked up.
if [ "$want_headers" = 1 ]; then
	for meta in "${KERNEL_HEADER_METAS[@]}"; do
		if ! dpkg-query -W -f='${Status}' "$meta" 2>/dev/null | grep -q 'ok installed'; then
			missing+=("$meta")
		fi
	done
fi

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
