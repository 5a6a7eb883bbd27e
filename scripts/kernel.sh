#!/usr/bin/env bash
# kernel.sh NAME [--modules]: make the kernel NAME of the VM matrix ready and
# describe it.
# kernel.sh --headers PACKAGE [SUITE]: unpack one concrete headers package
# (linux-headers-6.1.0-50-amd64) of SUITE (default: the host's) and
# describe it: what tests/kbuild builds against.  An arm64 flavour's
# (linux-headers-6.1.0-50-arm64) is a cross build's: its trees with this
# host's amd64 linux-kbuild of the same version (the build's programs),
# read through a private apt that lists arm64 (apt-suite.sh SUITE arm64).
# kernel.sh --image PACKAGE [SUITE]: unpack one concrete image package
# (linux-image-6.1.0-57-arm64: scripts/arm64-vm.sh's guest) and describe
# it: KREL, VMLINUZ, MODROOT.
# Prints shell assignments: KREL (uname -r), VMLINUZ (boot image), KDIR (the
# build tree modules are built against), MODROOT (a directory holding the
# image's lib/modules/KREL metadata, or empty) and BUILDROOT (the suite
# whose build root must run the module build, scripts/buildroot.sh, or
# empty: this host's compiler).
#
# Stock kernels and their headers are Debian packages, resolved from their
# meta-packages (kernels.conf), downloaded with apt-get download and unpacked
# into a cache outside the source tree (USTACK_CACHE, /var/cache/ustack):
# the image's boot image and module metadata under kernels/<image package>/,
# the headers under kernels/<headers package>/ (a root holding usr/src and
# usr/lib, so KDIR is kernels/<headers package>/usr/src/<headers package>).
# Nothing is installed.  A suite other than the host's is read through a
# private apt (apt-suite.sh).
# Two layouts of the image: Debian 12 and 13's linux-image-* holds
# boot/vmlinuz-KREL and lib/modules/KREL; sid's (7.x) is empty and depends
# on linux-binary-* (usr/lib/modules/KREL/vmlinuz), linux-modules-* (the
# modules) and linux-base-* (modules.builtin, modules.order, config, and a
# stub System.map).  MODROOT/lib/modules/KREL is the same in both.
# With --modules, the image's loadable modules too (lib/modules/KREL/kernel
# under MODROOT, unpacked once: some 400 MB), for a guest that loads one
# (vm-test.sh, a test's "# modules:" line).
# NAME=debug delegates to debug-kernel.sh (its MODROOT has its modules).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/kernels.conf"
name=${1:?usage: kernel.sh NAME [--modules] | --headers PACKAGE [SUITE]}
cache=${USTACK_CACHE:-/var/cache/ustack}
host_suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")

if [ "$name" = debug ]; then
	exec "$here/debug-kernel.sh"
fi

# use_suite SUITE [ARCH]: apt-cache and apt-get below read SUITE's lists
# (and ARCH's, a foreign architecture: the host's apt lists amd64 alone).
suite= sfx=
use_suite() {
	suite=$1 sfx=
	if [ -n "${2:-}" ]; then
		[ "$suite" != "$host_suite" ] || suite=
		APT_CONFIG=$("$here/apt-suite.sh" "${suite:-$host_suite}" "$2") || exit 1
		export APT_CONFIG
		sfx=${suite:+$suite:}
	elif [ -n "$suite" ] && [ "$suite" != "$host_suite" ]; then
		APT_CONFIG=$("$here/apt-suite.sh" "$suite") || exit 1
		export APT_CONFIG
		sfx=$suite:
	else
		suite=
		unset APT_CONFIG
	fi
}

# The concrete package the meta-package points at: a cached answer first, so
# that a warm run needs neither apt nor the network.
resolve() {
	local m=$1 memo="$cache/kernels/$sfx$1.resolved"
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

# download DIR PACKAGE...: apt-get download into DIR.
download() {
	local d=$1
	shift
	(cd "$d" && apt-get download -qq "$@" >/dev/null 2>&1) ||
		{ echo "kernel.sh: apt-get download $* failed" >&2; rm -rf "$d"; exit 1; }
}

# The packages of the image that hold its files: the image itself, or
# (sid) the linux-binary-/linux-base- packages it depends on; with
# --modules, linux-modules- too.
# IMAGE_ARCH: a foreign architecture's image (arm64), named so for apt.
image_parts() {
	local pkg=$1 with_modules=$2 a=${IMAGE_ARCH:+:$IMAGE_ARCH}
	echo "$pkg$a"
	apt-cache depends "$pkg$a" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-\(binary\|base\|modules\)-[0-9][^ ]*\)$/\1/p' |
		{ if [ "$with_modules" = 1 ]; then cat; else grep -v '^linux-modules-' || true; fi; } |
		{ if [ -n "$a" ]; then sed "s/\(:$IMAGE_ARCH\)\{0,1\}\$/$a/"; else cat; fi; }
}

