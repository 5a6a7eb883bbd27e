#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/register: sframe-register gen/check/run, the shim and its cache.
# Run from the repository root: bash tests/register/run.sh
# Prints PASS: register/<name> or FAIL: register/<name>: <reason>.
set -u
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
T=$ROOT/tools/sframe-register
SR=$T/sframe-register
SHIM=$T/libsframe-register.so
W=$(mktemp -d /tmp/ustack-register.XXXXXX)
trap 'rm -rf "$W"' EXIT

pass() { echo "PASS: register/$1"; }
fail() { echo "FAIL: register/$1: $2"; }

if ! make -s -C "$T" -j2 >"$W/build.log" 2>&1; then
	fail build "make -C tools/sframe-register failed: $(tail -3 "$W/build.log" | tr '\n' ' ')"
	exit 0
fi
pass build

# All PCs of the executable sections of $1 whose name matches $2, one per line.
pcs() {
	python3 - "$1" "$2" <<'PYEOF'
import re, subprocess, sys
out = subprocess.run(['readelf', '-SW', sys.argv[1]], capture_output=True,
                     text=True).stdout
for line in out.splitlines():
    m = re.match(r'\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\S+\s+(\S*X\S*)', line)
    if m and re.search(sys.argv[2], m.group(1)):
        a, n = int(m.group(2), 16), int(m.group(3), 16)
        sys.stdout.write(''.join('0x%x\n' % (a + i) for i in range(n)))
PYEOF
}

# check FILE must report 0 mismatch and 0 missing, and agree on >= 97% of PCs (ld.so: 98%).
check_clean() { # name file
	local out
	out=$("$SR" check "$2" 2>&1)
	local rc=$?
	local line pcs agree
	line=$(grep '^check:' <<<"$out")
	pcs=$(sed -n 's/.* \([0-9]*\) PCs:.*/\1/p' <<<"$line")
	agree=$(sed -n 's/.*PCs: \([0-9]*\) agree.*/\1/p' <<<"$line")
	if [ $rc -ne 0 ] || [ -z "$line" ]; then
		fail "$1" "check exit $rc: $(head -3 <<<"$out" | tr '\n' ' ')"
	elif ! grep -q ' 0 mismatch, 0 missing' <<<"$line"; then
		fail "$1" "$line"
	elif [ -z "$pcs" ] || [ "$pcs" -eq 0 ] || [ $((agree * 100 / pcs)) -lt 97 ]; then
		fail "$1" "too few PCs agree: $line"
	else
		pass "$1"
	fi
}

# --- 1. system objects: gen --version 1/2/3, then check PC by PC ----------
for obj in /lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2 \
	/usr/lib/x86_64-linux-gnu/libstdc++.so.6 /usr/bin/python3.11; do
	b=$(basename "$obj")
	if [ ! -r "$obj" ]; then
		fail "check-$b" "$obj missing"
		continue
	fi
	for v in 1 2 3; do
		if ! "$SR" gen "$obj" -o "$W/$b.v$v" --version "$v" >"$W/gen.out" 2>&1; then
			fail "check-$b-v$v" "gen failed: $(head -2 "$W/gen.out")"
			continue
		fi
		check_clean "check-$b-v$v" "$W/$b.v$v"
	done
done

# What libc's generated v3 leaves out: exactly the hand-written frames that
# SFrame cannot express (__longjmp x2, __longjmp_chk, setcontext, vfork,
# __restore_rt), nothing else.
"$SR" gen /lib/x86_64-linux-gnu/libc.so.6 -o "$W/libc.v3" --version 3 >"$W/g" 2>&1
if grep -q 'left out 6 (cfa 0, ra 5, fp 0, signal 1' "$W/g"; then
	pass gen-libc-left-out
else
	fail gen-libc-left-out "$(cat "$W/g")"
fi

