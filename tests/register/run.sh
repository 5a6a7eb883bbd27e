#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/register: sframe-register gen/check/run, the shim and its cache.
# Run from the repository root: bash tests/register/run.sh [NAME...]
# Prints PASS: register/<name> or FAIL: register/<name>: <reason>; with
# NAMEs (e.g. shim-vdso, 'check-libc*'), only those (tests/select.sh): the
# expensive steps of the others are skipped.
#
# One function a test (or a family of tests, one per object or flag),
# run by t NAME FUNCTION [ARGS...]: it prints why it failed and returns 1.
# A test makes what it needs (gen outputs, the warm cache) if no test
# before it has: any one can run alone.
set -u
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
. tests/select.sh register "$@"
SR=$ROOT/tools/sframe-register/sframe-register
S=$ROOT/tools/shim
SHIM=$S/libsframe-register.so
LIB=$ROOT/tools/lib/libustack-tools.a
R=$ROOT/tests/register
C=$R/corpus
W=$(mktemp -d /tmp/ustack-register.XXXXXX)
mkdir -p "$W/sub"
on_exit 'rm -rf "$W"'

# run_test NAME FUNCTION [ARGS...] (tests/select.sh): the function prints
# its failure reason and returns 1.
if ! make -s -C tools/sframe-register -j2 >"$W/build.log" 2>&1 ||
   ! make -s -C tools/shim -j2 >>"$W/build.log" 2>&1; then
	fail build "make -C tools/sframe-register, tools/shim failed: $(tail -3 "$W/build.log" | tr '\n' ' ')"
	exit 0
fi
pass build

# ---- helpers -------------------------------------------------------------

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

# gen_once FILE OUT VERSION [LOG]: `gen FILE -o OUT --version VERSION`,
# unless OUT was made already; its output in LOG (default: discarded).
gen_once() {
	[ -f "$2" ] && return 0
	"$SR" gen "$1" -o "$2" --version "$3" >"${4:-/dev/null}" 2>&1
}

# check_clean FILE: check reports 0 mismatch and 0 missing, and agrees on
# >= 97% of PCs (ld.so: 98%).
check_clean() {
	local out rc line pcs agree
	out=$("$SR" check "$1" 2>&1)
	rc=$?
	line=$(grep '^check:' <<<"$out")
	pcs=$(sed -n 's/.* \([0-9]*\) PCs:.*/\1/p' <<<"$line")
	agree=$(sed -n 's/.*PCs: \([0-9]*\) agree.*/\1/p' <<<"$line")
	if [ $rc -ne 0 ] || [ -z "$line" ]; then
		echo "check exit $rc: $(head -3 <<<"$out" | tr '\n' ' ')"
		return 1
	fi
	grep -q ' 0 mismatch, 0 missing' <<<"$line" || { echo "$line"; return 1; }
	if [ -z "$pcs" ] || [ "$pcs" -eq 0 ] || [ $((agree * 100 / pcs)) -lt 97 ]; then
		echo "too few PCs agree: $line"
		return 1
	fi
}

# ---- 1. system objects: gen --version 1/2/3, then check PC by PC ---------

SYSTEM_OBJS=(/lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2
	/usr/lib/x86_64-linux-gnu/libstdc++.so.6 /usr/bin/python3.11)
LIBC=/lib/x86_64-linux-gnu/libc.so.6

