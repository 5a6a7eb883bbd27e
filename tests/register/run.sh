#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/register: sframe-register gen/check/run, the shim and its cache.
# Run from the repository root: bash tests/register/run.sh [NAME...]
# Prints PASS: register/<name> or FAIL: register/<name>: <reason>; with
# NAMEs (e.g. shim-vdso, 'check-libc*'), only those (tests/select.sh): the
# expensive steps of the others are skipped.
set -u
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
. tests/select.sh register "$@"
SR=$ROOT/tools/sframe-register/sframe-register
S=$ROOT/tools/shim
SHIM=$S/libsframe-register.so
LIB=$ROOT/tools/lib/libustack-tools.a
W=$(mktemp -d /tmp/ustack-register.XXXXXX)
mkdir -p "$W/sub"
on_exit 'rm -rf "$W"'

pass() { echo "PASS: register/$1"; }
fail() { echo "FAIL: register/$1: $2"; }

if ! make -s -C tools/sframe-register -j2 >"$W/build.log" 2>&1 ||
   ! make -s -C tools/shim -j2 >>"$W/build.log" 2>&1; then
	fail build "make -C tools/sframe-register, tools/shim failed: $(tail -3 "$W/build.log" | tr '\n' ' ')"
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
	want "check-$b*" "readelf-cross-$b" readelf-sframe-reads-libc-v1 || continue
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

# A second interpreter: readelf's --debug-dump=frames-interp (binutils, not
# libdw) must give the same rules as gen's v2 output at each row's first and
# last PC, "none" for functions left out, "outermost" for RA undefined.
for obj in /lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2 \
	/usr/lib/x86_64-linux-gnu/libstdc++.so.6; do
	b=$(basename "$obj")
	want "readelf-cross-$b" || continue
	[ -f "$W/$b.v2" ] || continue
	out=$(python3 "$ROOT/tests/register/ehcross.py" "$obj" "$W/$b.v2" "$SR" 2>&1)
	if [ $? = 0 ]; then
		pass "readelf-cross-$b"
	else
		fail "readelf-cross-$b" "$(tail -1 <<<"$out")"
	fi
done

# libsframe (binutils 2.40, v1 only) accepts gen's v1 output of libc whole
if ! want readelf-sframe-reads-libc-v1; then
	:
elif [ -f "$W/libc.so.6.v1" ] && readelf --sframe "$W/libc.so.6.v1" >"$W/rs.out" 2>"$W/rs.err" &&
	[ ! -s "$W/rs.err" ] && [ "$(grep -c 'func idx' "$W/rs.out")" -gt 3000 ]; then
	pass readelf-sframe-reads-libc-v1
else
	fail readelf-sframe-reads-libc-v1 "$(head -2 "$W/rs.err")"
fi

# What libc's generated v3 leaves out: exactly the hand-written frames that
# SFrame cannot express (CFA in a register: __longjmp x2, __longjmp_chk,
# setcontext; RA in a register: vfork; signal frame:
# __restore_rt), nothing else.
want gen-libc-left-out gen-output-elf &&
	"$SR" gen /lib/x86_64-linux-gnu/libc.so.6 -o "$W/libc.v3" --version 3 >"$W/g" 2>&1
if ! want gen-libc-left-out; then
	:
elif grep -q 'left out 6 (cfa 4, ra 1, fp 0, signal 1,' "$W/g"; then
	pass gen-libc-left-out
else
	fail gen-libc-left-out "$(cat "$W/g")"
fi

# The output is an ELF file readelf accepts, with an allocated .sframe.
if ! want gen-output-elf; then
	:
elif readelf -SW "$W/libc.v3" 2>"$W/re.err" | grep -q '\.sframe *PROGBITS .* A ' &&
	[ ! -s "$W/re.err" ] && "$SR" dump "$W/libc.v3" | grep -q SFRAME_VERSION_3; then
	pass gen-output-elf
else
	fail gen-output-elf "readelf/dump: $(head -2 "$W/re.err")"
fi

# The default is v1, what gas 2.40 makes and binutils 2.40 itself decodes.
want gen-default-v1-readelf && "$SR" gen /usr/bin/python3.11 -o "$W/py.def" >/dev/null 2>&1
if ! want gen-default-v1-readelf; then
	:
elif readelf --sframe "$W/py.def" 2>"$W/re.err" | grep -q 'SFRAME_VERSION_1' && [ ! -s "$W/re.err" ]; then
	pass gen-default-v1-readelf
else
	fail gen-default-v1-readelf "$(head -2 "$W/re.err")"
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
	want "*-$o" || continue
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
	# binutils' own decoder (readelf --sframe, libsframe) reads gen's v1 and
	# shows every function of gas's .sframe identically
	out=$(python3 "$ROOT/tests/register/sfcompare.py" "$p" "$p.g1" 2>&1)
	if [ $? = 0 ]; then
		pass "readelf-sframe-gen-v1-equals-gas-$o"
	else
		fail "readelf-sframe-gen-v1-equals-gas-$o" "$(tail -1 <<<"$out")"
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
	if ! python3 "$ROOT/tests/register/ehcross.py" "$W/cfi" "$W/cfi" "$SR" >/dev/null 2>&1; then
		pass readelf-cross-detects-gas-bugs
	else
		fail readelf-cross-detects-gas-bugs "no difference found"
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