# The output is an ELF file readelf accepts, with an allocated .sframe.
if readelf -SW "$W/libc.v3" 2>"$W/re.err" | grep -q '\.sframe *PROGBITS .* A ' &&
	[ ! -s "$W/re.err" ] && "$SR" dump "$W/libc.v3" | grep -q SFRAME_VERSION_3; then
	pass gen-output-elf
else
	fail gen-output-elf "readelf/dump: $(head -2 "$W/re.err")"
fi

# --- 2. the --gsframe corpus ----------------------------------------------
C=$ROOT/tests/register/corpus
build_ok=1
for o in O0 O2 Os O2fp; do
	f="-$o"
	[ $o = O2fp ] && f="-O2 -fno-omit-frame-pointer"
	gcc $f -Wa,--gsframe -o "$W/prog_$o" "$C/prog.c" 2>"$W/cc.err" || build_ok=0
done
gcc -O2 -Wa,--gsframe -o "$W/cfi" "$C/cfimain.c" "$C/cfi.s" 2>>"$W/cc.err" || build_ok=0
gcc -O2 -Wa,--gsframe -Wl,--no-ld-generated-unwind-info -o "$W/prog_noplt" \
	"$C/prog.c" 2>>"$W/cc.err" || build_ok=0
if [ $build_ok = 0 ]; then
	fail corpus-build "$(head -3 "$W/cc.err")"
else
	pass corpus-build
fi