# check-OBJ-vN: gen's v1, v2 and v3 output of OBJ agrees with its .eh_frame.
check_system_obj() { # OBJ
	local obj=$1 b=${1##*/} v
	if [ ! -r "$obj" ]; then
		fail "check-$b" "$obj missing"
		return
	fi
	for v in 1 2 3; do
		if gen_once "$obj" "$W/$b.v$v" "$v" "$W/gen.out"; then
			run_test "check-$b-v$v" check_clean "$W/$b.v$v"
		else
			fail "check-$b-v$v" "gen failed: $(head -2 "$W/gen.out")"
		fi
	done
}

# A second interpreter: readelf's --debug-dump=frames-interp (binutils, not
# libdw) must give the same rules as gen's v2 output at each row's first and
# last PC, "none" for functions left out, "outermost" for RA undefined.
readelf_cross() { # OBJ
	python3 "$R/ehcross.py" "$1" "$W/${1##*/}.v2" "$SR"
}

# libsframe (binutils 2.40, v1 only) accepts gen's v1 output of libc whole.
readelf_sframe_reads_libc_v1() {
	gen_once "$LIBC" "$W/libc.so.6.v1" 1 || { echo "gen failed"; return 1; }
	readelf --sframe "$W/libc.so.6.v1" >"$W/rs.out" 2>"$W/rs.err" &&
		[ ! -s "$W/rs.err" ] && [ "$(grep -c 'func idx' "$W/rs.out")" -gt 3000 ] ||
		{ head -2 "$W/rs.err"; return 1; }
}

# What libc's generated v3 leaves out: exactly the hand-written frames that
# SFrame cannot express (CFA in a register: __longjmp x2, __longjmp_chk,
# setcontext; RA in a register: vfork; signal frame: __restore_rt).
gen_libc_left_out() {
	"$SR" gen "$LIBC" -o "$W/libc.v3" --version 3 >"$W/libc.v3.log" 2>&1
	grep -q 'left out 6 (cfa 4, ra 1, fp 0, signal 1,' "$W/libc.v3.log" ||
		{ cat "$W/libc.v3.log"; return 1; }
}

# The output is an ELF file readelf accepts, with an allocated .sframe.
gen_output_elf() {
	gen_once "$LIBC" "$W/libc.v3" 3 || { echo "gen failed"; return 1; }
	readelf -SW "$W/libc.v3" 2>"$W/re.err" | grep -q '\.sframe *PROGBITS .* A ' &&
		[ ! -s "$W/re.err" ] && "$SR" dump "$W/libc.v3" | grep -q SFRAME_VERSION_3 ||
		{ echo "readelf/dump: $(head -2 "$W/re.err")"; return 1; }
}

# The default is v1, what gas 2.40 makes and binutils 2.40 itself decodes.
gen_default_v1_readelf() {
	"$SR" gen /usr/bin/python3.11 -o "$W/py.def" >/dev/null 2>&1
	readelf --sframe "$W/py.def" 2>"$W/re.err" | grep -q 'SFRAME_VERSION_1' &&
		[ ! -s "$W/re.err" ] || { head -2 "$W/re.err"; return 1; }
}

for obj in "${SYSTEM_OBJS[@]}"; do
	want "check-${obj##*/}*" "readelf-cross-${obj##*/}" && check_system_obj "$obj"
done
for obj in "${SYSTEM_OBJS[@]:0:3}"; do
	[ -f "$W/${obj##*/}.v2" ] && run_test "readelf-cross-${obj##*/}" readelf_cross "$obj"
done
run_test readelf-sframe-reads-libc-v1 readelf_sframe_reads_libc_v1
run_test gen-libc-left-out gen_libc_left_out
run_test gen-output-elf gen_output_elf
run_test gen-default-v1-readelf gen_default_v1_readelf

# ---- 2. the --gsframe corpus -----------------------------------------------

# The corpus: prog at -O0, -O2, -Os and -O2 with frame pointers, a program
# with hand-written CFI (cfi.s), prog without ld's PLT unwind info, a frame
# probed under -fstack-clash-protection (clash.c).
corpus_build() {
	local o f ok=0
	for o in O0 O2 Os O2fp; do
		f="-$o"
		[ $o = O2fp ] && f="-O2 -fno-omit-frame-pointer"
		gcc $f -Wa,--gsframe -o "$W/prog_$o" "$C/prog.c" 2>"$W/cc.err" || ok=1
	done
	gcc -O2 -Wa,--gsframe -o "$W/cfi" "$C/cfimain.c" "$C/cfi.s" 2>>"$W/cc.err" || ok=1
	gcc -O2 -Wa,--gsframe -Wl,--no-ld-generated-unwind-info -o "$W/prog_noplt" \
		"$C/prog.c" 2>>"$W/cc.err" || ok=1
	gcc -O2 -fstack-clash-protection -o "$W/clash" "$C/clash.c" 2>>"$W/cc.err" || ok=1
	gcc -O2 -no-pie -o "$W/prog_nopie" "$C/prog.c" 2>>"$W/cc.err" || ok=1
	gcc -O2 -o "$W/drap" "$ROOT/tests/sframe/corpus/v3.c" 2>>"$W/cc.err" || ok=1
	[ $ok = 0 ] || head -3 "$W/cc.err"
	return $ok
}

# gas's own v1 agrees with .eh_frame (except what gas leaves out).
check_gas() { # PROG
	local out
	out=$("$SR" check "$1" 2>&1)
	grep -q ' 0 mismatch' <<<"$out" || { tail -1 <<<"$out"; return 1; }
}

# gen --version 1 gives the same per-PC rules as gas's v1 wherever gas has
# a rule (gas has none for crt code, _start and .plt.got).
gen_v1_equals_gas() { # PROG
	local p=$1 n cmp ncmp nbad first
	gen_once "$p" "$p.g1" 1
	pcs "$p" '^\.(plt|text)' >"$p.pcs"
	xargs "$SR" lookup "$p" <"$p.pcs" >"$p.gas.l" 2>&1
	xargs "$SR" lookup "$p.g1" <"$p.pcs" >"$p.gen.l" 2>&1
	n=$(wc -l <"$p.pcs")
	cmp=$(paste -d'|' "$p.gas.l" "$p.gen.l" | awk -F'|' '
		$1 !~ / none$/ { n++; if ($1 != $2) { bad++; if (!first) first = $1 " vs " $2 } }
		END { printf "%d %d %s\n", n, bad, first }')
	read -r ncmp nbad first <<<"$cmp"
	if [ "$(wc -l <"$p.gen.l")" != "$n" ] || [ "${ncmp:-0}" -lt 100 ]; then
		echo "lookup failed or too few PCs ($ncmp of $n)"
		return 1
	fi
	[ "$nbad" = 0 ] || { echo "$nbad of $ncmp PCs differ, first: $first"; return 1; }
}

# binutils' own decoder (readelf --sframe, libsframe) reads gen's v1 and
# shows every function of gas's .sframe identically.
readelf_sframe_gen_v1_equals_gas() { # PROG
	gen_once "$1" "$1.g1" 1
	python3 "$R/sfcompare.py" "$1" "$1.g1"
}

# The generated copy still runs and prints the same.
gen_output_runs() { # PROG
	gen_once "$1" "$1.g1" 1
	[ "$("$1" 4)" = "$("$1.g1" 4)" ] || { echo "output differs"; return 1; }
}

# check must fail where gas 2.40 is wrong (CFA in r10 encoded as sp+0, and
# .cfi_undefined rip encoded as an ordinary frame); gen leaves both out.
check_detects_gas_bugs() {
	local out rc
	out=$("$SR" check "$W/cfi" 2>&1)
	rc=$?
	[ $rc = 1 ] && grep -q 'mismatch .* eh_frame: cfa=r10+0 fp=u ra=c-8 sframe: cfa=sp+0' <<<"$out" &&
		grep -q 'eh_frame: outermost sframe: cfa=sp+8' <<<"$out" ||
		{ echo "rc=$rc $(tail -1 <<<"$out")"; return 1; }
}

readelf_cross_detects_gas_bugs() {
	! python3 "$R/ehcross.py" "$W/cfi" "$W/cfi" "$SR" >/dev/null 2>&1 ||
		{ echo "no difference found"; return 1; }
}

gen_cfi_cases() { # VERSION
	local out cfa=1 flex=0
	[ "$1" = 3 ] && cfa=0 flex=1	# f_r10's CFA in r10: a v3 flex FRE
	"$SR" gen "$W/cfi" -o "$W/cfi.g$1" --version "$1" >"$W/cfi.g$1.log" 2>&1
	out=$("$SR" check "$W/cfi.g$1" 2>&1) && grep -q 'left out [0-9]* (cfa '$cfa',' "$W/cfi.g$1.log" &&
		grep -q " $flex with a CFA in another register" "$W/cfi.g$1.log" &&
		grep -q ' 0 mismatch, 0 missing' <<<"$out" ||
		{ echo "$(cat "$W/cfi.g$1.log") / $(tail -1 <<<"$out")"; return 1; }
}

# A function with a row v2 cannot express keeps the others' rules: in
# big() (clash.c) only the stack-clash probe loop (CFA in r11) has none,
# not its body, its epilogue or its entry.  v3 says the loop's rule too,
# in a flex FDE between the function's two default ones (CFA = r11 + N),
# and check agrees with it at every PC.
# gen_v23 PROG: PROG.g2 and PROG.g3 (v2 and v3, gen's line in .log) and
# check's verdicts on them (PROG.c2, PROG.c3).
gen_v23() {
	local v
	for v in 2 3; do
		"$SR" gen "$1" -o "$1.g$v" --version $v >"$1.g$v.log" 2>&1 ||
			{ cat "$1.g$v.log"; return 1; }
		"$SR" check "$1.g$v" >"$1.c$v" 2>&1
	done
}
# func_pcs PROG FUNC: each address of FUNC, one a line.
func_pcs() {
	local a s
	read -r a s < <(nm -S "$1" | awk -v f="$2" '$4 == f { print $1, $2 }')
	seq $((16#$a)) $((16#$a + 16#$s - 1)) | xargs printf '%#x\n'
}

gen_stack_clash() {
	local all loop
	all=$(func_pcs "$W/clash" big)
	gen_v23 "$W/clash" || return 1
	loop=$(xargs "$SR" lookup "$W/clash.g3" <<<"$all" | grep -c 'cfa=r11+')
	grep -q 'left out 1 (cfa 1,' "$W/clash.g2.log" && grep -q ' 0 mismatch, 0 missing, left out [1-9]' "$W/clash.c2" &&
		! "$SR" lookup "$W/clash.g2" "$(head -n1 <<<"$all")" "$(tail -n1 <<<"$all")" | grep -q ' none$' &&
		grep -q ' 1 with a CFA in another register .* left out 0 ' "$W/clash.g3.log" &&
		grep -q ' 0 mismatch, 0 missing, left out 0 ' "$W/clash.c3" &&
		! xargs "$SR" lookup "$W/clash.g3" <<<"$all" | grep -q ' none$' && [ "$loop" -gt 0 ] ||
		{ echo "$(cat "$W/clash.g2.log" "$W/clash.g3.log" "$W/clash.c2" "$W/clash.c3") / r11 rows: $loop"; return 1; }
}

# drap() (tests/sframe/corpus/v3.c, built by the host's binutils: no
# .sframe of its own) realigns its stack through DRAP: CFA = *(rbp - 8) in
# its body, rbp at *rbp.  v3 flex FDEs say every row of it (check: all
# agree); v2 cannot, and leaves it out.  (sigtramp_like, a signal frame,
# is left out by both.)
gen_drap() {
	gen_v23 "$W/drap" || return 1
	func_pcs "$W/drap" drap | xargs "$SR" lookup "$W/drap.g3" >"$W/drap.l3"
	grep -q 'left out 2 (cfa 1, ra 0, fp 0, signal 1,' "$W/drap.g2.log" &&
		grep -q ' 1 with a CFA in another register .* left out 1 (cfa 0, ra 0, fp 0, signal 1,' "$W/drap.g3.log" &&
		grep -q ' 0 mismatch, 0 missing,' "$W/drap.c3" &&
		! grep -q ' none$' "$W/drap.l3" &&
		grep -q 'cfa=\*(fp-8) fp=\*(fp+0) ra=c-8' "$W/drap.l3" ||
		{ echo "$(cat "$W/drap.g2.log" "$W/drap.g3.log" "$W/drap.c3") / $(grep -c 'fp-8' "$W/drap.l3") DRAP rows"; return 1; }
}

# v3 says outermost for f_undef_ra; v1 cannot, and leaves it out.
gen_outermost() {
	local a l1 l3
	gen_once "$W/cfi" "$W/cfi.g1" 1
	gen_once "$W/cfi" "$W/cfi.g3" 3
	a=$(nm "$W/cfi" | awk '$3 == "f_undef_ra" { print $1 }')
	a=$(printf '0x%x' $((16#${a:-0})))
	l3=$("$SR" lookup "$W/cfi.g3" "$a" 2>&1)
	l1=$("$SR" lookup "$W/cfi.g1" "$a" 2>&1)
	[ "$l3" = "$a outermost" ] && [ "$l1" = "$a none" ] ||
		{ echo "v3: $l3, v1: $l1"; return 1; }
}

# Corrupt .eh_frame input: gen and check neither crash nor hang.
gen_check_corrupt_eh_frame() {
	mkdir -p "$W/mut"
	python3 "$R/mutate.py" "$SR" "$W/prog_O2" "$W/mut" 100
}

# A corrupted .sframe must make check fail: change one FRE's CFA offset.
check_detects_corruption() {
	local off out
	gen_once "$W/prog_O2" "$W/prog_O2.g1" 1
	cp "$W/prog_O2.g1" "$W/corrupt"
	read -r addr off < <(readelf -SW "$W/corrupt" | sed -n 's/.*\] \.sframe *PROGBITS *\([0-9a-f]*\) \([0-9a-f]*\) .*/\1 \2/p')
	read -r text < <(readelf -SW "$W/corrupt" | sed -n 's/.*\] \.text *PROGBITS *\([0-9a-f]*\) .*/\1/p')
	# Corrupt a data byte of the first FRE of the first function of .text
	# (ahead of it: .init's FDE, synthesized, which .eh_frame cannot check).
	# v1: the FDEs (17 bytes: start from the section, size, FRE offset, ...)
	# at 28 + fdeoff, the FREs at 28 + freoff.
	python3 - "$W/corrupt" "$((16#$off))" "$((16#$addr))" "$((16#$text))" <<'EOF'
import struct, sys
p, off, addr, text = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
b = bytearray(open(p, 'rb').read())
nfdes, _, _, fdeoff, freoff = struct.unpack_from('<5I', b, off + 8)
for i in range(nfdes):
    start, _, fre_off = struct.unpack_from('<iII', b, off + 28 + fdeoff + 17 * i)
    if addr + start >= text:
        break
fre = off + 28 + freoff + fre_off
b[fre + 2] ^= 0x10          # ADDR1 FRE: start, info, then the CFA offset
open(p, 'wb').write(b)
EOF
	out=$("$SR" check "$W/corrupt" 2>&1)
	[ $? = 1 ] && grep -q '^mismatch' <<<"$out" || { tail -1 <<<"$out"; return 1; }
}

# IBT PLTs (-z ibtplt: endbr64 in .plt, plus .plt.sec): ld 2.40's own
# SFrame for them is wrong (it uses the non-IBT push offset 11 instead of 9
# and puts a PLT0 FDE on .plt.sec); check catches that, and gen follows the
# .eh_frame (or, without it, the instruction bytes) correctly.
ibt_build() {
	gcc -O2 -fcf-protection=full -Wl,-z,ibtplt -Wa,--gsframe -o "$W/prog_ibt" "$C/prog.c" 2>/dev/null &&
		gcc -O2 -fcf-protection=full -Wl,-z,ibtplt -Wl,--no-ld-generated-unwind-info \
			-o "$W/prog_ibt_nounw" "$C/prog.c" 2>/dev/null
}

check_detects_ld_ibt_plt_bug() {
	local out
	out=$("$SR" check "$W/prog_ibt" 2>&1)
	[ $? = 1 ] && grep -q '^mismatch 0x[0-9a-f]*9 eh_frame: cfa=sp+16' <<<"$out" ||
		{ tail -1 <<<"$out"; return 1; }
}

gen_ibt_plt() {
	local out
	"$SR" gen "$W/prog_ibt" -o "$W/ibt.g" --version 2 >/dev/null 2>&1
	"$SR" gen "$W/prog_ibt_nounw" -o "$W/ibt_nounw.g" --version 2 >"$W/g" 2>&1
	out=$("$SR" check "$W/ibt.g" 2>&1)
	pcs "$W/prog_ibt" '^\.plt' >"$W/pp"
	xargs "$SR" lookup "$W/ibt.g" <"$W/pp" >"$W/a"
	xargs "$SR" lookup "$W/ibt_nounw.g" <"$W/pp" >"$W/b"
	grep -q ' 0 mismatch, 0 missing' <<<"$out" && grep -q 'synthesized PLTs 3' "$W/g" &&
		[ -s "$W/a" ] && cmp -s "$W/a" "$W/b" ||
		{ echo "$(tail -1 <<<"$out") / $(cat "$W/g") / $(diff "$W/a" "$W/b" | head -2 | tr '\n' ' ')"; return 1; }
}

# PLT without .eh_frame (ld --no-ld-generated-unwind-info): gen synthesizes
# PLT0 + a PCMASK FDE that give the same rules as ld's own CFI.
gen_plt_synthesized() {
	"$SR" gen "$W/prog_noplt" -o "$W/noplt.g" --version 2 >"$W/g" 2>&1
	"$SR" gen "$W/prog_O2" -o "$W/withplt.g" --version 2 >/dev/null 2>&1
	pcs "$W/prog_noplt" '^\.plt$' >"$W/pp"
	pcs "$W/prog_O2" '^\.plt$' >"$W/pq"
	xargs "$SR" lookup "$W/noplt.g" <"$W/pp" | cut -d' ' -f2- >"$W/a"
	xargs "$SR" lookup "$W/withplt.g" <"$W/pq" | cut -d' ' -f2- >"$W/b"
	grep -q 'synthesized PLTs [12]' "$W/g" && [ -s "$W/a" ] && cmp -s "$W/a" "$W/b" &&
		! grep -q none "$W/a" || { cat "$W/g"; return 1; }
}

# .init and .fini (crti.o, crtn.o: no CFI) get rules from their bytes:
# CFA rsp+8 at _init's first instruction, where a program's first sample
# often lands, rsp+16 after its "[endbr64] sub $8,%rsp" (offset 8 is past it either
# way), rsp+8 again at the ret.
gen_init_fini() {
	local init fini out
	"$SR" gen "$W/prog_O2" -o "$W/crt.g3" --version 3 >"$W/crt.log" 2>&1 ||
		{ cat "$W/crt.log"; return 1; }
	init=$(pcs "$W/prog_O2" '^\.init$' | sed -n '1p; 9p; $p')
	fini=$(pcs "$W/prog_O2" '^\.fini$' | sed -n '1p; $p')
	out=$("$SR" lookup "$W/crt.g3" $init $fini 2>&1 | cut -d' ' -f2 | paste -sd' ')
	grep -q '.init/.fini 2,' "$W/crt.log" && [ "$out" = "cfa=sp+8 cfa=sp+16 cfa=sp+8 cfa=sp+8 cfa=sp+8" ] ||
		{ echo "$(cat "$W/crt.log") / .init, .fini: $out"; return 1; }
}

# libgcc's crtbegin code has no CFI: gen makes its FDEs from its bytes, in
# PIE programs (crtbeginS.o) and others (crtbegin.o).  Each function's
# entry is sp+8; __do_global_dtors_aux's body, after "push %rbp", sp+16.
sym_addr() { # FILE SYMBOL
	nm "$1" | awk -v s="$2" '$3 == s { print "0x" $1 }'
}
gen_crtbegin() { # PROG
	local p=$1 d out w="cfa=sp+8 fp=u ra=c-8"
	"$SR" gen "$p" -o "$p.crtb" --version 3 >"$p.crtb.log" 2>&1 ||
		{ cat "$p.crtb.log"; return 1; }
	d=$(sym_addr "$p" __do_global_dtors_aux)
	out=$("$SR" lookup "$p.crtb" "$(sym_addr "$p" deregister_tm_clones)" \
		"$(sym_addr "$p" register_tm_clones)" "$(sym_addr "$p" frame_dummy)" \
		"$d" "$(printf '0x%x' $((d + 0x10)))" 2>&1 | cut -d' ' -f2- | paste -sd,)
	grep -q 'crtbegin 1$' "$p.crtb.log" &&
		[ "$out" = "$w,$w,$w,$w,cfa=sp+16 fp=c-16 ra=c-8" ] ||
		{ echo "$(cat "$p.crtb.log") / $out"; return 1; }
}

# Built whatever is asked: the shim's tests run prog_O2 too.
if out=$(corpus_build); then
	pass corpus-build
else
	fail corpus-build "$out"
fi
for o in O0 O2 Os O2fp; do
	[ -x "$W/prog_$o" ] || continue
	run_test "check-gas-$o" check_gas "$W/prog_$o"
	run_test "gen-v1-equals-gas-$o" gen_v1_equals_gas "$W/prog_$o"
	run_test "readelf-sframe-gen-v1-equals-gas-$o" readelf_sframe_gen_v1_equals_gas "$W/prog_$o"
	run_test "gen-output-runs-$o" gen_output_runs "$W/prog_$o"
done
if [ -x "$W/cfi" ]; then
	run_test check-detects-gas-bugs check_detects_gas_bugs
	run_test readelf-cross-detects-gas-bugs readelf_cross_detects_gas_bugs
	run_test gen-cfi-cases-v1 gen_cfi_cases 1
	run_test gen-cfi-cases-v3 gen_cfi_cases 3
	run_test gen-outermost gen_outermost
fi
[ -x "$W/clash" ] && run_test gen-stack-clash gen_stack_clash
[ -x "$W/drap" ] && run_test gen-drap gen_drap
[ -x "$W/prog_O2" ] && run_test gen-crtbegin-pie gen_crtbegin "$W/prog_O2"
[ -x "$W/prog_nopie" ] && run_test gen-crtbegin-nopie gen_crtbegin "$W/prog_nopie"
if [ -x "$W/prog_O2" ]; then
	run_test gen-check-corrupt-eh_frame gen_check_corrupt_eh_frame
	run_test check-detects-corruption check_detects_corruption
fi
if want check-detects-ld-ibt-plt-bug gen-ibt-plt && ! ibt_build; then
	fail gen-ibt-plt "cannot build with -fcf-protection -z ibtplt"
elif [ -x "$W/prog_ibt" ]; then
	run_test check-detects-ld-ibt-plt-bug check_detects_ld_ibt_plt_bug
	run_test gen-ibt-plt gen_ibt_plt
fi
[ -x "$W/prog_noplt" ] && run_test gen-plt-synthesized gen_plt_synthesized
[ -x "$W/prog_O2" ] && run_test gen-init-fini gen_init_fini

# ---- 3. the shim -------------------------------------------------------------
want 'shim-*' run-preloads-shim 'gen-cache-*' 'walk-*' 'vm-bt-*' 'api-*' || exit 0
# Host tests: no /dev/sframe here.  USTACK_SHIM_FORCE=1 makes the shim do its
# cache work anyway (registering nothing); USTACK_SHIM_DEBUG=1 logs it.
CFLAGS_T="-O2 -g -Wall -I$S -I$ROOT/tools/lib -I$ROOT/module -I$ROOT/include"
if [ -e /dev/sframe ]; then
	echo "register: /dev/sframe exists: host-only shim tests skipped" >&2
	exit 0
fi

# The test programs: cachecheck, liba/libb (DT_RUNPATH), dlmain, apitest,
# fakedev.so (a stand-in for /dev/sframe), libcb.so.
shim_build() {
	gcc $CFLAGS_T -o "$W/cachecheck" "$R/cachecheck.c" "$LIB" -lelf 2>"$W/cc.err" &&
	gcc -O2 -shared -fPIC -o "$W/sub/libb.so" "$R/libb.c" 2>>"$W/cc.err" &&
	gcc -O2 -shared -fPIC -o "$W/liba.so" "$R/liba.c" \
		-Wl,--enable-new-dtags,-rpath,'$ORIGIN/sub' 2>>"$W/cc.err" &&
	gcc -O2 -o "$W/dlmain" "$R/dlmain.c" -L"$W" -la \
		-Wl,--enable-new-dtags,-rpath,"$W" 2>>"$W/cc.err" &&
	gcc $CFLAGS_T -o "$W/apitest" "$R/apitest.c" -L"$S" -lsframe-register \
		-Wl,-rpath,"$S" 2>>"$W/cc.err" &&
	gcc -O2 -g -shared -fPIC -Wa,--gsframe $CFLAGS_T -o "$W/fakedev.so" "$R/fakedev.c" \
		"$LIB" -ldl 2>>"$W/cc.err" &&
	gcc -O2 -shared -fPIC -o "$W/libcb.so" "$R/libcb.c" 2>>"$W/cc.err" ||
		{ head -3 "$W/cc.err"; return 1; }
}
if ! out=$(shim_build); then
	fail shim-build "$out"
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
is_root_with_ns() { [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; }
CD=$U/cache
LIBC_ID=$(readelf -n "$LIBC" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')

# The first run on the cold cache $CD, once: its log in $W/cache1.log.
cache_first_run() {
	[ -f "$W/cache1.log" ] && return
	shim_env USTACK_SHIM_FORCE=1 USTACK_SHIM_DEBUG=1 USTACK_CACHE_DIR="$CD" \
		"$P" 6 2>"$W/cache1.log" >/dev/null
}
# libc's cache entry in $CD
libc_entry() { cache_first_run; ls "$CD"/$LIBC_ID*.v3.sframe 2>/dev/null | head -1; }

# Without /dev/sframe the shim does nothing: same output, nothing on stderr,
# no cache directory created.
shim_silent_without_device() {
	local cmd a b same=1
	for cmd in "$P 6" "python3.11 -c print(sum(range(10)))" "ls -d /" "$W/dlmain $W/sub/libb.so"; do
		a=$($cmd 2>&1)
		b=$(shim_env USTACK_CACHE_DIR="$U/nocache" $cmd 2>&1)
		[ "$a" = "$b" ] || { same=0; echo "  differs: $cmd"; }
	done
	[ $same = 1 ] && [ ! -e "$U/nocache" ] ||
		{ echo "output differs or cache dir created"; return 1; }
}

# sframe-register run: preloads the shim, passes arguments and exit status.
run_preloads_shim() {
	local out rc
	out=$("$SR" run -- sh -c 'echo "$LD_PRELOAD"; exit 7')
	rc=$?
	[ $rc = 7 ] && grep -q "libsframe-register.so" <<<"$out" &&
		[ "$("$SR" run "$P" 6)" = "$("$P" 6)" ] || { echo "rc=$rc out=$out"; return 1; }
}

# Cache: a miss generates <build-id>-<file>.v3.sframe in the per-user
# directory, the next run hits; a replaced file (other build-id) is never used.
shim_cache_miss_then_hit() {
	local f m1 m2 l1 l2
	cache_first_run
	l1=$(cat "$W/cache1.log")
	f=$(libc_entry)
	m1=$(stat -c %Y.%i "$f" 2>/dev/null)
	l2=$(shim_env USTACK_SHIM_FORCE=1 USTACK_SHIM_DEBUG=1 USTACK_CACHE_DIR="$CD" "$P" 6 2>&1 >/dev/null)
	m2=$(stat -c %Y.%i "$f" 2>/dev/null)
	grep -q "libc.so.6: cache miss" <<<"$l1" && [ -n "$m1" ] &&
		grep -q "libc.so.6: cache hit" <<<"$l2" && ! grep -q "miss" <<<"$l2" &&
		[ "$m1" = "$m2" ] && [ "$(stat -c %a "$CD")" = 700 ] ||
		{ echo "first: $(grep libc <<<"$l1" | head -2 | tr '\n' ' ') second: $(grep libc <<<"$l2" | head -2 | tr '\n' ' ')"; return 1; }
}

# USTACK_SHIM_NOGEN=1: use existing entries only, never start the helper.
shim_nogen() {
	shim_env USTACK_SHIM_FORCE=1 USTACK_SHIM_NOGEN=1 USTACK_CACHE_DIR="$U/nogen" "$P" 6 >/dev/null 2>&1
	[ -d "$U/nogen" ] && [ -z "$(ls -A "$U/nogen")" ] ||
		{ echo "entries generated: $(ls "$U/nogen" 2>&1 | head -2)"; return 1; }
}

# The helper inherits none of the program's descriptors: fd 7 (a file) and
# fd 9 (a pipe's write end, whose reader would never see end of file)
# are open, not close-on-exec, in the program; fdhelper.sh logs its own.
shim_helper_inherits_no_fds() {
	printf '#!/bin/sh\nls /proc/$$/fd | tr "\\n" " " >>"%s/helperfds"\necho >>"%s/helperfds"\nexec "%s" "$@"\n' \
		"$U" "$U" "$SR" >"$W/fdhelper.sh"
	chmod 755 "$W/fdhelper.sh"
	shim_env USTACK_SHIM_FORCE=1 USTACK_CACHE_DIR="$U/fdcache" USTACK_SFRAME_REGISTER="$W/fdhelper.sh" \
		"$P" 6 7>/dev/null 9> >(cat >/dev/null) >/dev/null 2>&1
	[ -s "$U/helperfds" ] && ! grep -qw -e 7 -e 9 "$U/helperfds" ||
		{ echo "helper descriptors: $(head -3 "$U/helperfds" 2>&1 | tr '\n' '|')"; return 1; }
}

# slowhelper.sh takes 3 s for libslow.so (or hangs for 20 s with
# SLOW_HANG); helperwait times the fork or the dlopen; the short shim has
# a 2 s helper deadline.
helper_wait_build() {
	[ -x "$W/helperwait" ] && [ -f "$W/short/libsframe-register.so" ] && return
	printf '#!/bin/sh\ncase "$*" in *libslow*) [ -n "$SLOW_HANG" ] && exec sleep 20; sleep 3;; esac\nexec "%s" "$@"\n' \
		"$SR" >"$W/slowhelper.sh"
	chmod 755 "$W/slowhelper.sh"
	mkdir -p "$W/short"
	cp "$W/libcb.so" "$W/libslow.so"
	gcc -O2 -o "$W/helperwait" "$R/helperwait.c" -ldl -lpthread 2>"$W/cc.err" &&
		make -s -C tools/shim VARIANT_OUT="$W/short/libsframe-register.so" \
			VARIANT_DEFS=-DHELPER_TIMEOUT_MS=2000 variant >>"$W/cc.err" 2>&1
}

# A fork() in one thread while another waits for the helper does not wait
# for it: the shim's lock is not held meanwhile.
shim_fork_does_not_wait_for_helper() {
	local out fms dms
	out=$(shim_env USTACK_SHIM_FORCE=1 USTACK_CACHE_DIR="$U/forkcache" \
		USTACK_SFRAME_REGISTER="$W/slowhelper.sh" timeout 60 "$W/helperwait" fork "$W/libslow.so" 2>&1)
	read -r fms dms <<<"$(sed -n 's/^fork \([0-9]*\) ms, dlopen \([0-9]*\) ms$/\1 \2/p' <<<"$out")"
	[ -n "$fms" ] && [ "$fms" -lt 1000 ] && [ "$dms" -ge 2500 ] || { echo "$out"; return 1; }
}

# The helper's time limit holds under a signal every 20 ms (a profiler's
# timer): the short shim gives up on a helper that hangs for 20 s after
# about 2 s, not when the helper ends.
shim_helper_deadline_survives_signals() {
	local out dms sigs
	out=$(asuser env LD_PRELOAD="$W/short/libsframe-register.so" USTACK_SHIM_FORCE=1 \
		USTACK_CACHE_DIR="$U/eintrcache" USTACK_SFRAME_REGISTER="$W/slowhelper.sh" SLOW_HANG=1 \
		timeout 60 "$W/helperwait" eintr "$W/libslow.so" 2>&1)
	read -r dms sigs <<<"$(sed -n 's/^dlopen \([0-9]*\) ms, \([0-9]*\) signals$/\1 \2/p' <<<"$out")"
	[ -n "$dms" ] && [ "$dms" -ge 1500 ] && [ "$dms" -lt 6000 ] && [ "$sigs" -gt 50 ] ||
		{ echo "$out"; return 1; }
}

# A malformed object whose PT_GNU_SFRAME or PT_NOTE lies outside its
# PT_LOAD segments (ld.so ignores both) is loaded, not read out of bounds:
# the shim checks each against the loaded segments.
shim_phdr_outside_load() {
	local l out rc bad=""
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
	for l in libbadsf.so libbadnote.so; do
		[ "$("$W/helperwait" open "$W/$l" 2>&1)" = opened ] || bad="$bad $l: not loadable without the shim;"
		out=$(shim_env USTACK_SHIM_FORCE=1 USTACK_SHIM_NOGEN=1 USTACK_CACHE_DIR="$U/badphdr" \
			"$W/helperwait" open "$W/$l" 2>&1)
		rc=$?
		[ $rc = 0 ] && [ "$out" = opened ] || bad="$bad $l: exit $rc $out;"
	done
	[ -z "$bad" ] || { echo "$bad"; return 1; }
}

# forge_run LIB [VAR=VALUE...]: the shim's log lines about LIB
forge_run() {
	local lib=$1
	shift
	shim_env USTACK_SHIM_FORCE=1 USTACK_SHIM_DEBUG=1 USTACK_CACHE_DIR="$U/forgecache" "$@" \
		"$W/helperwait" open "$lib" 2>&1 | grep -F "$(basename "$lib"):"
}

# A forged build-id does not poison the cache: libforged.so (other code)
# carries libreal.so's build-id; its entry, made first, is not used for
# libreal.so, whose file is another.  And an entry writable by group or
# others is not trusted (USTACK_SHIM_NOGEN: none is made instead).
shim_cache_forged_build_id() {
	local f1 f2 f3
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
	f1=$(forge_run "$W/forged/libforged.so")
	f2=$(forge_run "$W/libreal.so")
	chmod go+w "$U"/forgecache/*.v3.sframe 2>/dev/null
	f3=$(forge_run "$W/libreal.so" USTACK_SHIM_NOGEN=1)
	[ "$(readelf -n "$W/libreal.so" | grep 'Build ID')" = "$(readelf -n "$W/forged/libforged.so" | grep 'Build ID')" ] &&
		grep -q 'libforged.so: cache miss' <<<"$f1" && grep -q 'libreal.so: cache miss' <<<"$f2" &&
		! grep -q 'libreal.so: cache hit' <<<"$f2$f3" ||
		{ echo "forged: $(tr '\n' ' ' <<<"$f1") real: $(tr '\n' ' ' <<<"$f2") writable: $(tr '\n' ' ' <<<"$f3")"; return 1; }
}

# 8 processes starting together on a cold cache: one helper per object.
shim_cache_one_generator() {
	local herd=() i misses hits
	for i in 1 2 3 4 5 6 7 8; do
		shim_env USTACK_SHIM_FORCE=1 USTACK_SHIM_DEBUG=1 USTACK_CACHE_DIR="$U/herd" \
			"$P" 6 >"$W/herd.$i.out" 2>"$W/herd.$i.log" &
		herd+=($!)
	done
	wait "${herd[@]}"	# not a bare wait: that would wait for the results filter
	misses=$(cat "$W"/herd.*.log | grep -c 'libc.so.6: cache miss')
	hits=$(cat "$W"/herd.*.log | grep -c 'libc.so.6: cache hit')
	[ "$misses" = 1 ] && [ "$hits" = 7 ] &&
		[ "$(cat "$W"/herd.*.out | sort -u)" = "$("$P" 6)" ] ||
		{ echo "$misses misses, $hits hits for libc"; return 1; }
}

# Corrupt or truncated entries are refused quietly; the program runs as ever.
shim_corrupt_cache_harmless() {
	local bf o1 o2
	cache_first_run
	mkdir -p "$U/badcache"
	cp "$CD"/*.v3.sframe "$U/badcache/"
	[ "$(id -u)" = 0 ] && chown -R nobody "$U/badcache"
	bf=$(ls "$U"/badcache/$LIBC_ID*.v3.sframe | head -1)
	python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[40:]=bytes((i*37)&255 for i in range(len(b)-40)); open(sys.argv[1],'wb').write(b)" "$bf"
	o1=$(shim_env USTACK_SHIM_FORCE=1 USTACK_SHIM_NOGEN=1 USTACK_CACHE_DIR="$U/badcache" "$P" 6 2>&1)
	truncate -s 20 "$bf"
	o2=$(shim_env USTACK_SHIM_FORCE=1 USTACK_SHIM_NOGEN=1 USTACK_CACHE_DIR="$U/badcache" "$P" 6 2>&1)
	[ "$o1" = "$("$P" 6)" ] && [ "$o2" = "$o1" ] || { echo "output changed: $o1 / $o2"; return 1; }
}

# The vDSO: its image is saved as <build-id>.vdso.so and gets an entry too.
shim_vdso() {
	local vd
	cache_first_run
	vd=$(ls "$CD"/*.vdso.so 2>/dev/null | head -1)
	[ -n "$vd" ] && ls "${vd%.vdso.so}"-*.v3.sframe >/dev/null 2>&1 &&
		grep -q '\[vdso\]: ready' "$W/cache1.log" &&
		"$SR" gen "$vd" -o "$W/vdso.g" >/dev/null 2>&1 && "$SR" check "$W/vdso.g" >/dev/null 2>&1 ||
		{ echo "no vDSO image/entry, or check failed on it"; return 1; }
}

# as_nobody VAR=VALUE... CMD...: CMD as nobody, the USTACK_CACHE_DIR of the
# tests unset (the default directories are what is tested)
as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups env -u USTACK_CACHE_DIR "$@"
}

# Per-user default directory: $XDG_CACHE_HOME/ustack for a non-root user.
shim_cache_per_user_dir() {
	local xf
	mkdir -p "$W/xdg" && chown nobody "$W/xdg" && chmod 755 "$W"
	as_nobody XDG_CACHE_HOME="$W/xdg" USTACK_SHIM_FORCE=1 LD_PRELOAD="$SHIM" \
		USTACK_SFRAME_REGISTER="$SR" /bin/true 2>/dev/null
	xf=$(ls "$W"/xdg/ustack/$LIBC_ID*.v3.sframe 2>/dev/null | head -1)
	[ -n "$xf" ] && [ "$(stat -c %U "$xf")" = nobody ] ||
		{ echo "no entry in \$XDG_CACHE_HOME/ustack for nobody"; return 1; }
}

# Another user reads root's (system) directory when its own has nothing,
# and ignores it when it is group- or world-writable.
shim_cache_system_dir() {
	local out out2
	cache_first_run
	mkdir -p "$W/sys" "$W/xdg2" && chmod 755 "$W/sys" && chown nobody "$W/xdg2"
	cp "$CD"/*.v3.sframe "$W/sys/" && chmod 644 "$W/sys"/*
	out=$(as_nobody XDG_CACHE_HOME="$W/xdg2" USTACK_SYSTEM_CACHE="$W/sys" USTACK_SHIM_FORCE=1 \
		USTACK_SHIM_NOGEN=1 USTACK_SHIM_DEBUG=1 LD_PRELOAD="$SHIM" "$P" 6 2>&1)
	chmod 777 "$W/sys"	# group/world-writable: must be ignored
	out2=$(as_nobody XDG_CACHE_HOME="$W/xdg2" USTACK_SYSTEM_CACHE="$W/sys" USTACK_SHIM_FORCE=1 \
		USTACK_SHIM_NOGEN=1 USTACK_SHIM_DEBUG=1 LD_PRELOAD="$SHIM" "$P" 6 2>&1)
	grep -q 'libc.so.6: cache hit' <<<"$out" && ! grep -q 'libc.so.6: cache hit' <<<"$out2" &&
		[ -z "$(ls -A "$W/xdg2/ustack" 2>/dev/null)" ] ||
		{ echo "$(grep libc <<<"$out" | tr '\n' ' ') / $(grep libc <<<"$out2" | tr '\n' ' ')"; return 1; }
}

# Root (and set-id) processes ignore USTACK_*: with `sudo -E` a user must
# not choose the program root runs as the helper, nor root's cache.  In a
# private mount namespace (a tmpfs on /var/cache/ustack), with fakedev.so
# standing in for /dev/sframe: root's shim runs the helper next to the
# library (in the build tree, tools/sframe-register) and fills ustackd's
# store, /var/cache/ustack/sframe, under the name ustackd gives libc
# (<build-id>.v3.sframe), which ustackd then reuses (shim-root-store).  A
# process whose uid is not its euid generates nothing.  evil.sh is never
# run, evilcache never made.  The outcome in $W/rootenv.out, ustackd's log
# in $W/ustackd.log.
root_env_run() {
	[ -f "$W/rootenv.out" ] && return
	printf '#!/bin/sh\ntouch "%s/pwned"\n' "$W" >"$W/evil.sh"
	chmod 755 "$W/evil.sh"
	unshare -m --propagation private sh -c '
		mount -t tmpfs -o mode=755 tmpfs /var/cache/ustack || exit 9
		setpriv --ruid=nobody env LD_PRELOAD="$1/fakedev.so $2" \
			USTACK_SFRAME_REGISTER="$1/evil.sh" USTACK_CACHE_DIR="$1/evilcache" \
			USTACK_SHIM_DEBUG=1 "$3" 6 >/dev/null 2>"$1/setid.log"
		echo "setid: $(ls /var/cache/ustack | wc -l)"
		env LD_PRELOAD="$1/fakedev.so $2" \
			USTACK_SFRAME_REGISTER="$1/evil.sh" USTACK_CACHE_DIR="$1/evilcache" \
			USTACK_SHIM_DEBUG=1 "$3" 6 >/dev/null 2>"$1/root.log"
		echo "root: $(ls /var/cache/ustack/sframe/'"$LIBC_ID"'.v3.sframe 2>/dev/null | wc -l)"
		"$4" --prepare -v "$5" >"$1/ustackd.log" 2>&1
		' sh "$W" "$SHIM" "$P" "$ROOT/tools/ustackd/ustackd" "$LIBC" >"$W/rootenv.out" 2>&1
}

shim_root_ignores_env() {
	local out
	root_env_run
	out=$(cat "$W/rootenv.out")
	[ ! -e "$W/pwned" ] && [ ! -e "$W/evilcache" ] && [ ! -s "$W/root.log" ] &&
		[ ! -s "$W/setid.log" ] && grep -qx 'setid: 0' <<<"$out" &&
		grep -qx 'root: 1' <<<"$out" ||
		{ echo "pwned: $([ -e "$W/pwned" ] && echo yes || echo no), evilcache: $([ -e "$W/evilcache" ] && echo yes || echo no), log: $(head -c 200 "$W/root.log" | tr '\n' ' '), $(tr '\n' ' ' <<<"$out")"; return 1; }
}

# ustackd (default store) reuses the shim's entry: the same name, trusted.
shim_root_store() {
	root_env_run
	grep -q "$(basename "$LIBC"): reused $LIBC_ID.v3.sframe" "$W/ustackd.log" &&
		grep -q '(0 generated, 1 reused)' "$W/ustackd.log" ||
		{ tr '\n' ' ' <"$W/ustackd.log" | head -c 300; return 1; }
}

# The cached entry, relocated as the shim does, gives gen's rules.
shim_cache_relocation() {
	local out
	"$SR" gen "$LIBC" -o "$W/libc.g3" --version 3 >/dev/null 2>&1
	out=$("$W/cachecheck" "$(libc_entry)" "$W/libc.g3" 0x7f1234560000 2>&1)
	[ $? = 0 ] && grep -q ' 0 differ' <<<"$out" || { echo "$out"; return 1; }
}

# Build-id mismatch: the generator refuses, writes nothing.
gen_cache_build_id_check() {
	"$SR" gen --cache "$W/wrong.sframe" --build-id 0123456789abcdef "$LIBC" 2>/dev/null
	[ $? != 0 ] && [ ! -e "$W/wrong.sframe" ] ||
		{ echo "entry written for a wrong build-id"; return 1; }
}

# dlopen/dlclose: by path registers at once, unregisters after dlclose; a
# bare name through liba's DT_RUNPATH still resolves (the caller is kept)
# and is registered lazily; errno and results unchanged.  The log in
# $W/dl.log, the output in $W/dl.out.
dlmain_run() {
	[ -f "$W/dl.out" ] && return
	cache_first_run
	shim_env USTACK_SHIM_FORCE=1 USTACK_SHIM_DEBUG=1 USTACK_CACHE_DIR="$CD" \
		"$W/dlmain" "$W/sub/libb.so" >"$W/dl.out" 2>"$W/dl.log"
}

shim_dlopen_runpath_kept() {
	local exp got
	dlmain_run
	exp=$("$W/dlmain" "$W/sub/libb.so" 2>/dev/null)
	got=$(cat "$W/dl.out")
	[ "$exp" = "$got" ] && grep -q "a_load = 140" <<<"$got" ||
		{ echo "expected '$exp' got '$got'"; return 1; }
}

shim_dlopen_dlclose() {
	dlmain_run
	grep -q "libb.so: ready" "$W/dl.log" && grep -q "libb.so: gone, unregister" "$W/dl.log" &&
		awk '/libb.so: ready/ { if (!r) r = NR } /marker: opened by path/ { m = NR }
			/libb.so: gone/ { if (!g) g = NR } END { exit !(r && r < m && m < g) }' "$W/dl.log" &&
		[ "$(grep -c 'libb.so: gone' "$W/dl.log")" = 2 ] ||
		{ grep libb "$W/dl.log" | tr '\n' ' '; return 1; }
}

# End to end on the host: with fakedev.so standing in for /dev/sframe (it
# validates each registration as the kernel would and keeps a table), a
# walk with the SFrame core over what the shim registered (SFrame only,
# no frame-pointer fallback) equals glibc's backtrace() frame for frame,
# through an -O2 main without frame pointers, a dlopen'd library and libc's
# qsort internals (libc, ld.so, main, libcb and the vDSO from the generated
# cache; the shim and fakedev.so from their own PT_GNU_SFRAME).
walk_equals_backtrace() { # ROUND (cold, then warm: the same cache)
	local out
	out=$(asuser env LD_PRELOAD="$W/fakedev.so $SHIM" USTACK_CACHE_DIR="$U/btcache" \
		USTACK_SFRAME_REGISTER="$SR" "$W/btmain" "$W/libcb.so" 2>&1)
	[ $? = 0 ] && grep -q 'registrations 7' <<<"$out" &&
		grep -q 'backtrace [0-9]* frames, walk [0-9]* (end 0), 0 differ$' <<<"$out" ||
		{ head -3 <<<"$out" | tr '\n' ' '; return 1; }
}

# Root: the same objects from ustackd's store.  fakedev.so has no
# STORE_ADD (ENOTTY, as from a module without it), so each store entry is
# registered for the process: the walk is as good, cold (the helper writes
# the store) and warm (entries found there).
shim_root_store_fallback() {
	local out
	out=$(unshare -m --propagation private sh -c '
		mount -t tmpfs -o mode=755 tmpfs /var/cache/ustack || exit 9
		for round in cold warm; do
			echo "round $round: $(env LD_PRELOAD="$1/fakedev.so $2" \
				"$1/btmain" "$1/libcb.so" 2>&1 | tr "\n" " ")"
		done
		echo "store: $(ls /var/cache/ustack/sframe | wc -l)"
		' sh "$W" "$SHIM" 2>&1)
	[ "$(grep -c 'registrations 7 .*backtrace [0-9]* frames, walk [0-9]* (end 0), 0 differ $' <<<"$out")" = 2 ] &&
		grep -q '^store: [1-9]' <<<"$out" || { tr '\n' ' ' <<<"$out" | head -c 400; return 1; }
}

# SFRAME_STORE_KEEP: an object with an entry keeps it (EEXIST is success:
# nothing added without the flag); a module older than the flag (EINVAL)
# is asked with it once, then without.
shim_root_store_keep() {
	local out
	out=$(unshare -m --propagation private sh -c '
		mount -t tmpfs -o mode=755 tmpfs /var/cache/ustack || exit 9
		env LD_PRELOAD="$1/fakedev.so $2" "$1/btmain" "$1/libcb.so" >/dev/null 2>&1
		for m in keep old; do
			echo "$m: $(env FAKEDEV_STORE=$m LD_PRELOAD="$1/fakedev.so $2" \
				"$1/btmain" "$1/libcb.so" 2>&1 | grep "^fakedev: store_add")"
		done
		' sh "$W" "$SHIM" 2>&1)
	grep -q '^keep: fakedev: store_add keep [1-9][0-9]* plain 0$' <<<"$out" &&
		grep -q '^old: fakedev: store_add keep 1 plain [1-9][0-9]*$' <<<"$out" ||
		{ tr '\n' ' ' <<<"$out" | head -c 400; return 1; }
}

# And it can fail: without the cache nothing is registered for libc.
walk_without_cache_stops() {
	local out
	out=$(asuser env LD_PRELOAD="$W/fakedev.so $SHIM" USTACK_CACHE_DIR="$U/btempty" \
		USTACK_SHIM_NOGEN=1 "$W/btmain" "$W/libcb.so" 2>&1)
	grep -q 'length differs' <<<"$out" || { head -2 <<<"$out" | tr '\n' ' '; return 1; }
}

# vm_bt (the VM test program comparing ustack_backtrace() with backtrace())
# builds and, here without the kernel, reports ENOSYS cleanly.
vm_bt_without_kernel() {
	local out
	gcc -O2 -fomit-frame-pointer -o "$W/vm_bt" "$R/vm_bt.c" -ldl 2>"$W/cc.err" ||
		{ echo "build: $(head -2 "$W/cc.err")"; return 1; }
	out=$("$SR" run -- "$W/vm_bt" "$W/libcb.so" 2>&1)
	grep -q 'bt: ustack_backtrace failed: Function not implemented' <<<"$out" &&
		grep -q 'api: register(junk)=-38 unregister(junk)=-38' <<<"$out" ||
		{ tr '\n' ' ' <<<"$out"; return 1; }
}

# ustack_backtrace() is async-signal-safe: it runs on an 8 KiB alternate
# signal stack (guard page below), and neither allocates nor scans nor
# starts the helper (libasync.so, dlopen'ed by bare name, is still
# unregistered: the call uses only what is registered).
asyncsafe_build() {
	[ -x "$W/asyncsafe" ] && return
	cp "$W/libcb.so" "$W/libasync.so"
	gcc $CFLAGS_T -o "$W/asyncsafe" "$R/asyncsafe.c" -L"$S" -lsframe-register \
		-Wl,-rpath,"$S" -ldl 2>"$W/cc.err"
}

api_backtrace_on_sigaltstack() {
	local out rc
	out=$("$W/asyncsafe" altstack 2>&1)
	rc=$?
	[ $rc = 0 ] && [ "$out" = "altstack: -1, -1" ] || { echo "exit $rc: $out"; return 1; }
}

api_backtrace_no_malloc_no_helper() {
	local out during
	out=$(asuser env LD_LIBRARY_PATH="$W" USTACK_SHIM_FORCE=1 USTACK_SHIM_DEBUG=1 \
		USTACK_CACHE_DIR="$U/asynccache" "$W/asyncsafe" nomalloc libasync.so 2>"$W/async.log")
	during=$(sed -n '/^marker: before/,/^marker: after/p' "$W/async.log" | grep -v '^marker')
	[ "$out" = "nomalloc: 0 calls" ] && [ -z "$during" ] ||
		{ echo "$out; during the call: $(head -3 <<<"$during" | tr '\n' ' ')"; return 1; }
}

# The API without kernel support fails cleanly.
api_without_kernel() {
	local out
	out=$("$W/apitest" 2>&1)
	[ "$out" = "backtrace=-1 errno=ENOSYS register=-38 unregister=-38 zero=0" ] ||
		{ echo "$out"; return 1; }
}

run_test shim-silent-without-device shim_silent_without_device
run_test run-preloads-shim run_preloads_shim
run_test shim-cache-miss-then-hit shim_cache_miss_then_hit
run_test shim-nogen shim_nogen
run_test shim-helper-inherits-no-fds shim_helper_inherits_no_fds
if ! want shim-fork-does-not-wait-for-helper shim-helper-deadline-survives-signals; then
	:
elif helper_wait_build; then
	run_test shim-fork-does-not-wait-for-helper shim_fork_does_not_wait_for_helper
	run_test shim-helper-deadline-survives-signals shim_helper_deadline_survives_signals
else
	fail shim-helper-wait-build "$(head -3 "$W/cc.err")"
fi
want shim-phdr-outside-load shim-cache-forged-build-id && helper_wait_build
run_test shim-phdr-outside-load shim_phdr_outside_load
run_test shim-cache-forged-build-id shim_cache_forged_build_id
run_test shim-cache-one-generator shim_cache_one_generator
run_test shim-corrupt-cache-harmless shim_corrupt_cache_harmless
run_test shim-vdso shim_vdso
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	run_test shim-cache-per-user-dir shim_cache_per_user_dir
	run_test shim-cache-system-dir shim_cache_system_dir
fi
if is_root_with_ns; then
	run_test shim-root-ignores-env shim_root_ignores_env
	run_test shim-root-store shim_root_store
fi
# shim-store-user-mount: a root-owned object on a nosuid mount (a user's
# loop image or removable medium, as udisks mounts them) whose build-id
# is a system object's gets an entry bound to its own identity (u-*),
# never the build-id's that the real object would reuse; the same file
# on a system file system is named by its build-id.
shim_store_user_mount() {
	local m=$W/usermount bid
	mkdir -p "$m" "$W/st-user" "$W/st-sys"
	chmod 700 "$W/st-user" "$W/st-sys"
	mount -t tmpfs -o nosuid,nodev tmpfs "$m" || { echo "cannot mount a tmpfs"; return 1; }
	cp /usr/bin/true "$m/p" && cp /usr/bin/true "$W/p-sys" && chmod 755 "$m/p" "$W/p-sys"
	bid=$(readelf -n "$W/p-sys" | sed -n 's/.*Build ID: //p')
	"$SR" gen --store "$W/st-user" --build-id "$bid" "$m/p"
	"$SR" gen --store "$W/st-sys" --build-id "$bid" "$W/p-sys"
	umount "$m"
	ls "$W/st-user" | grep -q '^u-[0-9a-f]*\.v3\.sframe$' ||
		{ echo "the user mount's object named: $(ls "$W/st-user")"; return 1; }
	[ -f "$W/st-sys/$bid.v3.sframe" ] ||
		{ echo "the system object named: $(ls "$W/st-sys")"; return 1; }
}
[ "$(id -u)" = 0 ] && run_test shim-store-user-mount shim_store_user_mount
run_test shim-cache-relocation shim_cache_relocation
run_test gen-cache-build-id-check gen_cache_build_id_check
run_test shim-dlopen-runpath-kept shim_dlopen_runpath_kept
run_test shim-dlopen-dlclose shim_dlopen_dlclose
if ! gcc -O2 -fomit-frame-pointer -o "$W/btmain" "$R/btmain.c" 2>"$W/cc.err"; then
	fail walk-build "$(head -3 "$W/cc.err")"
else
	run_test walk-equals-backtrace-cold walk_equals_backtrace cold
	run_test walk-equals-backtrace-warm walk_equals_backtrace warm
	if is_root_with_ns; then
		run_test shim-root-store-fallback shim_root_store_fallback
		run_test shim-root-store-keep shim_root_store_keep
	fi
	run_test walk-without-cache-stops walk_without_cache_stops
fi
run_test vm-bt-without-kernel vm_bt_without_kernel
if ! want 'api-backtrace-*'; then
	:
elif asyncsafe_build; then
	run_test api-backtrace-on-sigaltstack api_backtrace_on_sigaltstack
	run_test api-backtrace-no-malloc-no-helper api_backtrace_no_malloc_no_helper
else
	fail api-backtrace-async-build "$(head -3 "$W/cc.err")"
fi
run_test api-without-kernel api_without_kernel
exit 0