# Corrupt .eh_frame input: gen and check neither crash nor hang.
if [ -x "$W/prog_O2" ]; then
	mkdir -p "$W/mut"
	out=$(python3 "$ROOT/tests/register/mutate.py" "$SR" "$W/prog_O2" "$W/mut" 100 2>&1)
	if [ $? = 0 ]; then
		pass gen-check-corrupt-eh_frame
	else
		fail gen-check-corrupt-eh_frame "$(tail -2 <<<"$out" | tr '\n' ' ')"
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

# IBT PLTs (-z ibtplt: endbr64 in .plt, plus .plt.sec): ld 2.40's own
# SFrame for them is wrong (it uses the non-IBT push offset 11 instead of 9
# and puts a PLT0 FDE on .plt.sec); check catches that, and gen follows the
# .eh_frame (or, without it, the instruction bytes) correctly.
if gcc -O2 -fcf-protection=full -Wl,-z,ibtplt -Wa,--gsframe -o "$W/prog_ibt" "$C/prog.c" 2>/dev/null &&
	gcc -O2 -fcf-protection=full -Wl,-z,ibtplt -Wl,--no-ld-generated-unwind-info \
		-o "$W/prog_ibt_nounw" "$C/prog.c" 2>/dev/null; then
	out=$("$SR" check "$W/prog_ibt" 2>&1)
	if [ $? = 1 ] && grep -q '^mismatch 0x[0-9a-f]*9 eh_frame: cfa=sp+16' <<<"$out"; then
		pass check-detects-ld-ibt-plt-bug
	else
		fail check-detects-ld-ibt-plt-bug "$(tail -1 <<<"$out")"
	fi
	"$SR" gen "$W/prog_ibt" -o "$W/ibt.g" --version 2 >/dev/null 2>&1
	"$SR" gen "$W/prog_ibt_nounw" -o "$W/ibt_nounw.g" --version 2 >"$W/g" 2>&1
	out=$("$SR" check "$W/ibt.g" 2>&1)
	pcs "$W/prog_ibt" '^\.plt' >"$W/pp"
	xargs "$SR" lookup "$W/ibt.g" <"$W/pp" >"$W/a"
	xargs "$SR" lookup "$W/ibt_nounw.g" <"$W/pp" >"$W/b"
	if grep -q ' 0 mismatch, 0 missing' <<<"$out" && grep -q 'synthesized PLTs 3' "$W/g" &&
		[ -s "$W/a" ] && cmp -s "$W/a" "$W/b"; then
		pass gen-ibt-plt
	else
		fail gen-ibt-plt "$(tail -1 <<<"$out") / $(cat "$W/g") / $(diff "$W/a" "$W/b" | head -2 | tr '\n' ' ')"
	fi
else
	fail gen-ibt-plt "cannot build with -fcf-protection -z ibtplt"
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
want 'shim-*' run-preloads-shim 'gen-cache-*' 'walk-*' 'vm-bt-*' 'api-*' || exit 0
# Host tests: no /dev/sframe here.  USTACK_SHIM_FORCE=1 makes the shim do its
# cache work anyway (registering nothing); USTACK_SHIM_DEBUG=1 logs it.
R=$ROOT/tests/register
CFLAGS_T="-O2 -g -Wall -I$S -I$ROOT/tools/lib -I$ROOT/module -I$ROOT/include"
if [ -e /dev/sframe ]; then
	echo "register: /dev/sframe exists: host-only shim tests skipped" >&2
	exit 0
fi
if ! gcc $CFLAGS_T -o "$W/cachecheck" "$R/cachecheck.c" "$LIB" -lelf 2>"$W/cc.err" ||
	! gcc -O2 -shared -fPIC -o "$W/sub/libb.so" "$R/libb.c" 2>>"$W/cc.err" ||
	! gcc -O2 -shared -fPIC -o "$W/liba.so" "$R/liba.c" \
		-Wl,--enable-new-dtags,-rpath,'$ORIGIN/sub' 2>>"$W/cc.err" ||
	! gcc -O2 -o "$W/dlmain" "$R/dlmain.c" -L"$W" -la \
		-Wl,--enable-new-dtags,-rpath,"$W" 2>>"$W/cc.err" ||
	! gcc $CFLAGS_T -o "$W/apitest" "$R/apitest.c" -L"$S" -lsframe-register \
		-Wl,-rpath,"$S" 2>>"$W/cc.err" ||
	! gcc -O2 -g -shared -fPIC -Wa,--gsframe $CFLAGS_T -o "$W/fakedev.so" "$R/fakedev.c" \
		"$LIB" -ldl 2>>"$W/cc.err" ||
	! gcc -O2 -shared -fPIC -o "$W/libcb.so" "$R/libcb.c" 2>>"$W/cc.err"; then
	fail shim-build "$(head -3 "$W/cc.err")"
	exit 0