# The image: boot image and module metadata (and modules with --modules).
unpack_image() {
	local pkg=$1 dir=$2 with_modules=$3 tmp deb
	if [ ! -f "$dir/.done" ]; then
		tmp=$(mktemp -d "$cache/kernels/.dl.XXXXXX")
		mapfile -t parts < <(image_parts "$pkg" 0)
		download "$tmp" "${parts[@]}"
		mkdir -p "$tmp/root"
		for deb in "$tmp"/*.deb; do
			dpkg-deb --fsys-tarfile "$deb" |
				tar -x -C "$tmp/root" --wildcards --no-wildcards-match-slash \
					'./boot/vmlinuz-*' './lib/modules/*/modules.*' \
					'./usr/lib/modules/*/modules.*' './usr/lib/modules/*/vmlinuz' \
					'./usr/lib/modules/*/config' 2>/dev/null || true
		done
		normalize "$tmp/root"
		ls "$tmp"/root/boot/vmlinuz-* >/dev/null
		rm -rf "$dir"
		mv "$tmp/root" "$dir"
		rm -rf "$tmp"
		touch "$dir/.done"
	fi
	if [ "$with_modules" = 1 ] && [ ! -f "$dir/.modules" ]; then
		tmp=$(mktemp -d "$cache/kernels/.dl.XXXXXX")
		mapfile -t parts < <(image_parts "$pkg" 1 | grep -v -e '^linux-binary-' -e '^linux-base-')
		download "$tmp" "${parts[@]}"
		for deb in "$tmp"/*.deb; do
			dpkg-deb --fsys-tarfile "$deb" |
				tar -x -C "$dir" --wildcards './lib/modules/*/kernel/*' \
					'./usr/lib/modules/*/kernel/*' 2>/dev/null || true
		done
		normalize "$dir"
		rm -rf "$tmp"
		ls -d "$dir"/lib/modules/*/kernel >/dev/null
		touch "$dir/.modules"
	fi
}

