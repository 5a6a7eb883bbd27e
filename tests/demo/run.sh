#!/usr/bin/env bash
# tests/demo: the README's first command, as a newcomer runs it.  A clone
# of the committed tree (what a user's `git clone` gets: nothing built,
# no build/), `make demo` in it: it must end with status 0, print its
# comparison (frame pointers alone against ustack with ustackd, the
# whole system) with every VM test's PASS, and write each flame graph as
# an SVG a browser can parse.  The demo's own bars (each program >= 99%
# complete with ustackd) are asserted in the guest (tests/vm/_demo*.sh).
# The kernel and the packages come from the machine's cache: what is
# cold is the tree.  bash tests/demo/run.sh [NAME...] (tests/select.sh).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/select.sh" demo "$@"
cache=${USTACK_CACHE:-/var/cache/ustack}
mkdir -p "$cache/vm"
tmp=$(mktemp -d "$cache/vm/demo-clone.XXXXXX")
on_exit 'rm -rf "$tmp"'

make_demo() {
	local out=$tmp/out s
	git clone -q "$top" "$tmp/ustack" || return 1
	if ! (cd "$tmp/ustack" && nice make demo) >"$out" 2>&1; then
		mkdir -p "$top/build/logs"
		cp "$out" "$top/build/logs/demo-clone.out"
		cp "$tmp/ustack/build/logs/vm-6.1.demo.log" "$top/build/logs/demo-clone.vm.log" 2>/dev/null
		grep -E '^FAIL' "$out" | head -n 3
		echo "make demo failed (build/logs/demo-clone.out)"
		return 1
	fi
	for s in 'PASS: vm/6.1/_demo$' 'PASS: vm/6.1/_demo-system$' 'PASS: vm/6.1/kernel-log$' \
		'^== summary: frame pointers alone' '^== summary: ustack with ustackd' \
		'^complete user stacks: ' '^  the three  ' "^  the guest's own  "; do
		grep -q -- "$s" "$out" || { echo "make demo printed no line like '$s'"; return 1; }
	done
	for s in ustack fp python system; do
		xmllint --noout "$tmp/ustack/build/demo/flame-$s.svg" ||
			{ echo "flame-$s.svg: not an SVG"; return 1; }
		grep -q '<svg' "$tmp/ustack/build/demo/flame-$s.svg" ||
			{ echo "flame-$s.svg: no <svg>"; return 1; }
	done
	sed -n '/^== complete user stacks/,/^$/p' "$out"
}
run_test make-demo make_demo
