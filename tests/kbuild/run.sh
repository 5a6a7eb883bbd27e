#!/usr/bin/env bash
# tests/kbuild: the module builds, without a warning, against every
# linux-headers version of each supported kernel series that Debian's
# archive still offers, as a user's DKMS would build it: Debian 12's 6.1.0-*
# (bookworm and bookworm-security differ) and 6.12.*+deb12, Debian 13's
# 6.12.*+deb13, sid's; the generic flavour of each version, and the rt
# flavour of each series' newest (USTACK_KBUILD_RT=all: every rt too).
# make check builds the edges of each series (its oldest and newest generic
# version and its rt: what compat.h's probes must tell apart); make
# check-full (USTACK_VM_ALL=1) or USTACK_KBUILD_ALL=1 builds every version.
# USTACK_KBUILD_NOT_VM=1 (make check, with the whole matrix): the versions
# its VM lanes build anyway (warnings fail there too) are not built twice,
# nor the rt flavour (its 6.12-rt lane builds one): what remains is the
# oldest version of each series.
# Headers are unpacked into the cache by scripts/kernel.sh --headers, never
# installed; another suite's are built in its build root
# (scripts/buildroot.sh) with the compiler they name.
# arm64 (issue 52): the newest arm64 headers of each series of
# USTACK_KBUILD_ARM64_SUITES (default bookworm trixie sid: 6.1.0-* and
# 6.12.*+deb12 with the host's gcc-aarch64-linux-gnu, gcc-12 as they were
# built with; 6.12.*+deb13 and sid's in the suite's cross build root,
# scripts/buildroot.sh SUITE-arm64; every version with USTACK_KBUILD_ALL;
# "" for none), cross-built the kbuild way (ARCH=arm64
# CROSS_COMPILE=aarch64-linux-gnu-, as Debian's .kernelvariables say too)
# with an amd64 linux-kbuild of the same version, held to the same rules,
# without the test hooks (nmi_test is x86's NMI IPI).  Every build is
# held to no modpost warning (an undefined symbol: a module that cannot
# load).
# bash tests/kbuild/run.sh [NAME...]: NAME is the kernel release
# (6.1.0-50-amd64) or the suite's list (suite-trixie: it was read).
#   USTACK_KBUILD_JOBS=2       builds side by side (one make job each)
#   USTACK_KBUILD_SUITES="bookworm trixie sid"
# A version already built from exactly these sources, headers and compiler
# passes from the record of that build (cache/kbuild/ok/); the first run
# after a change builds everything.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/select.sh" kbuild "$@"
cache=${USTACK_CACHE:-/var/cache/ustack}
cache=$(realpath -m "$cache")
jobs=${USTACK_KBUILD_JOBS:-2}
suites=${USTACK_KBUILD_SUITES:-bookworm trixie sid}
host_suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
mkdir -p "$cache/kbuild/ok"
work=$(mktemp -d "$cache/kbuild/run.XXXXXX")
on_exit 'rm -rf "$work"'
t0=$SECONDS

# headers_of SUITE: every concrete amd64 headers package of the suite, the
# generic flavour of each version and the newest rt of each series (a
# series: the kernel's major.minor, and Debian's +debN).
headers_of() {
	local conf=
	if [ "$1" != "$host_suite" ]; then
		conf=$("$top/scripts/apt-suite.sh" "$1") || return 1
	fi
	APT_CONFIG=${conf:-${APT_CONFIG:-}} apt-cache search --names-only \
		'^linux-headers-[0-9][0-9a-z.+-]*-amd64$' 2>/dev/null | cut -d' ' -f1 |
		grep -E '^linux-headers-[0-9]+\.[0-9]+\.[0-9]' |
		grep -v -e '-cloud-amd64$' -e '-common' | sort -V |
		awk -v all="${USTACK_KBUILD_RT:-}" '
			{ v = $0; sub(/^linux-headers-/, "", v)
			  match(v, /^[0-9]+\.[0-9]+/); s = substr(v, 1, RLENGTH)
			  if (match(v, /\+deb[0-9]+/)) s = s substr(v, RSTART, RLENGTH) }
			/-rt-amd64$/ { rt[s] = $0; if (all == "all") print; next }
			{ print }
			END { if (all != "all") for (s in rt) print rt[s] }' | sort -V |
		edges
}

# edges: of each series' generic versions the oldest and the newest, unless
# every version is asked for.
edges() {
	if [ -n "${USTACK_KBUILD_ALL:-}${USTACK_VM_ALL:-}" ]; then
		cat
		return
	fi
	awk '{ v = $0; sub(/^linux-headers-/, "", v)
	       match(v, /^[0-9]+\.[0-9]+/); s = substr(v, 1, RLENGTH)
	       if (match(v, /\+deb[0-9]+/)) s = s substr(v, RSTART, RLENGTH)
	       if (/-rt-amd64$/) { print; next }
	       if (!(s in first)) { first[s] = $0; order[++n] = s }
	       last[s] = $0 }
	     END { for (i = 1; i <= n; i++) { print first[order[i]]
	           if (last[order[i]] != first[order[i]]) print last[order[i]] } }' |
		sort -V
}

