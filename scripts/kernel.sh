#!/usr/bin/env bash
# kernel.sh NAME: make the kernel NAME of the VM matrix ready and describe it.
# Prints shell assignments: KREL (uname -r), VMLINUZ (boot image), KDIR (the
# build tree modules are built against) and MODROOT (a directory holding the
# image's lib/modules/KREL metadata, or empty).
#
# Stock kernels are Debian packages, resolved from their meta-packages
# (kernels.conf), downloaded with apt-get download and unpacked (only /boot and
# the module metadata) into a cache outside the source tree; never installed.
# NAME=debug delegates to debug-kernel.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/kernels.conf"
name=${1:?usage: kernel.sh NAME}
cache=${USTACK_CACHE:-/var/cache/ustack}

if [ "$name" = debug ]; then
	exec "$here/debug-kernel.sh"
fi

meta=
for i in "${!KERNEL_NAMES[@]}"; do
	if [ "${KERNEL_NAMES[$i]}" = "$name" ]; then
		meta=${KERNEL_IMAGE_METAS[$i]}
		hmeta=${KERNEL_HEADER_METAS[$i]}
	fi
done
[ -n "$meta" ] || { echo "kernel.sh: unknown kernel '$name'" >&2; exit 2; }

# The concrete package the meta-package points at: a cached answer first, so
# that a warm run needs neither apt nor the network.
resolve() {
	local m=$1 memo="$cache/kernels/$1.resolved"
	if [ -s "$memo" ] && [ -z "$(find "$memo" -mmin +720)" ]; then
		cat "$memo"
		return
	fi
	local p
	p=$(apt-cache depends "$m" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-\(image\|headers\)-[0-9][^ ]*\)$/\1/p' | head -n1)
	[ -n "$p" ] || { [ -s "$memo" ] && cat "$memo" && return; }
	[ -n "$p" ] || { echo "kernel.sh: cannot resolve $m" >&2; exit 1; }
	mkdir -p "$cache/kernels"
	echo "$p" >"$memo"
	echo "$p"
}

pkg=$(resolve "$meta")
hpkg=$(resolve "$hmeta")
dir=$cache/kernels/$pkg
if [ ! -f "$dir/.done" ]; then
	tmp=$(mktemp -d "$cache/kernels/.dl.XXXXXX")
	(cd "$tmp" && apt-get download -qq "$pkg" >/dev/null 2>&1) ||
		{ echo "kernel.sh: apt-get download $pkg failed" >&2; rm -rf "$tmp"; exit 1; }
	mkdir -p "$tmp/root"
	dpkg-deb --fsys-tarfile "$tmp"/*.deb |
		tar -x -C "$tmp/root" --wildcards './boot/vmlinuz-*' './lib/modules/*/modules.*' \
			2>/dev/null || true
	ls "$tmp"/root/boot/vmlinuz-* >/dev/null
	rm -rf "$dir"
	mv "$tmp/root" "$dir"
	rm -rf "$tmp"
	touch "$dir/.done"
fi

vmlinuz=$(ls "$dir"/boot/vmlinuz-* | head -n1)
krel=${vmlinuz##*/vmlinuz-}
kdir=/usr/src/$hpkg
if [ ! -f "$kdir/Makefile" ]; then
	echo "kernel.sh: headers $hpkg missing (scripts/deps.sh installs them)" >&2
	exit 1
fi
echo "KREL=$krel"
echo "VMLINUZ=$vmlinuz"
echo "KDIR=$kdir"
echo "MODROOT=$dir"