fi
pass shim-build

P=$W/prog_O2
# The shim ignores every USTACK_* variable in root processes: as root, its
# tests run as nobody, their cache directories under $U (nobody's).
U=$W/u
mkdir -p "$U"
if [ "$(id -u)" = 0 ]; then
	chmod 755 "$W"
	chown nobody "$U"
	asuser() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
else
	asuser() { "$@"; }
fi
shim_env() { asuser env LD_PRELOAD="$SHIM" "$@"; }

# Without /dev/sframe the shim does nothing: same output, nothing on stderr,
# no cache directory created.
same=1
for cmd in "$P 6" "python3.11 -c print(sum(range(10)))" "ls -d /" "$W/dlmain $W/sub/libb.so"; do
	a=$($cmd 2>&1)
	b=$(shim_env USTACK_CACHE_DIR="$U/nocache" $cmd 2>&1)
	[ "$a" = "$b" ] || { same=0; echo "  differs: $cmd" >&2; }
done
if [ $same = 1 ] && [ ! -e "$U/nocache" ]; then
	pass shim-silent-without-device
else
	fail shim-silent-without-device "output differs or cache dir created"
fi

# sframe-register run: preloads the shim, passes arguments and exit status.
out=$("$SR" run -- sh -c 'echo "$LD_PRELOAD"; exit 7')
rc=$?
if [ $rc = 7 ] && grep -q "libsframe-register.so" <<<"$out" &&
	[ "$("$SR" run "$P" 6)" = "$("$P" 6)" ]; then
	pass run-preloads-shim
else
	fail run-preloads-shim "rc=$rc out=$out"
fi