# normalize ROOT: one layout whatever the package's: boot/vmlinuz-KREL and
# lib/modules/KREL (sid puts both under usr/lib/modules/KREL).
normalize() {
	local r=$1 m krel
	for m in "$r"/usr/lib/modules/*/; do
		[ -d "$m" ] || continue
		krel=$(basename "$m")
		if [ -f "$m/vmlinuz" ]; then
			mkdir -p "$r/boot"
			mv "$m/vmlinuz" "$r/boot/vmlinuz-$krel"
		fi
		mkdir -p "$r/lib/modules/$krel"
		cp -a "$m"/. "$r/lib/modules/$krel/"
		rm -rf "$m"
	done
	rm -rf "$r/usr/lib/modules"
}

# The headers: the concrete linux-headers-<ver>-<flavour> package and what a
# module build needs of its dependencies (its linux-headers-<ver>-common tree,
# linux-kbuild-<ver>), unpacked together into one root.  Never installed:
# Debian 12's 6.12 headers depend on their linux-image, whose installation
# would run update-initramfs and add boot entries to this machine.
# A foreign flavour's (arm64) dependencies are named with their
# architecture: the -common tree is arch-independent and linux-kbuild is
# wanted for this host (its programs run here), of the headers' version
# where the archive still has it.
unpack_headers() {
	local hpkg=$1 hroot=$2 arch=${3:-} tmp deb l t ver i
	[ -f "$hroot/.done" ] && return 0
	mapfile -t hdeps < <(apt-cache depends "$hpkg${arch:+:$arch}" 2>/dev/null |
		sed -e 's/<\(.*\)>/\1/' -e "s/:${arch:-none}\$//" |
		sed -n 's/^ *|\{0,1\}Depends: \(linux-\(headers\|kbuild\)-[0-9][^ ]*\)$/\1/p' | sort -u)
	[ ${#hdeps[@]} -gt 0 ] ||
		{ echo "kernel.sh: cannot resolve the dependencies of $hpkg" >&2; exit 1; }
	if [ -n "$arch" ]; then
		ver=$(apt-cache show "$hpkg:$arch" 2>/dev/null | sed -n 's/^Version: //p' | head -n1)
		for i in "${!hdeps[@]}"; do
			[[ ${hdeps[$i]} == linux-kbuild-* ]] &&
				apt-cache show "${hdeps[$i]}=$ver" >/dev/null 2>&1 &&
				hdeps[$i]=${hdeps[$i]}=$ver
		done
		hpkg=$hpkg:$arch
	fi
	tmp=$(mktemp -d "$cache/kernels/.dl.XXXXXX")
	download "$tmp" "$hpkg" "${hdeps[@]}"
	hpkg=${hpkg%:*}
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
	# make it relative to the Makefile itself.  7.x's also names its own
	# directory as the output tree: that is where it is now.
	sed -i -e 's|^include /usr/src/\(.*\)$|include $(dir $(lastword $(MAKEFILE_LIST)))../\1|' \
		-e "s|^KBUILD_OUTPUT=/usr/src/.*\$|KBUILD_OUTPUT=$hroot/usr/src/$hpkg|" \
		"$tmp/root/usr/src/$hpkg/Makefile"
	# what was unpacked, with versions (a rebuilt package keeps its name)
	for deb in "$tmp"/*.deb; do
		dpkg-deb -f "$deb" Package Version | paste -sd' '
	done >"$tmp/root/.packages"
	touch "$tmp/root/.done"
	rm -rf "$hroot"
	mv -T "$tmp/root" "$hroot" 2>/dev/null || [ -f "$hroot/.done" ] ||
		{ echo "kernel.sh: cannot move the headers into $hroot" >&2; rm -rf "$tmp"; exit 1; }
	rm -rf "$tmp"
}

# make check runs two lanes, and both may fill the same cache entry.
mkdir -p "$cache/kernels"
exec 9>"$cache/kernels/.lock"
flock 9

if [ "$name" = --headers ]; then
	hpkg=${2:?usage: kernel.sh --headers PACKAGE [SUITE]}
	harch=
	[[ $hpkg == *-arm64 ]] && harch=arm64
	use_suite "${3:-}" $harch
	unpack_headers "$hpkg" "$cache/kernels/$hpkg" $harch
	kdir=$cache/kernels/$hpkg/usr/src/$hpkg
	[ -f "$kdir/Makefile" ] || { echo "kernel.sh: $kdir/Makefile missing" >&2; exit 1; }
	echo "KREL=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$kdir/include/generated/utsrelease.h")"
	echo "KDIR=$kdir"
	# another suite's arm64 headers: its cross build root
	echo "BUILDROOT=${suite:+$suite${harch:+-$harch}}"
	exit 0
fi

if [ "$name" = --image ]; then
	pkg=${2:?usage: kernel.sh --image PACKAGE [SUITE]}
	IMAGE_ARCH=
	[[ $pkg == *-arm64 ]] && IMAGE_ARCH=arm64
	use_suite "${3:-}" $IMAGE_ARCH
	dir=$cache/kernels/$pkg
	unpack_image "$pkg" "$dir" 0
	vmlinuz=$(ls "$dir"/boot/vmlinuz-* | head -n1)
	echo "KREL=${vmlinuz##*/vmlinuz-}"
	echo "VMLINUZ=$vmlinuz"
	echo "MODROOT=$dir"
	exit 0
fi

meta= hmeta= msuite=
for i in "${!KERNEL_NAMES[@]}"; do
	if [ "${KERNEL_NAMES[$i]}" = "$name" ]; then
		meta=${KERNEL_IMAGE_METAS[$i]}
		hmeta=${KERNEL_HEADER_METAS[$i]}
		msuite=${KERNEL_SUITES[$i]:-}
	fi
done
[ -n "$meta" ] || { echo "kernel.sh: unknown kernel '$name'" >&2; exit 2; }
use_suite "$msuite"

pkg=$(resolve "$meta")
hpkg=$(resolve "$hmeta")
dir=$cache/kernels/$pkg
unpack_image "$pkg" "$dir" "$([ "${2:-}" = --modules ] && echo 1 || echo 0)"
unpack_headers "$hpkg" "$cache/kernels/$hpkg"

vmlinuz=$(ls "$dir"/boot/vmlinuz-* | head -n1)
krel=${vmlinuz##*/vmlinuz-}
kdir=$cache/kernels/$hpkg/usr/src/$hpkg
[ -f "$kdir/Makefile" ] || { echo "kernel.sh: $kdir/Makefile missing" >&2; exit 1; }
echo "KREL=$krel"
echo "VMLINUZ=$vmlinuz"
echo "KDIR=$kdir"
echo "MODROOT=$dir"
echo "BUILDROOT=$suite"
