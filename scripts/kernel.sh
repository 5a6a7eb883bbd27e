#!/usr/bin/env bash
# kernel.sh NAME: make the kernel NAME of the VM matrix ready and describe it.
# Prints shell assignments: KREL (uname -r), VMLINUZ (boot image), KDIR (the
# build tree modules are built against) and MODROOT (a directory holding the
# image's lib/modules/KREL metadata, or empty).
#
# Stock kernels and their headers are Debian packages, resolved from their
# meta-packages (kernels.conf), downloaded with apt-get download and unpacked
# into a cache outside the source tree (USTACK_CACHE, /var/cache/ustack):
# the image's /boot and module metadata under kernels/<image package>/, the
# headers under kernels/<headers package>/ (a root holding usr/src and
# usr/lib, so KDIR is kernels/<headers package>/usr/src/<headers package>).
# Nothing is installed.
# With --modules, the image's loadable modules too (lib/modules/KREL/kernel
# under MODROOT, unpacked once: some 400 MB), for a guest that loads one
# (vm-test.sh, a test's "# modules:" line).
# NAME=debug delegates to debug-kernel.sh (its MODROOT has its modules).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/kernels.conf"
name=${1:?usage: kernel.sh NAME [--modules]}
modules=${2:-}
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

# make check runs two lanes, and both may fill the same cache entry.
mkdir -p "$cache/kernels"
exec 9>"$cache/kernels/.lock"
flock 9

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

# The headers: the concrete linux-headers-<ver>-<flavour> package and what a
# module build needs of its dependencies (its linux-headers-<ver>-common tree,
# linux-kbuild-<ver>), unpacked together into one root.  Never installed:
# Debian 12's 6.12 headers depend on their linux-image, whose installation
# would run update-initramfs and add boot entries to this machine.
hroot=$cache/kernels/$hpkg
if [ ! -f "$hroot/.done" ]; then
	mapfile -t hdeps < <(apt-cache depends "$hpkg" 2>/dev/null |
		sed -n 's/^ *|\{0,1\}Depends: \(linux-\(headers\|kbuild\)-[0-9][^ ]*\)$/\1/p' | sort -u)
	[ ${#hdeps[@]} -gt 0 ] ||
		{ echo "kernel.sh: cannot resolve the dependencies of $hpkg" >&2; exit 1; }
	mkdir -p "$cache/kernels"
	tmp=$(mktemp -d "$cache/kernels/.dl.XXXXXX")
	(cd "$tmp" && apt-get download -qq "$hpkg" "${hdeps[@]}" >/dev/null 2>&1) ||
		{ echo "kernel.sh: apt-get download $hpkg ${hdeps[*]} failed" >&2; rm -rf "$tmp"; exit 1; }
	mkdir -p "$tmp/root"
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$tmp/root"
	done
	# Links that would leave the root: make them relative inside it (the
	# packages' own scripts -> ../../lib/linux-kbuild-*/scripts already are).
	find "$tmp/root" -type l -lname '/*' -print0 |
		while IFS= read -r -d '' l; do
			t=$(readlink "$l")
			ln -sfn "$(realpath -m --relative-to="$(dirname "$l")" "$tmp/root$t")" "$l"
		done
	# The flavour's Makefile includes its -common tree by absolute path:
	# make it relative to the Makefile itself.
	sed -i 's|^include /usr/src/\(.*\)$|include $(dir $(lastword $(MAKEFILE_LIST)))../\1|' \
		"$tmp/root/usr/src/$hpkg/Makefile"
	printf '%s\n' "$hpkg" "${hdeps[@]}" >"$tmp/root/.packages"
	touch "$tmp/root/.done"
	rm -rf "$hroot"
	mv -T "$tmp/root" "$hroot" 2>/dev/null || [ -f "$hroot/.done" ] ||
		{ echo "kernel.sh: cannot move the headers into $hroot" >&2; rm -rf "$tmp"; exit 1; }
	rm -rf "$tmp"
fi

if [ "$modules" = --modules ] && [ ! -f "$dir/.modules" ]; then
	tmp=$(mktemp -d "$cache/kernels/.dl.XXXXXX")
	(cd "$tmp" && apt-get download -qq "$pkg" >/dev/null 2>&1) ||
		{ echo "kernel.sh: apt-get download $pkg failed" >&2; rm -rf "$tmp"; exit 1; }
	dpkg-deb --fsys-tarfile "$tmp"/*.deb |
		tar -x -C "$dir" --wildcards './lib/modules/*/kernel/*'
	rm -rf "$tmp"
	touch "$dir/.modules"
fi

vmlinuz=$(ls "$dir"/boot/vmlinuz-* | head -n1)
krel=${vmlinuz##*/vmlinuz-}
kdir=$hroot/usr/src/$hpkg
[ -f "$kdir/Makefile" ] || { echo "kernel.sh: $kdir/Makefile missing" >&2; exit 1; }
echo "KREL=$krel"
echo "VMLINUZ=$vmlinuz"
echo "KDIR=$kdir"
echo "MODROOT=$dir"
