#!/usr/bin/env bash
# Packaging: DKMS builds ustack.ko for every kernel of the matrix (none of
# them running here), and `make install DESTDIR=` puts every artifact where
# the README says; the module passes checkpatch.
# bash tests/packaging/run.sh [NAME...]: dkms-add, dkms-build-<kernel>,
# make-install, checkpatch (tests/select.sh).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/select.sh" packaging "$@"
. "$top/scripts/kernels.conf"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
tmp=$(mktemp -d)
on_exit 'rm -rf "$tmp"'

if ! want dkms-add 'dkms-build-*'; then
	:
elif [ "$(id -u)" != 0 ] || ! command -v dkms >/dev/null; then
	echo "FAIL: packaging/dkms: needs root and dkms"
else
	# A clean copy of the sources, as `dkms add .` from a fresh clone sees them.
	git -C "$top" ls-files -z --cached --others --exclude-standard |
		(cd "$top" && cpio --null -pdm --quiet "$tmp/src") 2>/dev/null
	dkms remove "ustack/$ver" --all >/dev/null 2>&1
	rm -rf "/usr/src/ustack-$ver"
	if ! dkms add "$tmp/src" >"$tmp/add.log" 2>&1; then
		echo "FAIL: packaging/dkms-add: $(tail -n1 "$tmp/add.log")"
	else
		echo "PASS: packaging/dkms-add"
		for name in "${KERNEL_NAMES[@]}"; do
			eval "$("$top/scripts/kernel.sh" "$name")"
			if dkms build "ustack/$ver" -k "$KREL" >"$tmp/build.log" 2>&1 &&
			   ls /var/lib/dkms/ustack/"$ver"/"$KREL"/x86_64/module/ustack.ko* >/dev/null 2>&1; then
				echo "PASS: packaging/dkms-build-$name"
			else
				echo "FAIL: packaging/dkms-build-$name: $(tail -n2 "$tmp/build.log" | paste -sd' ')"
			fi
		done
	fi
	dkms remove "ustack/$ver" --all >/dev/null 2>&1
	rm -rf "/usr/src/ustack-$ver"
fi

# make install into a staging root, against the 6.1 headers.
if want make-install; then
	eval "$("$top/scripts/kernel.sh" "${KERNEL_NAMES[0]}")"
	git -C "$top" ls-files -z --cached --others --exclude-standard |
		(cd "$top" && cpio --null -pdm --quiet "$tmp/inst-src") 2>/dev/null
fi
if ! want make-install; then
	:
elif make -s -C "$tmp/inst-src" KDIR="$KDIR" install DESTDIR="$tmp/root" >"$tmp/install.log" 2>&1; then
	missing=
	for f in "lib/modules/$KREL/updates/ustack.ko" usr/bin/sframe-register usr/bin/ustack-report \
		 usr/lib/libsframe-register.so usr/include/ustack.h usr/include/linux/ustack.h; do
		[ -f "$tmp/root/$f" ] || missing="$missing $f"
	done
	if [ -z "$missing" ]; then
		echo "PASS: packaging/make-install"
	else
		echo "FAIL: packaging/make-install: missing$missing"
	fi
else
	echo "FAIL: packaging/make-install: $(grep -m1 -i error "$tmp/install.log")"
fi

# Kernel coding style: Debian's linux-source-6.1 checkpatch.pl (a tool,
# extracted into a cache, never committed) over the module and the UAPI
# header.  Only compat.h may compare LINUX_VERSION_CODE: that is its job.
cp_dir=/var/cache/ustack/checkpatch
if [ ! -f "$cp_dir/scripts/checkpatch.pl" ] && [ -f /usr/src/linux-source-6.1.tar.xz ]; then
	mkdir -p "$cp_dir"
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$cp_dir" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch' 2>/dev/null
fi
if ! want checkpatch; then
	:
elif [ ! -f "$cp_dir/scripts/checkpatch.pl" ]; then
	echo "FAIL: packaging/checkpatch: no checkpatch.pl (linux-source-6.1 missing)"
else
	bad=
	for f in $(git -C "$top" ls-files --cached --others --exclude-standard \
		   'module/*.[ch]' include/uapi/ustack.h | sed "s|^|$top/|"); do
		ign=
		[ "${f##*/}" = compat.h ] && ign="--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON"
		out=$(perl "$cp_dir/scripts/checkpatch.pl" --no-tree --quiet --show-types $ign -f "$f" 2>&1 |
			grep -E '^(ERROR|WARNING|CHECK)')
		[ -n "$out" ] && bad="$bad ${f#$top/}: $(echo "$out" | head -n1);"
	done
	if [ -z "$bad" ]; then
		echo "PASS: packaging/checkpatch"
	else
		echo "FAIL: packaging/checkpatch:$bad"
	fi
fi
