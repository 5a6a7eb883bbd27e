#!/usr/bin/env bash
# Debian sid's binutils, unpacked (never installed), for building SFrame v3
# test programs on a Debian 12 host whose binutils (2.40) writes v1.
#
# scripts/unpack-suite.sh unpacks sid's binutils with every library they
# load (sid's libc and loader included) into the cache; each tool here gets
# a wrapper that starts it through that tree's own loader (ROOT/ld.sh), so
# nothing of the host's libc is mixed in. `gcc -B<dir>` with the printed
# wrapper directory then assembles and links with them.
#
# Prints the wrapper directory on stdout; everything else goes to stderr.
# Cached: a second run only checks that the wrappers still work.
set -euo pipefail

cache=${USTACK_CACHE:-/var/cache/ustack}/sid-binutils
bin=$cache/bin
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

here=$(cd "$(dirname "$0")" && pwd)
root=$("$here/unpack-suite.sh" sid binutils-sid binutils binutils-x86-64-linux-gnu \
	binutils-common libstdc++6) || { log "cannot unpack sid's binutils"; exit 1; }
rm -rf "$cache/root" "$cache/dl" "$cache/apt"	# the tree this script kept itself

mkdir -p "$bin"
for t in "${tools[@]}"; do
	real=$root/usr/bin/x86_64-linux-gnu-$t
	[ -e "$real" ] || real=$root/usr/bin/$t
	# as and ld are reached by gcc -B as plain names; the ld variants too.
	cat >"$bin/$t" <<EOF
#!/bin/sh
# sid's $t, through sid's own loader and libraries.
exec "$root/ld.sh" "$real" "\$@"
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
rm -f "$cache"/*.err
"$bin/as" --version | head -n 1 >"$cache/version"
log "$(cat "$cache/version")"
echo "$bin"
