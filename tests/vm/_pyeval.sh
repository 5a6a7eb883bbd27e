#!/bin/sh
# _pyeval.sh EXE: the address ranges of a CPython executable's evaluator,
# _PyEval_EvalFrameDefault, as "start end [start end]" in decimal, for
# the tests that tell samples in Python code by it (host side: the
# tests/vm Makefile writes bin/pythonX.Y.eval; the executables are not
# PIE).  A build with hot/cold partitioning (Debian's 3.14 and 3.15)
# keeps most of the loop in a second part that no dynamic symbol names
# (the symbol itself is then a few hundred bytes): the FDE that follows
# the function's own in .eh_frame, when it starts where no dynamic
# symbol does.
set -eu
exe=$1
set -- $(nm -D -S --defined-only "$exe" | awk '$4 == "_PyEval_EvalFrameDefault" { print $1, $2 }')
[ $# = 2 ] || { echo "pyeval: no _PyEval_EvalFrameDefault in $exe" >&2; exit 1; }
lo=$((0x$1)) hi=$((0x$1 + 0x$2))
nm -D --defined-only "$exe" | awk '{ print $1 }' >"${TMPDIR:-/tmp}/pyeval.$$"
readelf --debug-dump=frames "$exe" 2>/dev/null |
	awk -v lo="$lo" -v hi="$hi" -v syms="${TMPDIR:-/tmp}/pyeval.$$" '
	function dec(h,   i, c, v) {
		v = 0
		for (i = 1; i <= length(h); i++) {
			c = index("0123456789abcdef", substr(h, i, 1)) - 1
			v = v * 16 + c
		}
		return v
	}
	BEGIN { while ((getline s < syms) > 0) named[dec(s)] = 1 }
	/ FDE / {
		split($0, a, "pc=")
		split(a[2], r, /\.\./)
		s = dec(r[1]); e = dec(r[2])
		if (next_one) {
			if (!(s in named))
				extra = " " s " " e
			next_one = 0
		}
		if (s <= lo && lo < e && hi - lo < 8192)
			next_one = 1
	}
	END { print lo, hi extra }'
rm -f "${TMPDIR:-/tmp}/pyeval.$$"
