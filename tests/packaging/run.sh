#!/usr/bin/env bash
# Packaging: `make deb` builds ustack-dkms and ustack-tools, lintian-clean;
# both install on this machine, DKMS builds ustack.ko for every kernel of the
# matrix (none of them running here) against the headers scripts/kernel.sh
# unpacks into its cache, the tools run, and removing and purging the
# packages leaves nothing behind.  `make install DESTDIR=` puts every
# artifact where the README says.  Safe to run again: it starts by purging
# what an earlier run may have left.
# bash tests/packaging/run.sh [NAME...]: version, deb-*, lintian,
# dkms-build-<kernel>, tools-*, make-install, commit-subjects, checkpatch
# (tests/select.sh).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/select.sh" packaging "$@"
. "$top/scripts/kernels.conf"
ver=$(sed -n 's/^VERSION := //p' "$top/Makefile")
tmp=$(mktemp -d)
on_exit 'rm -rf "$tmp"'
pkgs=(ustack-dkms ustack-tools)
# What the packages install, and what DKMS makes of them.
leftovers() {
	local f
	for f in /usr/src/ustack-* /var/lib/dkms/ustack /lib/modules/*/updates/dkms/ustack.ko* \
		 /usr/bin/sframe-register /usr/bin/ustack-report /usr/sbin/ustackd \
		 /usr/lib/libsframe-register.so /usr/include/ustack.h /usr/include/linux/ustack.h \
		 /usr/lib/ustack/libustack-jvm.so /lib/systemd/system/ustackd.service /etc/systemd/system/*/ustackd.service \
		 /var/lib/systemd/deb-systemd-helper-enabled/ustackd.service \
		 /usr/share/man/man*/ustack* /usr/share/man/man*/sframe-register* \
		 /usr/share/doc/ustack-dkms /usr/share/doc/ustack-tools; do
		[ -e "$f" ] && echo "$f"
	done
	for p in "${pkgs[@]}"; do
		dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^.[^n]' && echo "package $p"
	done
}
purge() {	# also what `dkms add .` of a source tree leaves
	dpkg --purge "${pkgs[@]}" >/dev/null 2>&1
	dkms remove ustack/"$ver" --all >/dev/null 2>&1
	rm -rf "/usr/src/ustack-$ver"
}

# `dkms add .` from the tree and the packages must agree on the version.
dver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
if [ "$dver" = "$ver" ]; then
	echo "PASS: packaging/version"
else
	echo "FAIL: packaging/version: dkms.conf says $dver, the Makefile's VERSION $ver"
fi

if ! want deb 'deb-*' lintian 'dkms-build-*' 'tools-*'; then
	:
elif [ "$(id -u)" != 0 ] || ! command -v dkms >/dev/null || ! command -v dpkg-buildpackage >/dev/null; then
	echo "FAIL: packaging/deb: needs root, dkms and dpkg-buildpackage (scripts/deps.sh check)"
elif ! make -s -C "$top" deb >"$tmp/deb.log" 2>&1 ||
     ! dkms_deb=$(ls "$top"/build/deb/ustack-dkms_"$ver"_all.deb) ||
     ! tools_deb=$(ls "$top"/build/deb/ustack-tools_"$ver"_amd64.deb); then
	echo "FAIL: packaging/deb-build: make deb failed: $(tail -n2 "$tmp/deb.log" | paste -sd' ')"