for o in O0 O2 Os O2fp; do
	p=$W/prog_$o
	[ -x "$p" ] || continue
	# gas's own v1 agrees with .eh_frame (except what gas leaves out)
	out=$("$SR" check "$p" 2>&1)
	if grep -q ' 0 mismatch' <<<"$out"; then
		pass "check-gas-$o"
	else
		fail "check-gas-$o" "$(tail -1 <<<"$out")"
	fi
	# gen --version 1 gives the same per-PC rules as gas's v1 wherever gas
	# has a rule (gas has none for crt code, _start and .plt.got)
	"$SR" gen "$p" -o "$p.g1" --version 1 >/dev/null 2>&1
	pcs "$p" '^\.(plt|text)' >"$W/pcs"
	xargs "$SR" lookup "$p" <"$W/pcs" >"$W/gas.l" 2>&1
	xargs "$SR" lookup "$p.g1" <"$W/pcs" >"$W/gen.l" 2>&1
	n=$(wc -l <"$W/pcs")
	cmp=$(paste -d'|' "$W/gas.l" "$W/gen.l" | awk -F'|' '
		$1 !~ / none$/ { n++; if ($1 != $2) { bad++; if (!first) first = $1 " vs " $2 } }
		END { printf "%d %d %s\n", n, bad, first }')
	read -r ncmp nbad first <<<"$cmp"
	if [ "$(wc -l <"$W/gen.l")" != "$n" ] || [ "${ncmp:-0}" -lt 100 ]; then
		fail "gen-v1-equals-gas-$o" "lookup failed or too few PCs ($ncmp of $n)"
	elif [ "$nbad" != 0 ]; then
		fail "gen-v1-equals-gas-$o" "$nbad of $ncmp PCs differ, first: $first"
	else
		pass "gen-v1-equals-gas-$o"
	fi
	# the generated copy still runs and prints the same
	if [ "$("$p" 4)" = "$("$p.g1" 4)" ]; then
		pass "gen-output-runs-$o"
	else
		fail "gen-output-runs-$o" "output differs"
	fi
done

# check must fail where gas 2.40 is wrong (CFA in r10 encoded as sp+0, and
# .cfi_undefined rip encoded as an ordinary frame); gen leaves both out.
if [ -x "$W/cfi" ]; then
	out=$("$SR" check "$W/cfi" 2>&1)
	rc=$?
	if [ $rc = 1 ] && grep -q 'mismatch .* eh_frame: inexpressible(cfa) sframe: cfa=sp+0' <<<"$out" &&
		grep -q 'eh_frame: outermost sframe: cfa=sp+8' <<<"$out"; then
		pass check-detects-gas-bugs
	else
		fail check-detects-gas-bugs "rc=$rc $(tail -1 <<<"$out")"
	fi
	for v in 1 3; do
		"$SR" gen "$W/cfi" -o "$W/cfi.g$v" --version $v >"$W/g" 2>&1
		out=$("$SR" check "$W/cfi.g$v" 2>&1)
		if [ $? = 0 ] && grep -q 'left out [0-9]* (cfa 1,' "$W/g" && grep -q ' 0 mismatch, 0 missing' <<<"$out"; then
			pass "gen-cfi-cases-v$v"
		else
			fail "gen-cfi-cases-v$v" "$(cat "$W/g") / $(tail -1 <<<"$out")"
		fi
	done
	# v3 says outermost for f_undef_ra; v1 cannot, and leaves it out
	a=$(nm "$W/cfi" | awk '$3 == "f_undef_ra" { print $1 }')
	a=$(printf '0x%x' $((16#${a:-0})))
	l3=$("$SR" lookup "$W/cfi.g3" "$a" 2>&1)
	l1=$("$SR" lookup "$W/cfi.g1" "$a" 2>&1)
	if [ "$l3" = "$a outermost" ] && [ "$l1" = "$a none" ]; then
		pass gen-outermost
	else
		fail gen-outermost "v3: $l3, v1: $l1"
	fi
fi

# A corrupted .sframe must make check fail: change one FRE's CFA offset.
if [ -f "$W/prog_O2.g1" ]; then
	cp "$W/prog_O2.g1" "$W/corrupt"
	off=$(readelf -SW "$W/corrupt" | sed -n 's/.*\] \.sframe *PROGBITS *[0-9a-f]* \([0-9a-f]*\) .*/\1/p')
	off=$((16#$off))
	# the FRE sub-section starts at 28 + freoff; corrupt a data byte of FRE 0
	python3 - "$W/corrupt" "$off" <<'EOF'
import struct, sys
p, off = sys.argv[1], int(sys.argv[2])
b = bytearray(open(p, 'rb').read())
freoff = struct.unpack_from('<I', b, off + 24)[0]
fre = off + 28 + freoff
b[fre + 2] ^= 0x10          # ADDR1 FRE: start, info, then the CFA offset
open(p, 'wb').write(b)
EOF
	out=$("$SR" check "$W/corrupt" 2>&1)
	if [ $? = 1 ] && grep -q '^mismatch' <<<"$out"; then
		pass check-detects-corruption
	else
		fail check-detects-corruption "$(tail -1 <<<"$out")"
	fi
fi

# PLT without .eh_frame (ld --no-ld-generated-unwind-info): gen synthesizes
# PLT0 + a PCMASK FDE that give the same rules as ld's own CFI.
if [ -x "$W/prog_noplt" ]; then
	"$SR" gen "$W/prog_noplt" -o "$W/noplt.g" --version 2 >"$W/g" 2>&1
	"$SR" gen "$W/prog_O2" -o "$W/withplt.g" --version 2 >/dev/null 2>&1
	pcs "$W/prog_noplt" '^\.plt$' >"$W/pp"
	pcs "$W/prog_O2" '^\.plt$' >"$W/pq"
	xargs "$SR" lookup "$W/noplt.g" <"$W/pp" | cut -d' ' -f2- >"$W/a"
	xargs "$SR" lookup "$W/withplt.g" <"$W/pq" | cut -d' ' -f2- >"$W/b"
	if grep -q 'synthesized PLTs [12]' "$W/g" && [ -s "$W/a" ] && cmp -s "$W/a" "$W/b" &&
		! grep -q none "$W/a"; then
		pass gen-plt-synthesized
	else
		fail gen-plt-synthesized "$(cat "$W/g")"
	fi
fi

# --- 3. the shim ------------------------------------------------------------
[ -f "$ROOT/tests/register/shim.sh" ] && . "$ROOT/tests/register/shim.sh"
exit 0