# arm64_of SUITE: its arm64 headers packages, generic flavour: the newest
# of each series, every one with USTACK_KBUILD_ALL (or check-full).
arm64_of() {
	local conf
	conf=$("$top/scripts/apt-suite.sh" "$1" arm64) || return 1
	APT_CONFIG=$conf apt-cache search --names-only \
		'^linux-headers-[0-9][0-9a-z.+-]*-arm64$' 2>/dev/null | cut -d' ' -f1 |
		grep -E '^linux-headers-[0-9]+\.[0-9]+\.[0-9]' |
		grep -v -e '-cloud-arm64$' -e '-rt-arm64$' -e '-common' | sort -V |
		if [ -n "${USTACK_KBUILD_ALL:-}${USTACK_VM_ALL:-}" ]; then cat; else
			awk '{ v = $0; sub(/^linux-headers-/, "", v)
			       match(v, /^[0-9]+\.[0-9]+/); s = substr(v, 1, RLENGTH)
			       if (match(v, /\+deb[0-9]+/)) s = s substr(v, RSTART, RLENGTH)
			       if (!(s in last)) order[++n] = s
			       last[s] = $0 }
			     END { for (i = 1; i <= n; i++) print last[order[i]] }'
		fi
}

# The sources, as vm-test.sh copies them, and their fingerprint.
src=$work/src
mkdir -p "$src"
(cd "$top" && find module include \( -name '*.[ch]' -o -name Kbuild -o -name Makefile -o -name '*.sh' -o -name '*.mk' \) -print0 |
	cpio --null -pdm --quiet "$src")
srcsum=$(cd "$src" && find . -type f | sort | xargs cat | sha256sum | cut -c1-16)

# The kernels the VM lanes build the module against, when asked.
vm_krels=" "
if [ -n "${USTACK_KBUILD_NOT_VM:-}" ] && [ -z "${USTACK_KBUILD_ALL:-}${USTACK_VM_ALL:-}" ]; then
	. "$top/scripts/kernels.conf"
	for n in "${KERNEL_NAMES[@]}"; do
		vm_krels+="$("$top/scripts/kernel.sh" "$n" 2>/dev/null | sed -n 's/^KREL=//p') "
	done
fi

# Every version: unpacked (one at a time: kernel.sh locks the cache).
: >"$work/list"

