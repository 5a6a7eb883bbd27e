#!/usr/bin/env bash
# Debian sid's binutils, unpacked (never installed), for building SFrame v3
# test programs on a Debian 12 host whose binutils (2.40) writes v1.
#
# The packages come from this machine's own Debian mirror through a private
# apt configuration under the cache directory (scripts/apt-suite.sh sid), so
# the system's apt state (lists, caches, status) is never touched. They are unpacked with dpkg-deb -x, together with sid's libc and
# every library that sid's as/ld/objdump/readelf load, and each tool gets a
# wrapper that starts it through the unpacked tree's own dynamic loader with
# --library-path, so nothing of the host's libc is mixed in. `gcc -B<dir>`
# with the printed wrapper directory then assembles and links with them.
#
# Prints the wrapper directory on stdout; everything else goes to stderr.
# Cached: a second run only checks that the wrappers still work.
set -euo pipefail

cache=${USTACK_CACHE:-/var/cache/ustack}/sid-binutils
root=$cache/root
bin=$cache/bin
aptd=$cache/dl
tools=(as ld objdump readelf nm)

log() { echo "sid-binutils: $*" >&2; }

wrappers_work() {
	[ -x "$bin/as" ] && "$bin/as" --version >/dev/null 2>&1 &&
		"$bin/ld" --version >/dev/null 2>&1
}

if wrappers_work && [ -f "$cache/version" ]; then
	echo "$bin"
	exit 0
fi

# ---- a private apt for sid (apt-suite.sh: its own sources, lists, status) --
here=$(cd "$(dirname "$0")" && pwd)
if ! APT_CONFIG=$("$here/apt-suite.sh" sid); then
	log "no apt for sid"
	exit 1
fi
export APT_CONFIG
rm -rf "$cache/apt"	# the private apt this script kept before apt-suite.sh
mkdir -p "$aptd/debs"

# The binutils binaries, and the libraries they load. Found from the
# packages' own Depends (one level for binutils, then the libraries' own),
# so a new soname in sid is followed without editing this list.
pkg_deps() { # package -> the package names of its Depends/Pre-Depends
	apt-cache depends --no-recommends --no-suggests --no-conflicts --no-breaks \
		--no-replaces --no-enhances "$1" 2>/dev/null |
		awk '$1 ~ /^(\|)?(Pre)?Depends:$/ && $2 !~ /^</ { print $2 }' | sed 's/:any$//'
}
want=(binutils binutils-x86-64-linux-gnu binutils-common libc6 libgcc-s1 libstdc++6)
declare -A seen=()
queue=("${want[@]}")
for ((i = 0; i < ${#queue[@]} && i < 200; i++)); do
	p=${queue[$i]}
	[ -n "${seen[$p]:-}" ] && continue
	seen[$p]=1
	while read -r d; do
		case $d in
		# Not needed to run the tools, and large or interactive.
		debconf | debconf-2.0 | cdebconf | perl* | dpkg | install-info | gcc-*-base) continue ;;
		esac
		[ -z "${seen[$d]:-}" ] && queue+=("$d")
	done < <(pkg_deps "$p")
done
pkgs=("${!seen[@]}")
log "downloading ${pkgs[*]}"
rm -f "$aptd/debs"/*.deb
if ! (cd "$aptd/debs" && apt-get -q download "${pkgs[@]}" >"$aptd/download.log" 2>&1); then
	log "apt-get download failed: $(tail -n 3 "$aptd/download.log" | tr '\n' ' ')"
	exit 1
fi

rm -rf "$root.new"
mkdir -p "$root.new"
: >"$cache/packages.new"
for d in "$aptd/debs"/*.deb; do
	dpkg-deb -x "$d" "$root.new"
	dpkg-deb -f "$d" Package Version | paste -sd' ' >>"$cache/packages.new"
done
mv "$cache/packages.new" "$cache/packages"
rm -rf "$root"
mv "$root.new" "$root"

loader=$root/lib64/ld-linux-x86-64.so.2
[ -e "$loader" ] || loader=$root/usr/lib64/ld-linux-x86-64.so.2
if [ ! -e "$loader" ]; then
	log "no dynamic loader in the unpacked tree"
	exit 1
fi
libpath=$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu

mkdir -p "$bin"
for t in "${tools[@]}"; do
	real=$root/usr/bin/x86_64-linux-gnu-$t
	[ -e "$real" ] || real=$root/usr/bin/$t
	# as and ld are reached by gcc -B as plain names; the ld variants too.
	cat >"$bin/$t" <<EOF
#!/bin/sh
# sid's $t from $root, through sid's own loader and libraries.
exec "$loader" --library-path "$libpath" "$real" "\$@"
EOF
	chmod +x "$bin/$t"
done
ln -sf ld "$bin/ld.bfd"

# Missing libraries show here, not at the first gcc -B.
for t in "${tools[@]}"; do
	if ! "$bin/$t" --version >/dev/null 2>"$cache/$t.err"; then
		log "$t does not run: $(head -n 2 "$cache/$t.err" | tr '\n' ' ')"
		exit 1
	fi
done
"$bin/as" --version | head -n 1 >"$cache/version"
# The .debs (170 MB) are needed only to fetch again; the tree and the
# package list stay (and apt-suite.sh's lists, shared with kernel.sh).
rm -rf "$aptd" "$cache"/*.err
log "$(cat "$cache/version")"
echo "$bin"