else
	echo "PASS: packaging/deb-build"
	# Errors and warnings fail; overrides (each with its reason) are allowed.
	lintian --pedantic "$top/build/deb/ustack_${ver}_amd64.changes" >"$tmp/lintian.log" 2>&1
	if grep -qE '^[EW]: ' "$tmp/lintian.log"; then
		echo "FAIL: packaging/lintian: $(grep -E '^[EW]: ' "$tmp/lintian.log" | head -n3 | paste -sd' ')"
	else
		echo "PASS: packaging/lintian"
	fi

	# One run at a time on this machine: they share dpkg's database and DKMS's tree.
	exec 8>/var/lock/ustack-packaging-test
	flock 8
	purge
	if ! apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 \
	     "$dkms_deb" "$tools_deb" >"$tmp/install.log" 2>&1; then
		echo "FAIL: packaging/deb-install: $(grep -m1 -E '^E: |rror' "$tmp/install.log")"
	else
		echo "PASS: packaging/deb-install"
		for name in "${KERNEL_NAMES[@]}"; do
			if ! kinfo=$("$top/scripts/kernel.sh" "$name" 2>"$tmp/kernel.err"); then
				echo "FAIL: packaging/dkms-build-$name: $(tail -n1 "$tmp/kernel.err")"
				continue
			fi
			eval "$kinfo"
			# Built by the package's postinst if this machine has that
			# kernel's headers installed: build again, against the cache.
			dkms unbuild ustack/"$ver" -k "$KREL" >/dev/null 2>&1
			dkms build ustack/"$ver" -k "$KREL" --kernelsourcedir "$KDIR" >"$tmp/build.log" 2>&1
			ko=$(ls /var/lib/dkms/ustack/"$ver"/"$KREL"/x86_64/module/ustack.ko* 2>/dev/null | head -n1)
			if [ -n "$ko" ] && [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$KREL" ]; then
				echo "PASS: packaging/dkms-build-$name"
			else
				echo "FAIL: packaging/dkms-build-$name: $(tail -n2 "$tmp/build.log" | paste -sd' ')"
			fi
		done

		if /usr/bin/ustack-report --help 2>&1 | grep -q '^usage: ustack-report'; then
			echo "PASS: packaging/tools-report"
		else
			echo "FAIL: packaging/tools-report: ustack-report --help"
		fi
		if /usr/sbin/ustackd --help 2>&1 | grep -q '^usage: ustackd' &&
		   [ -f /lib/systemd/system/ustackd.service ]; then
			echo "PASS: packaging/tools-ustackd"
		else
			echo "FAIL: packaging/tools-ustackd: ustackd --help, or no ustackd.service"
		fi
		printf 'int f(int x) { return x * 2; }\n' >"$tmp/t.c"
		if gcc -O1 -Wa,--gsframe -c "$tmp/t.c" -o "$tmp/t.o" &&
		   /usr/bin/sframe-register dump "$tmp/t.o" 2>&1 | grep -q 'Num FDEs: 1'; then
			echo "PASS: packaging/tools-sframe"
		else
			echo "FAIL: packaging/tools-sframe: sframe-register dump of a one-function object"
		fi
	fi

	# dpkg -r, then purge: nothing of ustack is left.
	dpkg -r "${pkgs[@]}" >"$tmp/remove.log" 2>&1
	dpkg --purge "${pkgs[@]}" >>"$tmp/remove.log" 2>&1
	left=$(leftovers | paste -sd' ')
	if [ -z "$left" ]; then
		echo "PASS: packaging/deb-remove"
	else
		echo "FAIL: packaging/deb-remove: left behind: $left"
		purge
	fi
	flock -u 8
fi

# make install into a staging root, against the 6.1 headers.
if ! want make-install; then
	:
elif ! eval "$("$top/scripts/kernel.sh" "${KERNEL_NAMES[0]}")"; then
	echo "FAIL: packaging/make-install: cannot prepare kernel ${KERNEL_NAMES[0]}"
elif git -C "$top" ls-files -z --cached --others --exclude-standard |
	(cd "$top" && cpio --null -pdm --quiet "$tmp/inst-src") 2>/dev/null &&
	make -s -C "$tmp/inst-src" KDIR="$KDIR" install DESTDIR="$tmp/root" >"$tmp/install.log" 2>&1; then
	missing=
	for f in "lib/modules/$KREL/updates/ustack.ko" usr/bin/sframe-register usr/bin/ustack-report \
		 usr/lib/libsframe-register.so usr/include/ustack.h usr/include/linux/ustack.h \
		 usr/sbin/ustackd lib/systemd/system/ustackd.service usr/lib/ustack/libustack-jvm.so; do
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

# Commits say what in a subject of at most 72 characters (and why in
# their body): every commit since the rule was made (5e1f0bc's children).
if ! want commit-subjects; then
	:
elif ! git -C "$top" cat-file -e 5e1f0bc 2>/dev/null; then
	echo "FAIL: packaging/commit-subjects: no history (a shallow clone?)"
else
	long=$(git -C "$top" log --format='%h %s' 5e1f0bc..HEAD | awk 'length($0) - 8 > 72' | head -n 3)
	if [ -z "$long" ]; then
		echo "PASS: packaging/commit-subjects"
	else
		echo "FAIL: packaging/commit-subjects: over 72 characters: $(echo "$long" | paste -sd'|')"
	fi
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
