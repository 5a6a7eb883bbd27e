#!/usr/bin/env bash
# unpack-suite.sh SUITE NAME PACKAGE...
# Debian packages of another suite (trixie's python3.13, sid's python3.14,
# bookworm's nodejs where the host has another), unpacked (never
# installed) with every package they depend on, libc and the dynamic
# loader included, into USTACK_CACHE/runtimes/NAME/root; prints that root.
# Its programs run through the tree's own loader:
#     ROOT/lib64/ld-linux-x86-64.so.2 --library-path ROOT/usr/lib/x86_64-linux-gnu PROG
# (ROOT/ld.sh PROG ARGS... does so), so nothing of the host's libc is
# mixed in.  Used by the VM tests that stage another runtime into the
# guest (scripts/vm-test.sh, a test's line "# runtime: NAME").
#
# The packages come from this machine's own Debian mirror through the
# suite's private apt (scripts/apt-suite.sh: its own sources, lists,
# caches and an empty status under the cache, checked with Debian's
# archive keyring).
# Cached: a second run with the same packages only checks the tree.
# Everything but the root's path goes to stderr.
set -euo pipefail

suite=${1:?usage: unpack-suite.sh SUITE NAME PACKAGE...}
name=${2:?usage: unpack-suite.sh SUITE NAME PACKAGE...}
shift 2
[ $# -gt 0 ] || { echo "usage: unpack-suite.sh SUITE NAME PACKAGE..." >&2; exit 2; }
case $suite$name in
*[!a-z0-9.-]*) echo "unpack-suite: bad suite or name" >&2; exit 2 ;;
esac
cache=${USTACK_CACHE:-/var/cache/ustack}/runtimes/$name
root=$cache/root
aptd=$cache/apt
want="$suite $*"

log() { echo "unpack-suite: $*" >&2; }

# write_ld_sh ROOT: ROOT/ld.sh PROG ARGS... runs PROG (a path inside the
# tree, or absolute) through the tree's own loader and libraries,
# wherever the tree is (the guest stages it elsewhere).  The loader is
# found through the tree's own symlinks (bookworm's lib64 one is
# absolute: it is followed inside the tree).
write_ld_sh() {
	local r=$1 p t i
	p=lib64/ld-linux-x86-64.so.2
	[ -e "$r/$p" ] || [ -L "$r/$p" ] || p=usr/lib64/ld-linux-x86-64.so.2
	i=0
	while [ -L "$r/$p" ] && [ $i -lt 10 ]; do
		t=$(readlink "$r/$p")
		case $t in
		/*) p=${t#/} ;;
		*) p=$(dirname "$p")/$t ;;
		esac
		i=$((i + 1))
	done
	if [ ! -f "$r/$p" ] || [ -L "$r/$p" ]; then
		log "no dynamic loader in the unpacked tree"
		return 1
	fi
	cat >"$r/ld.sh" <<-'EOF'
	#!/bin/sh
	# Run a program of this tree through the tree's own loader and libraries.
	r=$(cd "$(dirname "$0")" && pwd)
	p=$1
	shift
	case $p in /*) ;; *) p=$r/$p ;; esac
	exec "$r/LOADER" --library-path "$r/usr/lib/x86_64-linux-gnu:$r/lib/x86_64-linux-gnu" "$p" "$@"
	EOF
	sed -i "s|LOADER|$p|" "$r/ld.sh"
	chmod +x "$r/ld.sh"
}

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9

if [ -f "$cache/want" ] && [ "$(cat "$cache/want")" = "$want" ] &&
   [ -d "$root" ] && [ -f "$cache/packages" ]; then
	write_ld_sh "$root" || exit 1
	echo "$root"
	exit 0
fi

# ---- the suite's own private apt (apt-suite.sh), never the host's ---------
top=$(cd "$(dirname "$0")/.." && pwd)
APT_CONFIG=$("$top/scripts/apt-suite.sh" "$suite") || exit 1
export APT_CONFIG
mkdir -p "$aptd/debs"

# The packages and what they depend on (Depends, Pre-Depends), followed
# to the end, so a new soname in the suite needs no edit here.
pkg_deps() {
	apt-cache depends --no-recommends --no-suggests --no-conflicts --no-breaks \
		--no-replaces --no-enhances "$1" 2>/dev/null |
		awk '$1 ~ /^(\|)?(Pre)?Depends:$/ && $2 !~ /^</ { print $2 }' | sed 's/:any$//'
}
declare -A seen=()
queue=("$@" libc6 libgcc-s1)
for ((i = 0; i < ${#queue[@]} && i < 400; i++)); do
	p=${queue[$i]}
	[ -n "${seen[$p]:-}" ] && continue
	if ! apt-cache show "$p" >/dev/null 2>&1; then
		case " $* " in *" $p "*) log "$suite has no package $p"; exit 1 ;; esac
		continue
	fi
	seen[$p]=1
	while read -r d; do
		case $d in
		# Not needed to run a program, and large or interactive.
		debconf | debconf-2.0 | cdebconf | perl* | dpkg | install-info | \
		gcc-*-base | tzdata | adduser | passwd | login | init-system-helpers | \
		sensible-utils | media-types | mailcap | netbase | readline-common | \
		libc-bin | libc-l10n | locales) continue ;;
		esac
		[ -z "${seen[$d]:-}" ] && queue+=("$d")
	done < <(pkg_deps "$p")
done
pkgs=("${!seen[@]}")
log "downloading ${#pkgs[@]} packages: ${pkgs[*]}"
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
write_ld_sh "$root.new" || exit 1
sort "$cache/packages.new" >"$cache/packages"
rm -f "$cache/packages.new"
rm -rf "$root"
mv "$root.new" "$root"
echo "$want" >"$cache/want"
rm -rf "$aptd/lists" "$aptd/cache" "$aptd/debs"
log "$(for p; do grep -m1 "^Package: $p Version:" "$cache/packages"; done | sed "s/Package: //; s/ Version://" | paste -sd, -)"
echo "$root"