# Cache: a miss generates <build-id>-<file>.v3.sframe in the per-user directory,
# the next run hits; a replaced file (other build-id) is never used.
CD=$U/cache
libc=/lib/x86_64-linux-gnu/libc.so.6
libc_id=$(readelf -n "$libc" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
l1=$(shim_env USTACK_SHIM_FORCE=1 USTACK_SHIM_DEBUG=1 USTACK_CACHE_DIR="$CD" "$P" 6 2>&1 >/dev/null)
f=$(ls "$CD"/$libc_id*.v3.sframe 2>/dev/null | head -1)
m1=$(stat -c %Y.%i "$f" 2>/dev/null)
l2=$(shim_env USTACK_SHIM_FORCE=1 USTACK_SHIM_DEBUG=1 USTACK_CACHE_DIR="$CD" "$P" 6 2>&1 >/dev/null)
m2=$(stat -c %Y.%i "$f" 2>/dev/null)
if grep -q "libc.so.6: cache miss" <<<"$l1" && [ -n "$m1" ] &&
	grep -q "libc.so.6: cache hit" <<<"$l2" && ! grep -q "miss" <<<"$l2" &&
	[ "$m1" = "$m2" ] && [ "$(stat -c %a "$CD")" = 700 ]; then
	pass shim-cache-miss-then-hit
else
	fail shim-cache-miss-then-hit "first: $(grep libc <<<"$l1" | head -2 | tr '\n' ' ') second: $(grep libc <<<"$l2" | head -2 | tr '\n' ' ')"
fi
# USTACK_SHIM_NOGEN=1: use existing entries only, never start the helper
shim_env USTACK_SHIM_FORCE=1 USTACK_SHIM_NOGEN=1 USTACK_CACHE_DIR="$U/nogen" "$P" 6 >/dev/null 2>&1
if [ -d "$U/nogen" ] && [ -z "$(ls -A "$U/nogen")" ]; then
	pass shim-nogen
else
	fail shim-nogen "entries generated: $(ls "$U/nogen" 2>&1 | head -2)"
fi
# The helper inherits none of the program's descriptors: fd 7 (a file) and
# fd 9 (a pipe's write end, whose reader would never see end of file)
# are open, not close-on-exec, in the program; fdhelper.sh logs its own.
printf '#!/bin/sh\nls /proc/$$/fd | tr "\\n" " " >>"%s/helperfds"\necho >>"%s/helperfds"\nexec "%s" "$@"\n' \
	"$U" "$U" "$SR" >"$W/fdhelper.sh"
chmod 755 "$W/fdhelper.sh"
shim_env USTACK_SHIM_FORCE=1 USTACK_CACHE_DIR="$U/fdcache" USTACK_SFRAME_REGISTER="$W/fdhelper.sh" \
	"$P" 6 7>/dev/null 9> >(cat >/dev/null) >/dev/null 2>&1
if [ -s "$U/helperfds" ] && ! grep -qw -e 7 -e 9 "$U/helperfds"; then
	pass shim-helper-inherits-no-fds
else
	fail shim-helper-inherits-no-fds "helper descriptors: $(head -3 "$U/helperfds" 2>&1 | tr '\n' '|')"
fi

# A fork() in one thread while another waits for the helper (slowhelper.sh
# takes 3 s for libslow.so) does not wait for it: the shim's lock is not
# held meanwhile.  And the helper's time limit holds under a signal every
# 20 ms (a profiler's timer): a shim built with a 2 s limit gives up on a
# helper that hangs for 20 s after about 2 s, not when the helper ends.
printf '#!/bin/sh\ncase "$*" in *libslow*) [ -n "$SLOW_HANG" ] && exec sleep 20; sleep 3;; esac\nexec "%s" "$@"\n' \
	"$SR" >"$W/slowhelper.sh"
chmod 755 "$W/slowhelper.sh"
mkdir -p "$W/short"
cp "$W/libcb.so" "$W/libslow.so"
if gcc -O2 -o "$W/helperwait" "$R/helperwait.c" -ldl -lpthread 2>"$W/cc.err" &&
	make -s -C tools/shim VARIANT_OUT="$W/short/libsframe-register.so" \
		VARIANT_DEFS=-DHELPER_TIMEOUT_MS=2000 variant >>"$W/cc.err" 2>&1; then
	out=$(shim_env USTACK_SHIM_FORCE=1 USTACK_CACHE_DIR="$U/forkcache" \
		USTACK_SFRAME_REGISTER="$W/slowhelper.sh" timeout 60 "$W/helperwait" fork "$W/libslow.so" 2>&1)
	read -r fms dms <<<"$(sed -n 's/^fork \([0-9]*\) ms, dlopen \([0-9]*\) ms$/\1 \2/p' <<<"$out")"
	if [ -n "$fms" ] && [ "$fms" -lt 1000 ] && [ "$dms" -ge 2500 ]; then
		pass shim-fork-does-not-wait-for-helper
	else
		fail shim-fork-does-not-wait-for-helper "$out"
	fi
	out=$(asuser env LD_PRELOAD="$W/short/libsframe-register.so" USTACK_SHIM_FORCE=1 \
		USTACK_CACHE_DIR="$U/eintrcache" USTACK_SFRAME_REGISTER="$W/slowhelper.sh" SLOW_HANG=1 \
		timeout 60 "$W/helperwait" eintr "$W/libslow.so" 2>&1)
	read -r dms sigs <<<"$(sed -n 's/^dlopen \([0-9]*\) ms, \([0-9]*\) signals$/\1 \2/p' <<<"$out")"
	if [ -n "$dms" ] && [ "$dms" -ge 1500 ] && [ "$dms" -lt 6000 ] && [ "$sigs" -gt 50 ]; then
		pass shim-helper-deadline-survives-signals
	else
		fail shim-helper-deadline-survives-signals "$out"
	fi
else
	fail shim-helper-wait-build "$(head -3 "$W/cc.err")"
fi

# A malformed object whose PT_GNU_SFRAME or PT_NOTE lies outside its
# PT_LOAD segments (ld.so ignores both) is loaded, not read out of bounds:
# the shim checks each against the loaded segments.
gcc -O2 -shared -fPIC -Wa,--gsframe -o "$W/libbadsf.so" "$R/libcb.c" 2>/dev/null
cp "$W/libcb.so" "$W/libbadnote.so"
python3 - "$W/libbadsf.so" "$W/libbadnote.so" <<'EOF'
import struct, sys
for path, ptype in ((sys.argv[1], 0x6474e554), (sys.argv[2], 4)):
    b = bytearray(open(path, "rb").read())
    phoff, = struct.unpack_from("<Q", b, 32)
    phentsize, phnum = struct.unpack_from("<HH", b, 54)
    for i in range(phnum):
        o = phoff + i * phentsize
        if struct.unpack_from("<I", b, o)[0] == ptype:
            struct.pack_into("<Q", b, o + 16, 0x7fff0000)     # p_vaddr
            struct.pack_into("<Q", b, o + 40, 0x1000)         # p_memsz
    open(path, "wb").write(b)
EOF
bad=""
for l in libbadsf.so libbadnote.so; do
	[ "$("$W/helperwait" open "$W/$l" 2>&1)" = opened ] || bad="$bad $l: not loadable without the shim;"
	out=$(shim_env USTACK_SHIM_FORCE=1 USTACK_SHIM_NOGEN=1 USTACK_CACHE_DIR="$U/badphdr" \
		"$W/helperwait" open "$W/$l" 2>&1)
	rc=$?
	[ $rc = 0 ] && [ "$out" = opened ] || bad="$bad $l: exit $rc $out;"
done
if [ -z "$bad" ]; then
	pass shim-phdr-outside-load
else
	fail shim-phdr-outside-load "$bad"
fi

# A forged build-id does not poison the cache: libforged.so (other code)
# carries libreal.so's build-id; its entry, made first, is not used for
# libreal.so, whose file is another.  And an entry writable by group or
# others is not trusted (USTACK_SHIM_NOGEN: none is made instead).
mkdir -p "$W/forged"
cp "$W/libcb.so" "$W/libreal.so"
gcc -O2 -shared -fPIC -o "$W/forged/libforged.so" "$R/liba.c" 2>/dev/null
python3 - "$W/libreal.so" "$W/forged/libforged.so" <<'EOF'
import subprocess, sys
def bid(p):
    out = subprocess.run(["readelf", "-n", p], capture_output=True, text=True).stdout
    return bytes.fromhex(out.split("Build ID:")[1].split()[0])
real, forged = bid(sys.argv[1]), bid(sys.argv[2])
b = open(sys.argv[2], "rb").read()
assert len(real) == len(forged) and b.count(forged) == 1
open(sys.argv[2], "wb").write(b.replace(forged, real))
EOF
forge_run() { # LIB [VAR=VALUE...]: the shim's log lines about LIB
	local lib=$1
	shift
	shim_env USTACK_SHIM_FORCE=1 USTACK_SHIM_DEBUG=1 USTACK_CACHE_DIR="$U/forgecache" "$@" \
		"$W/helperwait" open "$lib" 2>&1 | grep -F "$(basename "$lib"):"
}
f1=$(forge_run "$W/forged/libforged.so")
f2=$(forge_run "$W/libreal.so")
chmod go+w "$U"/forgecache/*.v3.sframe 2>/dev/null
f3=$(forge_run "$W/libreal.so" USTACK_SHIM_NOGEN=1)
if [ "$(readelf -n "$W/libreal.so" | grep 'Build ID')" = "$(readelf -n "$W/forged/libforged.so" | grep 'Build ID')" ] &&
	grep -q 'libforged.so: cache miss' <<<"$f1" && grep -q 'libreal.so: cache miss' <<<"$f2" &&
	! grep -q 'libreal.so: cache hit' <<<"$f2$f3"; then
	pass shim-cache-forged-build-id
else
	fail shim-cache-forged-build-id "forged: $(tr '\n' ' ' <<<"$f1") real: $(tr '\n' ' ' <<<"$f2") writable: $(tr '\n' ' ' <<<"$f3")"
fi

# 8 processes starting together on a cold cache: one helper per object
herd=()
for i in 1 2 3 4 5 6 7 8; do
	shim_env USTACK_SHIM_FORCE=1 USTACK_SHIM_DEBUG=1 USTACK_CACHE_DIR="$U/herd" \
		"$P" 6 >"$W/herd.$i.out" 2>"$W/herd.$i.log" &
	herd+=($!)
done
wait "${herd[@]}"	# not a bare wait: that would wait for the results filter
misses=$(cat "$W"/herd.*.log | grep -c 'libc.so.6: cache miss')
hits=$(cat "$W"/herd.*.log | grep -c 'libc.so.6: cache hit')
if [ "$misses" = 1 ] && [ "$hits" = 7 ] &&
	[ "$(cat "$W"/herd.*.out | sort -u)" = "$("$P" 6)" ]; then
	pass shim-cache-one-generator
else
	fail shim-cache-one-generator "$misses misses, $hits hits for libc"
fi

# corrupt or truncated entries are refused quietly; the program runs as ever
mkdir -p "$U/badcache"
cp "$CD"/*.v3.sframe "$U/badcache/"
[ "$(id -u)" = 0 ] && chown -R nobody "$U/badcache"
bf=$(ls "$U"/badcache/$libc_id*.v3.sframe | head -1)
python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[40:]=bytes((i*37)&255 for i in range(len(b)-40)); open(sys.argv[1],'wb').write(b)" "$bf"
o1=$(shim_env USTACK_SHIM_FORCE=1 USTACK_SHIM_NOGEN=1 USTACK_CACHE_DIR="$U/badcache" "$P" 6 2>&1)
truncate -s 20 "$bf"
o2=$(shim_env USTACK_SHIM_FORCE=1 USTACK_SHIM_NOGEN=1 USTACK_CACHE_DIR="$U/badcache" "$P" 6 2>&1)
if [ "$o1" = "$("$P" 6)" ] && [ "$o2" = "$o1" ]; then
	pass shim-corrupt-cache-harmless
else
	fail shim-corrupt-cache-harmless "output changed: $o1 / $o2"
fi
# the vDSO: its image is saved as <build-id>.vdso.so and gets an entry too
vd=$(ls "$CD"/*.vdso.so 2>/dev/null | head -1)
if [ -n "$vd" ] && ls "${vd%.vdso.so}"-*.v3.sframe >/dev/null 2>&1 && grep -q '\[vdso\]: ready' <<<"$l1" &&
	"$SR" gen "$vd" -o "$W/vdso.g" >/dev/null 2>&1 && "$SR" check "$W/vdso.g" >/dev/null 2>&1; then
	pass shim-vdso
else
	fail shim-vdso "no vDSO image/entry, or check failed on it"
fi
# per-user default directory: $XDG_CACHE_HOME/ustack for a non-root user
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	mkdir -p "$W/xdg" && chown nobody "$W/xdg" && chmod 755 "$W"
	setpriv --reuid=nobody --regid=nogroup --clear-groups env -u USTACK_CACHE_DIR \
		XDG_CACHE_HOME="$W/xdg" USTACK_SHIM_FORCE=1 LD_PRELOAD="$SHIM" \
		USTACK_SFRAME_REGISTER="$SR" /bin/true 2>/dev/null
	xf=$(ls "$W"/xdg/ustack/$libc_id*.v3.sframe 2>/dev/null | head -1)
	if [ -n "$xf" ] && [ "$(stat -c %U "$xf")" = nobody ]; then
		pass shim-cache-per-user-dir
	else
		fail shim-cache-per-user-dir "no entry in \$XDG_CACHE_HOME/ustack for nobody"
	fi
	# another user reads root's (system) directory when its own has nothing
	mkdir -p "$W/sys" "$W/xdg2" && chmod 755 "$W/sys" && chown nobody "$W/xdg2"
	cp "$CD"/*.v3.sframe "$W/sys/" && chmod 644 "$W/sys"/*
	out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups env -u USTACK_CACHE_DIR \
		XDG_CACHE_HOME="$W/xdg2" USTACK_SYSTEM_CACHE="$W/sys" USTACK_SHIM_FORCE=1 \
		USTACK_SHIM_NOGEN=1 USTACK_SHIM_DEBUG=1 LD_PRELOAD="$SHIM" "$P" 6 2>&1)
	chmod 777 "$W/sys"	# group/world-writable: must be ignored
	out2=$(setpriv --reuid=nobody --regid=nogroup --clear-groups env -u USTACK_CACHE_DIR \
		XDG_CACHE_HOME="$W/xdg2" USTACK_SYSTEM_CACHE="$W/sys" USTACK_SHIM_FORCE=1 \
		USTACK_SHIM_NOGEN=1 USTACK_SHIM_DEBUG=1 LD_PRELOAD="$SHIM" "$P" 6 2>&1)
	if grep -q 'libc.so.6: cache hit' <<<"$out" && ! grep -q 'libc.so.6: cache hit' <<<"$out2" &&
		[ -z "$(ls -A "$W/xdg2/ustack" 2>/dev/null)" ]; then
		pass shim-cache-system-dir
	else
		fail shim-cache-system-dir "$(grep libc <<<"$out" | tr '\n' ' ') / $(grep libc <<<"$out2" | tr '\n' ' ')"
	fi
fi
# Root (and set-id) processes ignore USTACK_*: with `sudo -E` a user must
# not choose the program root runs as the helper, nor root's cache.  In a
# private mount namespace (a tmpfs on /var/cache/ustack), with fakedev.so
# standing in for /dev/sframe: root's shim runs the helper next to the
# library and fills ustackd's store, /var/cache/ustack/sframe, under the
# name ustackd gives libc (<build-id>.v3.sframe), which ustackd then
# reuses (shim-root-store).  A process whose uid is not its euid generates nothing.  evil.sh is never
# run, evilcache never made.
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	printf '#!/bin/sh\ntouch "%s/pwned"\n' "$W" >"$W/evil.sh"
	chmod 755 "$W/evil.sh"
	out=$(unshare -m --propagation private sh -c '
		mount -t tmpfs -o mode=755 tmpfs /var/cache/ustack || exit 9
		setpriv --ruid=nobody env LD_PRELOAD="$1/fakedev.so $2" \
			USTACK_SFRAME_REGISTER="$1/evil.sh" USTACK_CACHE_DIR="$1/evilcache" \
			USTACK_SHIM_DEBUG=1 "$3" 6 >/dev/null 2>"$1/setid.log"
		echo "setid: $(ls /var/cache/ustack | wc -l)"
		env LD_PRELOAD="$1/fakedev.so $2" \
			USTACK_SFRAME_REGISTER="$1/evil.sh" USTACK_CACHE_DIR="$1/evilcache" \
			USTACK_SHIM_DEBUG=1 "$3" 6 >/dev/null 2>"$1/root.log"
		echo "root: $(ls /var/cache/ustack/sframe/'"$libc_id"'.v3.sframe 2>/dev/null | wc -l)"
		"$4" --prepare -v "$5" >"$1/ustackd.log" 2>&1
		' sh "$W" "$SHIM" "$P" "$ROOT/tools/ustackd/ustackd" "$libc" 2>&1)
	if [ ! -e "$W/pwned" ] && [ ! -e "$W/evilcache" ] && [ ! -s "$W/root.log" ] &&
		[ ! -s "$W/setid.log" ] && grep -qx 'setid: 0' <<<"$out" &&
		grep -qx 'root: 1' <<<"$out"; then
		pass shim-root-ignores-env
	else
		fail shim-root-ignores-env "pwned: $([ -e "$W/pwned" ] && echo yes || echo no), evilcache: $([ -e "$W/evilcache" ] && echo yes || echo no), log: $(head -c 200 "$W/root.log" | tr '\n' ' '), $(tr '\n' ' ' <<<"$out")"
	fi
	# ustackd (default store) reuses the shim's entry: the same name, trusted
	if grep -q "$(basename "$libc"): reused $libc_id.v3.sframe" "$W/ustackd.log" &&
		grep -q '(0 generated, 1 reused)' "$W/ustackd.log"; then
		pass shim-root-store
	else
		fail shim-root-store "$(tr '\n' ' ' <"$W/ustackd.log" | head -c 300)"
	fi
fi

# the cached entry, relocated as the shim does, gives gen's rules
"$SR" gen "$libc" -o "$W/libc.g3" --version 3 >/dev/null 2>&1
out=$("$W/cachecheck" "$f" "$W/libc.g3" 0x7f1234560000 2>&1)
if [ $? = 0 ] && grep -q ' 0 differ' <<<"$out"; then
	pass shim-cache-relocation
else
	fail shim-cache-relocation "$out"
fi
# build-id mismatch: the generator refuses, writes nothing
"$SR" gen --cache "$W/wrong.sframe" --build-id 0123456789abcdef "$libc" 2>/dev/null
if [ $? != 0 ] && [ ! -e "$W/wrong.sframe" ]; then
	pass gen-cache-build-id-check
else
	fail gen-cache-build-id-check "entry written for a wrong build-id"
fi

# dlopen/dlclose: by path registers at once, unregisters after dlclose; a
# bare name through liba's DT_RUNPATH still resolves (the caller is kept)
# and is registered lazily; errno and results unchanged.
exp=$("$W/dlmain" "$W/sub/libb.so" 2>/dev/null)
got=$(shim_env USTACK_SHIM_FORCE=1 USTACK_SHIM_DEBUG=1 USTACK_CACHE_DIR="$CD" "$W/dlmain" "$W/sub/libb.so" 2>"$W/dl.log")
if [ "$exp" = "$got" ] && grep -q "a_load = 140" <<<"$got"; then
	pass shim-dlopen-runpath-kept
else
	fail shim-dlopen-runpath-kept "expected '$exp' got '$got'"
fi
if grep -q "libb.so: ready" "$W/dl.log" && grep -q "libb.so: gone, unregister" "$W/dl.log" &&
	awk '/libb.so: ready/ { if (!r) r = NR } /marker: opened by path/ { m = NR }
		/libb.so: gone/ { if (!g) g = NR } END { exit !(r && r < m && m < g) }' "$W/dl.log" &&
	[ "$(grep -c 'libb.so: gone' "$W/dl.log")" = 2 ]; then
	pass shim-dlopen-dlclose
else
	fail shim-dlopen-dlclose "$(grep libb "$W/dl.log" | tr '\n' ' ')"
fi

# End to end on the host: with fakedev.so standing in for /dev/sframe (it
# validates each registration as the kernel would and keeps a table), a
# walk with module/ustack_sframe.c over what the shim registered (SFrame only,
# no frame-pointer fallback) equals glibc's backtrace() frame for frame,
# through an -O2 main without frame pointers, a dlopen'd library and libc's
# qsort internals (libc, ld.so, main, libcb and the vDSO from the generated
# cache; the shim and fakedev.so from their own PT_GNU_SFRAME).
if gcc -O2 -fomit-frame-pointer -o "$W/btmain" "$R/btmain.c" 2>"$W/cc.err"; then
	for round in cold warm; do
		out=$(asuser env LD_PRELOAD="$W/fakedev.so $SHIM" USTACK_CACHE_DIR="$U/btcache" \
			USTACK_SFRAME_REGISTER="$SR" "$W/btmain" "$W/libcb.so" 2>&1)
		if [ $? = 0 ] && grep -q 'registrations 7' <<<"$out" &&
			grep -q 'backtrace [0-9]* frames, walk [0-9]* (end 0), 0 differ$' <<<"$out"; then
			pass "walk-equals-backtrace-$round"
		else
			fail "walk-equals-backtrace-$round" "$(head -3 <<<"$out" | tr '\n' ' ')"
		fi
	done
	# Root: the same objects from ustackd's store.  fakedev.so has no
	# STORE_ADD (ENOTTY, as from a module without it), so each store
	# entry is registered for the process: the walk is as good, cold
	# (the helper writes the store) and warm (entries found there).
	if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
		out=$(unshare -m --propagation private sh -c '
			mount -t tmpfs -o mode=755 tmpfs /var/cache/ustack || exit 9
			for round in cold warm; do
				echo "round $round: $(env LD_PRELOAD="$1/fakedev.so $2" \
					"$1/btmain" "$1/libcb.so" 2>&1 | tr "\n" " ")"
			done
			echo "store: $(ls /var/cache/ustack/sframe | wc -l)"
			' sh "$W" "$SHIM" 2>&1)
		if [ "$(grep -c 'registrations 7 .*backtrace [0-9]* frames, walk [0-9]* (end 0), 0 differ $' <<<"$out")" = 2 ] &&
			grep -q '^store: [1-9]' <<<"$out"; then
			pass shim-root-store-fallback
		else
			fail shim-root-store-fallback "$(tr '\n' ' ' <<<"$out" | head -c 400)"
		fi
		# SFRAME_STORE_KEEP: an object with an entry keeps it (EEXIST is
		# success: nothing added without the flag); a module older than
		# the flag (EINVAL) is asked with it once, then without.
		out=$(unshare -m --propagation private sh -c '
			mount -t tmpfs -o mode=755 tmpfs /var/cache/ustack || exit 9
			env LD_PRELOAD="$1/fakedev.so $2" "$1/btmain" "$1/libcb.so" >/dev/null 2>&1
			for m in keep old; do
				echo "$m: $(env FAKEDEV_STORE=$m LD_PRELOAD="$1/fakedev.so $2" \
					"$1/btmain" "$1/libcb.so" 2>&1 | grep "^fakedev: store_add")"
			done
			' sh "$W" "$SHIM" 2>&1)
		if grep -q '^keep: fakedev: store_add keep [1-9][0-9]* plain 0$' <<<"$out" &&
			grep -q '^old: fakedev: store_add keep 1 plain [1-9][0-9]*$' <<<"$out"; then
			pass shim-root-store-keep
		else
			fail shim-root-store-keep "$(tr '\n' ' ' <<<"$out" | head -c 400)"
		fi
	fi
	# and it can fail: without the cache nothing is registered for libc
	out=$(asuser env LD_PRELOAD="$W/fakedev.so $SHIM" USTACK_CACHE_DIR="$U/btempty" \
		USTACK_SHIM_NOGEN=1 "$W/btmain" "$W/libcb.so" 2>&1)
	if grep -q 'length differs' <<<"$out"; then
		pass walk-without-cache-stops
	else
		fail walk-without-cache-stops "$(head -2 <<<"$out" | tr '\n' ' ')"
	fi
else
	fail walk-build "$(head -3 "$W/cc.err")"
fi

# vm_bt (the VM test program comparing ustack_backtrace() with backtrace())
# builds and, here without the kernel, reports ENOSYS cleanly.
if gcc -O2 -fomit-frame-pointer -o "$W/vm_bt" "$R/vm_bt.c" -ldl 2>"$W/cc.err"; then
	out=$("$SR" run -- "$W/vm_bt" "$W/libcb.so" 2>&1)
	if grep -q 'bt: ustack_backtrace failed: Function not implemented' <<<"$out" &&
		grep -q 'api: register(junk)=-38 unregister(junk)=-38' <<<"$out"; then
		pass vm-bt-without-kernel
	else
		fail vm-bt-without-kernel "$(tr '\n' ' ' <<<"$out")"
	fi
else
	fail vm-bt-without-kernel "build: $(head -2 "$W/cc.err")"
fi

# ustack_backtrace() is async-signal-safe: it runs on an 8 KiB alternate
# signal stack (guard page below), and neither allocates nor scans nor
# starts the helper (libasync.so, dlopen'ed by bare name, is still
# unregistered: the call uses only what is registered).
cp "$W/libcb.so" "$W/libasync.so"
if gcc $CFLAGS_T -o "$W/asyncsafe" "$R/asyncsafe.c" -L"$S" -lsframe-register \
	-Wl,-rpath,"$S" -ldl 2>"$W/cc.err"; then
	out=$("$W/asyncsafe" altstack 2>&1)
	rc=$?
	if [ $rc = 0 ] && [ "$out" = "altstack: -1, -1" ]; then
		pass api-backtrace-on-sigaltstack
	else
		fail api-backtrace-on-sigaltstack "exit $rc: $out"
	fi
	out=$(asuser env LD_LIBRARY_PATH="$W" USTACK_SHIM_FORCE=1 USTACK_SHIM_DEBUG=1 \
		USTACK_CACHE_DIR="$U/asynccache" "$W/asyncsafe" nomalloc libasync.so 2>"$W/async.log")
	during=$(sed -n '/^marker: before/,/^marker: after/p' "$W/async.log" | grep -v '^marker')
	if [ "$out" = "nomalloc: 0 calls" ] && [ -z "$during" ]; then
		pass api-backtrace-no-malloc-no-helper
	else
		fail api-backtrace-no-malloc-no-helper "$out; during the call: $(head -3 <<<"$during" | tr '\n' ' ')"
	fi
else
	fail api-backtrace-async-build "$(head -3 "$W/cc.err")"
fi

# The API without kernel support fails cleanly.
out=$("$W/apitest" 2>&1)
if [ "$out" = "backtrace=-1 errno=ENOSYS register=-38 unregister=-38 zero=0" ]; then
	pass api-without-kernel
else
	fail api-without-kernel "$out"
fi
exit 0
