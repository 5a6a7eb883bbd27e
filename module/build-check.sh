#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# build-check.sh KDIR KVER: say what the kernel's build tree KDIR (the
# headers of KVER) lacks for building ustack.ko, naming the Debian package
# that brings it, before kbuild fails with a message that names none
# (DKMS keeps this in its make.log).  Exit 1 when something is missing.
kdir=$1 kver=$2
missing=0
need() {	# need WHAT PACKAGE
	echo "ustack: cannot build for $kver: $1; install $2" >&2
	missing=1
}

if [ ! -f "$kdir/Makefile" ]; then
	need "no kernel headers at ${kdir:-(none)}" "linux-headers-$kver"
	exit 1
fi
# Debian's flavour tree includes its -common tree (absolute path).
common=$(sed -n 's|^include \(/[^$]*\)/Makefile$|\1|p' "$kdir/Makefile" | head -n1)
if [ -n "$common" ] && [ ! -f "$common/Makefile" ]; then
	need "$common is missing" "${common##*/}"
fi
# scripts/ and tools/ link to linux-kbuild-<version>.
if [ ! -e "$kdir/scripts/Makefile.build" ] && [ ! -e "$kdir/scripts/mod/modpost" ]; then
	kb=$(readlink "$kdir/scripts" 2>/dev/null | sed -n 's|.*/\(linux-kbuild-[^/]*\)/.*|\1|p')
	need "its build scripts ($kdir/scripts) are missing" "${kb:-the kernel's linux-kbuild package}"
fi
for f in .config include/generated/autoconf.h Module.symvers; do
	[ -f "$kdir/$f" ] || need "$kdir/$f is missing" "linux-headers-$kver again (incomplete)"
done
# The compiler the kernel was built with (Debian: gcc-<major>).
cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*/\1/p' "$kdir/.config" 2>/dev/null)
if [ -n "$cc" ] && ! command -v "$cc" >/dev/null 2>&1; then
	case $cc in
	*gcc-[0-9]*) need "no $cc, the kernel's compiler" "gcc-${cc##*gcc-}" ;;
	*clang*) need "no $cc, the kernel's compiler" "clang" ;;
	*) need "no $cc, the kernel's compiler" "$cc" ;;
	esac
fi
# Headers that carry vmlinux build modules with BTF: pahole.
if grep -q '^CONFIG_DEBUG_INFO_BTF_MODULES=y' "$kdir/.config" 2>/dev/null &&
   [ -f "$kdir/vmlinux" ] && ! command -v pahole >/dev/null 2>&1; then
	need "its modules carry BTF, made by pahole" "dwarves"
fi
exit $missing
