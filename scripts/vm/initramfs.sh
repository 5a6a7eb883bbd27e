#!/usr/bin/env bash
# initramfs.sh OUT.cpio KREL MODROOT STAGE
# Build the guest's initramfs: busybox-static, kmod, the ELF programs and
# shared libraries found in STAGE (a directory laid out like the guest's /),
# with their real shared libraries copied from this machine, and the image's
# module metadata for KREL from MODROOT.
set -euo pipefail
out=${1:?}; krel=${2:?}; modroot=${3-}; stage=${4:?}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,usr/lib,usr/local/bin,usr/local/sbin,lib64,proc,sys,dev,tmp,run,root,etc,var/cache,var/tmp}
cp /bin/busybox "$root/bin/busybox"
cp -a "$stage"/. "$root"/

# kmod for depmod/modprobe/modinfo, as on a real Debian system.
cp /usr/bin/kmod "$root/usr/bin/kmod"
for t in depmod modprobe modinfo insmod rmmod lsmod; do
	ln -sf /usr/bin/kmod "$root/usr/sbin/$t"
done

# Module metadata of the image (modules.builtin and friends), so that depmod
# and modprobe in the guest behave as on an installed system.
mkdir -p "$root/lib/modules/$krel"
if [ -n "$modroot" ] && [ -d "$modroot/lib/modules/$krel" ]; then
	cp "$modroot/lib/modules/$krel"/modules.builtin* "$root/lib/modules/$krel/" 2>/dev/null || true
	cp "$modroot/lib/modules/$krel"/modules.order "$root/lib/modules/$krel/" 2>/dev/null || true
fi

# Shared libraries of every dynamic ELF in the tree, from this machine (but
# for another suite's perf, which brings its own: vm-test.sh).
copy_lib() {
	local lib=$1
	[ -e "$root$lib" ] && return 0
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
}
while IFS= read -r f; do
	file -b "$f" | grep -q 'dynamically linked' || continue
	ldd "$f" 2>/dev/null | awk '/=> \//{print $3} /^\t\/.*ld-linux/{print $1}' |
		while IFS= read -r lib; do copy_lib "$lib"; done
done < <(find "$root" -path "$root/opt/perf-*" -prune -o \
	-type f \( -perm -u+x -o -name '*.so*' \) ! -name '*.ko' -print)
copy_lib /lib64/ld-linux-x86-64.so.2
# /lib is a symlink to usr/lib on Debian 12: keep the same layout.
if [ -d "$root/lib/x86_64-linux-gnu" ] && [ ! -L "$root/lib/x86_64-linux-gnu" ]; then
	mkdir -p "$root/usr/lib/x86_64-linux-gnu"
	cp -a "$root/lib/x86_64-linux-gnu"/. "$root/usr/lib/x86_64-linux-gnu"/
	rm -rf "$root/lib/x86_64-linux-gnu"
	ln -s /usr/lib/x86_64-linux-gnu "$root/lib/x86_64-linux-gnu"
fi

echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
echo 'nobody:x:65534:65534:nobody:/nonexistent:/bin/sh' >>"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"

(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