# list_headers KREL PKG SUITE: PKG's headers unpacked (scripts/kernel.sh),
# KREL's line in the build list: "krel suite kdir buildroot"
list_headers() {
	local info
	if ! info=$("$top/scripts/kernel.sh" --headers "$2" "$3" 2>"$work/$1.err"); then
		echo "FAIL: kbuild/$1: cannot unpack $2: $(tail -n1 "$work/$1.err")"
		return
	fi
	echo "$1 $3 $(echo "$info" | sed -n 's/^KDIR=//p') $(echo "$info" | sed -n 's/^BUILDROOT=//p')" >>"$work/list"
}
for s in $suites; do
	if ! pkgs=$(headers_of "$s") || [ -z "$pkgs" ]; then
		echo "FAIL: kbuild/suite-$s: no linux-headers packages listed for $s"
		continue
	fi
	want "suite-$s" && echo "PASS: kbuild/suite-$s: $(echo "$pkgs" | wc -l) headers packages"
	for p in $pkgs; do
		krel=${p#linux-headers-}
		want "$krel" "suite-$s" || continue
		if [[ $vm_krels == *" $krel "* ]]; then
			echo "kbuild: $krel is built by make check's VM lane"
			continue
		fi
		# (and the rt flavour by the 6.12-rt lane; every rt in check-full)
		if [ "$vm_krels" != " " ] && [[ $krel == *-rt-amd64 ]]; then
			echo "kbuild: $krel: the rt flavour is built by make check's 6.12-rt lane"
			continue
		fi
		list_headers "$krel" "$p" "$s"
	done
done
for s in ${USTACK_KBUILD_ARM64_SUITES-bookworm trixie sid}; do
	want arm64 "suite-$s-arm64" "*-arm64" || continue
	if ! pkgs=$(arm64_of "$s") || [ -z "$pkgs" ]; then
		echo "FAIL: kbuild/suite-$s-arm64: no arm64 linux-headers packages listed for $s"
		continue
	fi
	want "suite-$s-arm64" && echo "PASS: kbuild/suite-$s-arm64: $(echo "$pkgs" | wc -l) headers packages"
	for p in $pkgs; do
		krel=${p#linux-headers-}
		want "$krel" arm64 "suite-$s-arm64" || continue
		# bookworm's: the host's cross compiler; trixie's: its build root
		list_headers "$krel" "$p" "$s"
	done
done

# unprefixed KO: the module's own global symbols that lack the ustack_
# prefix (every global of a module shares the kernel's namespace with
# every other module's and with kallsyms' readers), space-separated;
# what kbuild itself defines (the module's struct, its init and exit
# aliases, modinfo's and modversions' entries) is not the module's.
unprefixed() {
	nm --defined-only "$1" | awk '
		$2 !~ /^[A-TV-Z]$/ { next }
		# a function padding or CFI symbol goes with its function
		{ sub(/^(__pfx_|__cfi_)/, "", $3) }
		$3 ~ /^(ustack_|__this_module$|init_module$|cleanup_module$)/ { next }
		$3 ~ /^(__UNIQUE_ID_|__mod_|__crc_|__ksymtab|__kstrtab|____versions)/ { next }
		# the linker makes these: bounds of a section (alloc_tags)
		$3 ~ /^__(start|stop)_/ { next }
		# made by TRACE_EVENT(), named after the events of the contract
		$3 ~ /^(__tracepoint_|__traceiter_|__probestub_|__SCK__tp_func_|__SCT__tp_func_)/ { next }
		{ printf "%s%s", n++ ? " " : "", $3 }'
}

# A build's modpost complaints.
modpost_says() {
	grep -E '^(WARNING|ERROR): modpost:' "$1"
}

# build KREL SUITE KDIR [BUILDROOT]: one version, its verdict on stdout.
build() {
	local krel=$1 kdir=$3 root=${4:-} d=$work/$1 t=$SECONDS key cc bad
	local cross=() hooks=USTACK_TEST_HOOKS=y
	if [[ $krel == *-arm64 ]]; then
		cross=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
		hooks=USTACK_TEST_HOOKS=n
	fi
	# what decides the result: the sources, the headers, the compiler
	# (a build root's packages: made first, if this is its first use)
	[ -z "$root" ] || "$top/scripts/buildroot.sh" "$root" >/dev/null 2>&1
	cc=$( (cat "$kdir/../../../.packages" 2>/dev/null
	       if [ -n "$root" ]; then cat "$cache/buildroot/$root/.packages"
	       else dpkg-query -W 'gcc-*' 'binutils*' 'libc6-dev' 2>/dev/null; fi) |
		sha256sum | cut -c1-16)
	key=$cache/kbuild/ok/$krel.$srcsum.$cc
	if [ -f "$key" ]; then
		echo "PASS: kbuild/$krel (built from the same sources in $(cat "$key") s before)"
		return
	fi
	cp -a "$src" "$d"
	if [ -n "$root" ]; then
		set -- "$top/scripts/buildroot.sh" "$root" make
	else
		set -- make
	fi
	if ! nice "$@" -C "$kdir" M="$d/module" "$hooks" ${cross[@]+"${cross[@]}"} \
		modules >"$d.log" 2>&1; then
		echo "FAIL: kbuild/$krel: does not build ($(grep -m1 -E 'error|Error' "$d.log"))"
	elif grep -q 'warning:' "$d.log"; then
		echo "FAIL: kbuild/$krel: $(grep -m1 'warning:' "$d.log")"
	elif bad=$(modpost_says "$d.log") && [ -n "$bad" ]; then
		echo "FAIL: kbuild/$krel: $(echo "$bad" | head -n1)"
	elif [ ! -f "$d/module/ustack.ko" ]; then
		echo "FAIL: kbuild/$krel: no ustack.ko"
	elif bad=$(unprefixed "$d/module/ustack.ko") && [ -n "$bad" ]; then
		echo "FAIL: kbuild/$krel: global symbols without the ustack_ prefix: $bad"
	else
		echo "PASS: kbuild/$krel ($((SECONDS - t)) s)"
		echo "$((SECONDS - t))" >"$key"
	fi
	# a failed build's log stays for reading
	mkdir -p "$top/build/logs"
	cp "$d.log" "$top/build/logs/kbuild-$krel.log"
	rm -rf "$d"
}

# Side by side, $jobs at a time (waiting for these builds alone: the
# selection's results filter is a child too).
pids=()
while read -r krel s kdir root; do
	build "$krel" "$s" "$kdir" "$root" &
	pids+=($!)
	if [ ${#pids[@]} -ge "$jobs" ]; then
		wait -n "${pids[@]}"
		alive=()
		for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive+=("$p"); done
		pids=(${alive[@]+"${alive[@]}"})
	fi
done <"$work/list"
for p in ${pids[@]+"${pids[@]}"}; do wait "$p"; done
echo "kbuild: $(wc -l <"$work/list") versions in $((SECONDS - t0)) s"
