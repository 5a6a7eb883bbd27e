#!/usr/bin/env bash
# buildroot.sh [--perf] SUITE [CMD...]: a Debian SUITE build root for kernel
# modules, for the kernels of a suite whose headers need that suite's
# compiler and kbuild (trixie's gcc-14, sid's gcc-16) on this Debian 12
# host, where they are never installed.
# With --perf, a root of SUITE's linux-perf instead (its perf and the
# libraries it runs with; vm-test.sh stages them into a guest that runs
# that suite's kernel), under USTACK_CACHE/buildroot/SUITE-perf.
# SUITE-arm64 (trixie-arm64): a root for cross builds against SUITE's arm64
# headers (tests/kbuild), under USTACK_CACHE/buildroot/SUITE-arm64: the
# same, with the cross compiler the arm64 headers name (gcc-14:arm64 and
# sid's gcc-16-for-host:arm64 are gcc-N-aarch64-linux-gnu here) and their
# linux-kbuild for this host.
#
# The root is made once with mmdebstrap (Debian's packages only, from the
# mirror this machine's apt uses, through scripts/apt-suite.sh) under
# USTACK_CACHE/buildroot/SUITE: essential packages, make, libc6-dev, the
# compiler named by the Depends of the suite's current linux-headers-amd64
# (gcc-14, gcc-16-for-host, ...) and its linux-kbuild (whose programs load
# the suite's libelf, libssl and zlib; pahole for BTF).  It is made again
# when that list changes (sid moving to a new compiler).  The headers
# themselves stay where scripts/kernel.sh unpacks them, in the cache.
#
# With CMD, runs CMD in the root (chroot) in a mount namespace of its own,
# where /proc, /dev and the cache (at its own path) are mounted: a command
# line that names files in the cache means the same files inside.  Without
# CMD, prints the root's path.  Everything else goes to stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kind=modules
[ "${1:-}" = --perf ] && kind=perf && shift
suite=${1:?usage: buildroot.sh [--perf] SUITE [CMD...]}
shift
cache=${USTACK_CACHE:-/var/cache/ustack}
cache=$(realpath -m "$cache")
name=$suite
[ $kind = perf ] && name=$suite-perf
case $suite in
*-arm64) kind=arm64 suite=${suite%-arm64} ;;
esac
root=$cache/buildroot/$name

log() { echo "buildroot: $*" >&2; }

mkdir -p "$cache/buildroot"
exec 8>"$cache/buildroot/.$name.lock"
flock 8

foreign=()
[ $kind = arm64 ] && foreign=(arm64)
conf=$("$here/apt-suite.sh" "$suite" ${foreign[@]+"${foreign[@]}"})
# What the root needs: read from the suite's current headers package (or
# its current linux-perf, whose dependencies mmdebstrap brings).
wanted() {
	local h
	if [ $kind = perf ]; then
		h=$(APT_CONFIG=$conf apt-cache policy linux-perf 2>/dev/null |
			sed -n 's/^ *Candidate: \([0-9].*\)$/\1/p')
		[ -n "$h" ] && echo "linux-perf=$h"
		return
	fi
	if [ $kind = arm64 ]; then
		h=$(APT_CONFIG=$conf apt-cache depends linux-headers-arm64:arm64 2>/dev/null |
			sed -n 's/^ *Depends: \(linux-headers-[0-9][^ ]*\)$/\1/p' | head -n1)
	else
		h=$(APT_CONFIG=$conf apt-cache depends linux-headers-amd64 2>/dev/null |
			sed -n 's/^ *Depends: \(linux-headers-[0-9][^ ]*\)$/\1/p' | head -n1)
	fi
	[ -n "$h" ] || return 1
	echo make libc6-dev bc kmod xz-utils zstd
	APT_CONFIG=$conf apt-cache depends "$h" 2>/dev/null |
		sed -n 's/^ *|\{0,1\}Depends: \(gcc-[0-9][^ ]*\|linux-kbuild-[0-9][^ ]*\)$/\1/p' |
		sed -e 's/^\(gcc-[0-9]*\)\(-for-host\)\{0,1\}:arm64$/\1-aarch64-linux-gnu/' -e 's/:arm64$//'
}
if ! want=$(wanted | sort -u | paste -sd' ') || [ -z "$want" ]; then
	log "cannot read $suite's linux-headers-amd64"
	exit 1
fi

if [ ! -f "$root/.done" ] || [ "$(cat "$root/.wanted" 2>/dev/null)" != "$want" ]; then
	command -v mmdebstrap >/dev/null ||
		{ log "mmdebstrap is missing (scripts/deps.sh check)"; exit 1; }
	log "making the $name build root in $root: $want"
	rm -rf "$root.new"
	aptd=$(dirname "$conf")
	if ! mmdebstrap --mode=root --variant=essential --quiet \
		--include="$(echo "$want" | tr ' ' ,)" \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		--aptopt='Acquire::Languages "none"' \
		--dpkgopt='path-exclude=/usr/share/{doc,man,locale,info}/*' \
		"$suite" "$root.new" "$aptd/etc/sources.list" >"$cache/buildroot/$name.log" 2>&1; then
		log "mmdebstrap failed: $(tail -n 3 "$cache/buildroot/$name.log" | tr '\n' ' ')"
		rm -rf "$root.new"
		exit 1
	fi
	echo "$want" >"$root.new/.wanted"
	chroot "$root.new" dpkg-query -W -f='${Package} ${Version}\n' >"$root.new/.packages"
	touch "$root.new/.done"
	rm -rf "$root"
	mv "$root.new" "$root"
fi
flock -u 8

if [ $# -eq 0 ]; then
	echo "$root"
	exit 0
fi
mkdir -p "$root$cache"
exec unshare --mount --propagation private -- /bin/sh -ec '
	root=$1 cache=$2
	shift 2
	mount -t proc proc "$root/proc"
	mount --bind /dev "$root/dev"
	mount --bind "$cache" "$root$cache"
	exec chroot "$root" /usr/bin/env PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 "$@"
' sh "$root" "$cache" "$@"
