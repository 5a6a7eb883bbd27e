#!/usr/bin/env bash
# Build (once, cached) the ustack debug kernel and print its shell assignments:
#   KREL=<uname -r>  VMLINUZ=<bzImage>  KDIR=<build dir for out-of-tree modules>
#   MODROOT=<dir holding lib/modules/KREL>
# The kernel is tinyconfig of Debian's linux-source-6.1 plus
# scripts/debug-kernel.config (lockdep, PROVE_RCU, DEBUG_ATOMIC_SLEEP, KASAN,
# UBSAN, kmemleak, DEBUG_LIST). It lives in
#   ${USTACK_CACHE:-/var/cache/ustack}/debug-kernel/<key>/
# keyed by the fragment, the source package version, the compiler and this
# recipe. Only the four assignments go to stdout; build output goes to
# <key>/build.log (its tail to stderr on failure).
#
# Usage: scripts/debug-kernel.sh [--key]   (--key: print the cache dir only)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
frag=$here/debug-kernel.config
tarball=/usr/src/linux-source-6.1.tar.xz
pkg=linux-source-6.1
jobs=${USTACK_JOBS:-2}
recipe=1	# bump when the build steps below change
cache=${USTACK_CACHE:-/var/cache/ustack}/debug-kernel

die() { echo "debug-kernel: $*" >&2; exit 1; }

if [ ! -r "$tarball" ]; then
	bash "$here/deps.sh" check >&2 || true
	[ -r "$tarball" ] || die "$tarball missing (install $pkg)"
fi
pkgver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) ||
	die "$pkg not installed"
ccver=$(gcc --version | head -1)
ident="recipe=$recipe pkg=$pkgver cc=$ccver"
key=$( { echo "$ident"; cat "$frag"; } | sha256sum | cut -c1-16)
dir=$cache/$key
src=$cache/src-$pkgver
build=$dir/build
log=$dir/build.log

if [ "${1:-}" = --key ]; then
	echo "$dir"
	exit 0
fi

emit() {
	local krel
	krel=$(cat "$build/include/config/kernel.release")
	echo "KREL=$krel"
	echo "VMLINUZ=$build/arch/x86/boot/bzImage"
	echo "KDIR=$build"
	echo "MODROOT=$dir/modroot"
}

[ -f "$dir/done" ] && { emit; exit 0; }

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
[ -f "$dir/done" ] && { emit; exit 0; }

# Check that every option of the fragment has its value in .config.
check_config() {
	local cfg=$1 bad=0 line sym
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF -- "$line" "$cfg" || {
				echo "debug-kernel: option lost: $line (have: $(grep -E "^(# )?${line%%=*}[= ]" "$cfg" || echo unset))" >&2
				bad=1
			}
			;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			if grep -qE "^$sym=" "$cfg"; then
				echo "debug-kernel: option should be unset: $(grep -E "^$sym=" "$cfg")" >&2
				bad=1
			fi
			;;
		esac
	done <"$frag"
	return $bad
}

start=$(date +%s)
if [ ! -f "$src/.extracted" ]; then
	echo "debug-kernel: extracting $tarball" >&2
	rm -rf "$src" "$cache/linux-source-6.1"
	tar -xJf "$tarball" -C "$cache"
	mv "$cache/linux-source-6.1" "$src"
	touch "$src/.extracted"
fi

rm -rf "$dir"
mkdir -p "$dir"
# Seed from the newest finished build of the same source and compiler (an
# older fragment): kbuild then recompiles only what the changed options touch.
seed=
for d in $(ls -td "$cache"/*/done 2>/dev/null); do
	d=${d%/done}
	if [ "$(cat "$d/ident" 2>/dev/null)" = "$ident" ]; then
		seed=$d
		break
	fi
done
if [ -n "$seed" ]; then
	echo "debug-kernel: seeding from $seed" >&2
	cp -a "$seed/build" "$build"
	rm -rf "$build/tools/objtool"	# its dependency files hold absolute paths
else
	mkdir -p "$build"
fi
echo "$ident" >"$dir/ident"
echo "debug-kernel: building $dir (log: $log)" >&2
fail() {
	tail -n 40 "$log" >&2
	die "$1 failed (full log: $log)"
}
k() { make -C "$src" O="$build" ARCH=x86_64 "$@" >>"$log" 2>&1; }
k tinyconfig || fail tinyconfig
cat "$frag" >>"$build/.config"
k olddefconfig || fail olddefconfig
check_config "$build/.config" || die "fragment options not applied (see above)"
k -j"$jobs" bzImage modules_prepare || fail "make bzImage"
k -j"$jobs" modules || fail "make modules"
[ -f "$build/Module.symvers" ] || die "no Module.symvers after make modules"
k INSTALL_MOD_PATH="$dir/modroot" modules_install || fail modules_install
echo "$(( $(date +%s) - start ))" >"$dir/build-seconds"
touch "$dir/done"
# Keep the two newest finished builds (another checkout may use the other).
for d in $(ls -td "$cache"/*/done 2>/dev/null | tail -n +3); do
	rm -rf "${d%/done}"
done
echo "debug-kernel: built in $(cat "$dir/build-seconds") s" >&2
emit
