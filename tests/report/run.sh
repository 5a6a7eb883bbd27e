#!/usr/bin/env bash
# tests/report: ustack-report on synthesized /dev/ustack streams (text and
# binary) whose user frames carry the real file offsets of a test program's
# functions (from nm and the PT_LOAD headers): joins, symbolization against
# nm and addr2line, folded output against a hand-computed profile, the
# summary's numbers, the SVG (xmllint, headless Chromium: screenshot, DOM,
# search and zoom), live mode against a stand-in device, garbage input.
# Run from the repository root: bash tests/report/run.sh [NAME...]
# (NAME: a test below, e.g. summary-numbers or 'join-*'; tests/select.sh)
cd "$(dirname "$0")/../.." || exit 1
export LC_ALL=C
. tests/select.sh report "$@"

# Each test is a function run by run_test NAME FUNCTION (tests/select.sh):
# it prints its failure reason and returns 1.

T=$(mktemp -d /tmp/ustack-report-test.XXXXXX)
on_exit '[ -n "${USTACK_KEEP_TMP:-}" ] || rm -rf "$T"'
R=tools/ustack-report/ustack-report
D=tests/report

if ! make -C tools/ustack-report >"$T/build.log" 2>&1; then
	fail build "$(tail -n 3 "$T/build.log" | tr '\n' ' ')"
	exit 0
fi
if grep -q 'warning:' "$T/build.log"; then
	fail build "compiler warnings: $(grep -m1 'warning:' "$T/build.log")"
else
	pass build
fi

CFL="-O1 -g -fomit-frame-pointer -fno-inline -fno-optimize-sibling-calls -Wl,--build-id"
if ! gcc $CFL -fPIC -shared -o "$T/libtr.so" $D/lib.c ||
   ! gcc $CFL -o "$T/prog" $D/prog.c "$T/libtr.so"; then
	fail build-testprog "gcc failed"
	exit 0
fi
GEN=(python3 $D/gen.py --obj "prog=$T/prog" --obj "lib=$T/libtr.so")

# gen SCENARIO-FILE OUT: text stream; genb SCENARIO-FILE OUT: binary + OUT.ks
gen() { "${GEN[@]}" <"$1" >"$2"; }
genb() { "${GEN[@]}" --binary --kallsyms "$2.ks" <"$1" >"$2"; }

# The hand-computed profile.  A: 5 stays in leaf (timer); B: 2 stays in a
# write (stay 1 sampled twice, on cpu 0 and, migrated, cpu 1; its user
# record arrives first); C: a sample whose user record was lost; D: thread
# 202 ("worker"), reusing the cookie of an A stay, walk ended by a fault,
# user records ahead of their samples.  Unknown kinds/keys are sprinkled in.
cat >"$T/profile.s" <<'EOF'
sample cookie=0x0000000100000001 pid=100 tid=101 cpu=0 time=1000000 event=cpu-clock comm=prog
    kernel 0xffffffff81e00a1a asm_sysvec_apic_timer_interrupt+0x1a
user cookie=0x0000000100000001 pid=100 tid=101 frames=4 end=outermost
    user @prog:leaf+0x4 regs
    user @prog:middle+0x9 sframe
    user @prog:outer+0x10 sframe
    user @prog:main+0x10 sframe
mmap pid=100 addr=0x555555554000 len=0x1000 path=/bin/true
    something 0x1 unknown frame kind
sample cookie=0x0000000300000001 pid=100 tid=101 cpu=0 time=2000000 event=cpu-clock comm=prog future=1
    kernel 0xffffffff81e00a1a asm_sysvec_apic_timer_interrupt+0x1a
user cookie=0x0000000300000001 pid=100 tid=101 frames=4 end=outermost extra=yes
    user @prog:leaf+0x8 regs
    user @prog:middle+0x9 sframe
    user @prog:outer+0x10 sframe
    user @prog:main+0x10 sframe
    future 0x1234 ignored
sample cookie=0x0000000100000002 pid=100 tid=101 cpu=1 time=3000000 event=cpu-clock comm=prog
    kernel 0xffffffff81e00a1a asm_sysvec_apic_timer_interrupt+0x1a
user cookie=0x0000000100000002 pid=100 tid=101 frames=4 end=outermost
    user @prog:leaf+0x4 regs
    user @prog:middle+0x9 sframe
    user @prog:outer+0x10 sframe
    user @prog:main+0x10 sframe
user cookie=0x0000000500000001 pid=100 tid=101 frames=3 end=outermost
    user @lib:lib_func+0x3 regs
    user @prog:outer+0x1c sframe
    user @prog:main+0x10 sframe
sample cookie=0x0000000500000001 pid=100 tid=101 cpu=0 time=4000000 event=cpu-clock comm=prog
    kernel 0xffffffff811a2b44 ksys_write+0x44
    kernel 0xffffffff81c01234 do_syscall_64+0x34
sample cookie=0x0000000500000001 pid=100 tid=101 cpu=1 time=4500000 event=syscall:write comm=prog
    kernel 0xffffffff81c01234 do_syscall_64+0x34
sample cookie=0x0000000300000002 pid=100 tid=101 cpu=1 time=5000000 event=cpu-clock comm=prog
    kernel 0xffffffff81e00a1a asm_sysvec_apic_timer_interrupt+0x1a
user cookie=0x0000000300000002 pid=100 tid=101 frames=4 end=outermost
    user @prog:leaf+0xc regs
    user @prog:middle+0x9 sframe
    user @prog:outer+0x10 sframe
    user @prog:main+0x10 sframe
sample cookie=0x0000000700000001 pid=100 tid=101 cpu=0 time=6000000 event=syscall:write comm=prog
    kernel 0xffffffff81c01234 do_syscall_64+0x34
user cookie=0x0000000700000001 pid=100 tid=101 frames=3 end=outermost
    user @lib:lib_func+0x3 regs
    user @prog:outer+0x1c sframe
    user @prog:main+0x10 sframe
sample cookie=0x0000000500000002 pid=100 tid=101 cpu=1 time=7000000 event=cpu-clock comm=prog
    kernel 0xffffffff81e00a1a asm_sysvec_apic_timer_interrupt+0x1a
user cookie=0x0000000500000002 pid=100 tid=101 frames=4 end=outermost
    user @prog:leaf+0x4 regs
    user @prog:middle+0x9 sframe
    user @prog:outer+0x10 sframe
    user @prog:main+0x10 sframe
lost samples=0 users=1 time=7500000
sample cookie=0x0000000900000001 pid=100 tid=101 cpu=0 time=8000000 event=cpu-clock comm=prog
    kernel 0xffffffff81e00a1a asm_sysvec_apic_timer_interrupt+0x1a
user cookie=0x0000000100000001 pid=100 tid=202 frames=2 end=fault
    user @lib:lib_inner+0x2 regs
    user @lib:lib_func+0x8 fp
sample cookie=0x0000000100000001 pid=100 tid=202 cpu=0 time=8500000 event=cpu-clock comm=worker
    kernel 0xffffffff81e00a1a asm_sysvec_apic_timer_interrupt+0x1a
user cookie=0x0000000b00000001 pid=100 tid=202 frames=2 end=fault
    user @lib:lib_inner+0x4 regs
    user @lib:lib_func+0x8 fp
sample cookie=0x0000000b00000001 pid=100 tid=202 cpu=0 time=9000000 event=cpu-clock comm=worker
    kernel 0xffffffff81e00a1a asm_sysvec_apic_timer_interrupt+0x1a
EOF
gen "$T/profile.s" "$T/profile.txt"
genb "$T/profile.s" "$T/profile.bin"
"${GEN[@]}" --packed --kallsyms "$T/profile.pk.ks" <"$T/profile.s" >"$T/profile.pk"

cat >"$T/profile.expected" <<'EOF'
prog;[no user stack];asm_sysvec_apic_timer_interrupt 1
prog;main;outer;lib_func;do_syscall_64 2
prog;main;outer;lib_func;do_syscall_64;ksys_write 1
prog;main;outer;middle;leaf;asm_sysvec_apic_timer_interrupt 5
worker;[incomplete: fault];lib_func;lib_inner;asm_sysvec_apic_timer_interrupt 2
EOF

folded_profile() {
	$R --folded "$T/profile.txt" >"$T/f.out" || { echo "exit $?"; return 1; }
	diff -u "$T/profile.expected" "$T/f.out" || return 1
}
run_test folded-hand-computed folded_profile

folded_binary() {
	$R --folded --kallsyms "$T/profile.bin.ks" "$T/profile.bin" >"$T/fb.out" ||
		return 1
	diff -u "$T/profile.expected" "$T/fb.out"
}
run_test folded-binary folded_binary

# Full perf output (verbose: cookies, end reasons, methods, offsets) of the
# binary stream equals the text stream's.
binary_equals_text() {
	$R -v "$T/profile.txt" >"$T/pt" && $R -v --kallsyms "$T/profile.bin.ks" \
		"$T/profile.bin" >"$T/pb" || return 1
	[ -s "$T/pt" ] || { echo "empty output"; return 1; }
	diff -u "$T/pt" "$T/pb"
}
run_test binary-equals-text binary_equals_text

# The same with user stacks packed (USTACK_FORMAT_PACKED, as ustack-report
# reads the device): offsets come from each object's bias.
packed_equals_text() {
	$R -v --kallsyms "$T/profile.pk.ks" "$T/profile.pk" >"$T/pp" || return 1
	[ -s "$T/pp" ] || { echo "empty output"; return 1; }
	cmp -s "$T/profile.pk" "$T/profile.bin" && { echo "not packed"; return 1; }
	diff -u "$T/pt" "$T/pp"
}
run_test packed-equals-text packed_equals_text

stdin_input() {
	$R --folded - <"$T/profile.bin" >"$T/s1" || return 1
	$R --folded <"$T/profile.txt" >"$T/s2" || return 1
	grep -q 'prog;main;outer;middle;leaf;\[kernel.kallsyms\] 5' "$T/s1" ||
		{ echo "binary from stdin without kallsyms: $(head -3 "$T/s1")"; return 1; }
	diff -u "$T/profile.expected" "$T/s2"
}
run_test stdin stdin_input

# FlameGraph's stackcollapse-perf.pl rules fold our perf output (plain, -v
# and -l) to our --folded output.
stackcollapse_compat() {
	local opt
	for opt in "" -v -l "-v -l"; do
		$R $opt "$T/profile.txt" | python3 $D/collapse.py 2>"$T/cerr" | sort >"$T/c1"
		[ -s "$T/cerr" ] && { echo "opt '$opt': $(head -2 "$T/cerr")"; return 1; }
		sort "$T/profile.expected" | diff -u - "$T/c1" || { echo "opt '$opt'"; return 1; }
	done
}
run_test stackcollapse-compatible stackcollapse_compat

# speedscope's importer reads every header (command, time, event) and, for
# the first event type, the same stacks as our --folded --event.
speedscope_compat() {
	local opt
	for opt in "" -v "-v -l"; do
		$R $opt "$T/profile.txt" | python3 $D/speedscope.py >"$T/ss" || return 1
		[ "$(head -1 "$T/ss")" = "event cpu-clock" ] || { echo "opt '$opt': $(head -1 "$T/ss")"; return 1; }
		tail -n +2 "$T/ss" | diff -u <($R --folded --event cpu-clock "$T/profile.txt" | sort) - ||
			{ echo "opt '$opt'"; return 1; }
	done
}
run_test speedscope-compatible speedscope_compat

# perf header format, kernel frames keep their symbols, marks
perf_format() {
	$R "$T/profile.txt" >"$T/p" || return 1
	grep -qx 'prog 100/101 \[001\] 0.004500: 1 syscall:write:' "$T/p" ||
		{ echo "header"; return 1; }
	grep -qP '^\tffffffff811a2b44 ksys_write\+0x44 \(\[kernel\.kallsyms\]\)$' "$T/p" ||
		{ echo "kernel frame"; return 1; }
	grep -qP '^\t {15}0 \[no user stack\] \(\[unknown\]\)$' "$T/p" ||
		{ echo "no-user-stack mark"; return 1; }
	[ "$(grep -cP '^\t {15}0 \[incomplete: fault\] \(\[unknown\]\)$' "$T/p")" = 2 ] ||
		{ echo "incomplete-walk marks"; return 1; }
	[ "$(grep -c '^$' "$T/p")" = 11 ] || { echo "not 11 blocks"; return 1; }
	! grep -q 'method=' "$T/p" || { echo "methods in default output"; return 1; }
	local bid
	bid=$(readelf -n "$T/prog" | awk '/Build ID/ { print $3 }')
	$R -v "$T/profile.txt" | grep -q "main+0x10 (.*/prog) method=sframe offset=0x[0-9a-f]* build-id=$bid\$" ||
		{ echo "-v lacks method, offset or build-id"; return 1; }
	# an object replaced since it was mapped: " (deleted)" is dropped
	sed "s|$T/prog+0x|$T/prog (deleted)+0x|" "$T/profile.txt" >"$T/del.txt"
	$R --folded "$T/del.txt" | diff -u "$T/profile.expected" - ||
		{ echo "(deleted) object not symbolized"; return 1; }
}
run_test perf-format perf_format

summary_numbers() {
	$R --summary "$T/profile.txt" >"$T/sum" || return 1
	local want
	while IFS= read -r want; do
		grep -qxF -- "$want" "$T/sum" || { echo "missing: '$want'"; cat "$T/sum"; return 1; }
	done <<'EOF'
samples: 11
user records: 9 (0 without a sample)
joined: 10 (90.91%)
complete user stacks: 8 (72.73%)
no user stack: 1 (9.09%)
lost: 0 samples, 1 user records (1 lost records)
         9  81.82%  cpu-clock
         2  18.18%  syscall:write
         8  72.73%  outermost
         2  18.18%  fault
         1   9.09%  [no user stack]
user frames: 30, symbolized 30 (100.00%)
        19  63.33%  sframe
         9  30.00%  regs
         2   6.67%  fp
         8  72.73%  asm_sysvec_apic_timer_interrupt
         2  18.18%  do_syscall_64
         1   9.09%  ksys_write
         5  45.45%  leaf
         3  27.27%  lib_func
         2  18.18%  lib_inner
processes (samples, complete user stacks):
        11  72.73%  prog [100]
exec'd before the walk (not above): 0 samples
EOF
	local bid
	bid=$(readelf -n "$T/prog" | awk '/Build ID/ { print $3 }')
	grep -q "symbolized  $T/prog build-id=$bid\$" "$T/sum" ||
		{ echo "build-id $bid not in summary"; return 1; }
}
run_test summary-numbers summary_numbers

# A stack the walk found exec'd (the sample inside execve()) had nothing
# left to walk: the process's line counts it apart, as kernel threads are.
summary_exec() {
	sed '0,/ end=fault/s// end=exec/' "$T/profile.txt" >"$T/exec.txt"
	$R --summary "$T/exec.txt" >"$T/sum" || return 1
	grep -qxF "        10  80.00%  prog [100]" "$T/sum" &&
		grep -qxF "exec'd before the walk (not above): 1 samples" "$T/sum" ||
		{ sed -n '/^processes/,$p' "$T/sum"; return 1; }
}
run_test summary-exec summary_exec

event_filter() {
	$R --folded --event syscall:write "$T/profile.txt" >"$T/ev" || return 1
	[ "$(cat "$T/ev")" = "prog;main;outer;lib_func;do_syscall_64 2" ] ||
		{ cat "$T/ev"; return 1; }
	$R --summary --event syscall: "$T/profile.txt" | grep -qx 'samples: 2' ||
		{ echo "prefix filter"; return 1; }
}
run_test event-filter event_filter

# ---- one vocabulary: include/ustack_names.h ----------------------------------

# The README's lists of events, methods and end reasons are the header's; a
# README that drops one fails.
names_readme() {
	python3 $D/names.py readme || return 1
	sed 's/`nomem`, //' README.md >"$T/README.md"
	! python3 $D/names.py readme "$T/README.md" >"$T/nr" ||
		{ echo "a README without nomem passed"; return 1; }
	grep -q 'end `nomem` of ustack_names.h is missing' "$T/nr" || { cat "$T/nr"; return 1; }
}
run_test names-readme names_readme

# ustack-report spells no name itself; the VM tests ask stream-check.awk
# and grep only for names of the header (a made-up end reason is caught).
names_sources() {
	python3 $D/names.py sources || return 1
	printf '%s\n' 'awk -f stream-check.awk -v ends=outermost,finished -v event=cpu-clock x' \
		>"$T/fake-test.sh"
	! python3 $D/names.py sources "$T/fake-test.sh" >"$T/ns" ||
		{ echo "a made-up end reason passed"; return 1; }
	grep -q "end 'finished' is not in ustack_names.h" "$T/ns" || { cat "$T/ns"; return 1; }
}
run_test names-sources names_sources

# A stream with every name of the header, from gen.py's tables (which read
# the header), then one with a name of each kind that is not in it.
python3 scripts/ustack_names.py >"$T/names"
{
	c=1
	while read -r kind name code; do
		[ "$kind" = event ] || continue
		[ "$name" = syscall ] && name=syscall:write
		[ "$name" = tp ] && name=tp:sched:sched_switch
		[ "$name" = kprobe ] && name=kprobe:vfs_write
		printf 'sample cookie=0x%016x pid=100 tid=101 cpu=0 time=%d event=%s comm=prog\n' $c $((c * 1000)) "$name"
		printf '    kernel 0xffffffff81e00a1a asm_sysvec_apic_timer_interrupt+0x1a\n'
		c=$((c + 1))
	done <"$T/names"
	while read -r kind name code; do
		[ "$kind" = end ] || continue
		printf 'user cookie=0x%016x pid=100 tid=101 frames=5 end=%s\n' $c "$name"
		while read -r k2 m code2; do
			[ "$k2" = method ] && printf '    user @prog:leaf+0x4 %s\n' "$m"
		done <"$T/names"
		c=$((c + 1))
	done <"$T/names"
} >"$T/vocab.s"
sed -e '1s/event=[a-z-]*/event=tick/' -e '0,/ end=[a-z-]*/s// end=finished/' \
	-e '0,/@prog:leaf+0x4 regs/s//@prog:leaf+0x4 divined/' "$T/vocab.s" >"$T/bogus.s"
gen "$T/vocab.s" "$T/vocab.txt"
genb "$T/vocab.s" "$T/vocab.bin"
gen "$T/bogus.s" "$T/bogus.txt"

# stream-check.awk (the VM tests' checker) knows every name of the header
# and fails on any other.
names_stream_check() {
	local out
	out=$(awk -f tests/vm/syms.awk -f tests/vm/stream-check.awk -v names="$T/names" -v comm=none \
		-v syms=/dev/null "$T/vocab.txt")
	! grep -q 'not in ustack_names.h' <<<"$out" || { echo "$out"; return 1; }
	out=$(awk -f tests/vm/syms.awk -f tests/vm/stream-check.awk -v names="$T/names" -v comm=none \
		-v syms=/dev/null -v ends=outermost,done "$T/bogus.txt")
	local want
	for want in "event 'tick'" "end 'finished'" "method 'divined'" "end 'done'"; do
		grep -q "^FAIL: $want is not in ustack_names.h" <<<"$out" ||
			{ echo "no complaint about $want: $out"; return 1; }
	done
	out=$(awk -f tests/vm/syms.awk -f tests/vm/stream-check.awk -v names="$T/nonexistent" -v comm=none \
		-v syms=/dev/null "$T/vocab.txt")
	grep -q '^FAIL: no names in' <<<"$out" || { echo "no names file passed: $out"; return 1; }
}
run_test names-stream-check names_stream_check

# ustack-report names every code of the header in binary records as the
# module does in text, and its summary flags names it does not know.
names_report() {
	$R -v "$T/vocab.txt" >"$T/vt" &&
		$R -v --kallsyms "$T/vocab.bin.ks" "$T/vocab.bin" >"$T/vb" || return 1
	diff -u "$T/vt" "$T/vb" || return 1
	$R --summary "$T/vocab.bin" >"$T/vs" || return 1
	! grep -q 'names unknown' "$T/vs" || { grep 'names unknown' "$T/vs"; return 1; }
	$R --summary "$T/bogus.txt" >"$T/vs" || return 1
	grep -qx 'names unknown to ustack-report: event=tick end=finished method=divined' "$T/vs" ||
		{ echo "unknown names not flagged: $(grep -i unknown "$T/vs")"; return 1; }
}
run_test names-report names_report

# ---- joins, each on its own small stream -----------------------------------
# expect_folded SCENARIO EXPECTED: text and binary streams both fold to it
expect_folded() {
	printf '%s\n' "$1" >"$T/j.s"
	printf '%s\n' "$2" >"$T/j.exp"
	gen "$T/j.s" "$T/j.txt" && genb "$T/j.s" "$T/j.bin" || return 1
	$R --folded "$T/j.txt" | diff -u "$T/j.exp" - || { echo text; return 1; }
	$R --folded --kallsyms "$T/j.bin.ks" "$T/j.bin" | diff -u "$T/j.exp" - ||
		{ echo binary; return 1; }
}

S_A='sample cookie=0x0000000100000001 pid=7 tid=7 cpu=0 time=10 event=cpu-clock comm=p
    kernel 0xffffffff81000010 tick+0x10'
U_LEAF='user cookie=0x0000000100000001 pid=7 tid=7 frames=2 end=outermost
    user @prog:leaf+0x1 regs
    user @prog:main+0x10 sframe'
U_LIB='user cookie=0x0000000100000001 pid=7 tid=7 frames=2 end=outermost
    user @lib:lib_inner+0x1 regs
    user @prog:main+0x10 sframe'

join_migrated() {
	# one stay sampled on cpu 0 and cpu 1; its user record written on cpu 1
	# and read before the cpu 0 buffer
	expect_folded "$U_LEAF
sample cookie=0x0000000100000001 pid=7 tid=7 cpu=1 time=20 event=syscall:read comm=p
    kernel 0xffffffff81000120 sys_read+0x20
$S_A" "p;main;leaf;sys_read 1
p;main;leaf;tick 1"
}
run_test join-migrated join_migrated

join_out_of_order() {
	expect_folded "$U_LIB
$S_A" "p;main;lib_inner;tick 1"
}
run_test join-out-of-order join_out_of_order

join_cookie_reuse_tids() {
	# the same cookie on two tasks: each sample takes its own task's stack
	expect_folded "$S_A
${S_A//tid=7/tid=8}
${U_LIB//tid=7/tid=8}
$U_LEAF" "p;main;leaf;tick 1
p;main;lib_inner;tick 1"
}
run_test join-cookie-reuse-tids join_cookie_reuse_tids

join_cookie_wrap_same_tid() {
	# a cookie that comes back on the same task (counter wrap): each stay
	# joins the user record that follows it
	expect_folded "$S_A
$U_LEAF
$S_A
$U_LIB
$S_A
$U_LIB" "p;main;leaf;tick 1
p;main;lib_inner;tick 2"
}
run_test join-cookie-wrap-same-tid join_cookie_wrap_same_tid

join_lost() {
	expect_folded "$S_A
lost samples=4 users=1 time=30
${S_A//0x0000000100000001/0x0000000300000001}
${U_LEAF//0x0000000100000001/0x0000000300000001}" "p;[no user stack];tick 1
p;main;leaf;tick 1" || return 1
	$R --summary "$T/j.bin" | grep -qx 'lost: 4 samples, 1 user records (1 lost records)' ||
		{ echo "lost count"; return 1; }
	$R --summary "$T/j.txt" | grep -qx 'no user stack: 1 (50.00%)' ||
		{ echo "no user stack count"; return 1; }
}
run_test join-lost join_lost

join_orphan_user() {
	expect_folded "$U_LIB
$S_A
${U_LEAF//0x0000000100000001/0x0000000900000001}" "p;main;lib_inner;tick 1" || return 1
	$R --summary "$T/j.txt" | grep -qx 'user records: 2 (1 without a sample)'
}
run_test join-orphan-user join_orphan_user

comm_with_spaces() {
	expect_folded "${S_A//comm=p/comm=Web Content}
$U_LEAF" "Web_Content;main;leaf;tick 1" || return 1
	$R "$T/j.txt" | grep -q '^Web Content 7/7 \[000\]'
}
run_test comm-with-spaces comm_with_spaces

# Streams from kernels before the escape: raw blanks in comm and paths.
comm_with_spaces_raw() {
	printf '%s\n' "${S_A//comm=p/comm=Web Content}" "$U_LEAF" >"$T/raw.s"
	"${GEN[@]}" --raw-names <"$T/raw.s" >"$T/raw.txt" || return 1
	grep -q 'comm=Web Content$' "$T/raw.txt" || { echo "gen.py: not raw"; return 1; }
	[ "$($R --folded "$T/raw.txt")" = "Web_Content;main;leaf;tick 1" ] || return 1
	$R "$T/raw.txt" | grep -q '^Web Content 7/7 \[000\]'
}
run_test comm-with-spaces-raw comm_with_spaces_raw

# Hostile names: comm and an object path holding a newline, blanks, ';',
# '<', a backslash and a byte that is not UTF-8.  The kernel writes them
# escaped ("\012"); ustack-report decodes them (the object is opened and
# symbolized by its real name) and each output escapes what its format
# needs: perf and summary lines hold no control character, folded frames
# no ';' or newline, the SVG stays well-formed.  Binary records carry the
# raw bytes and give the same output.
HD=$T/$'h d\n;<x>\\\xff'
hostile_names() {
	mkdir -p "$HD" && cp "$T/prog" "$HD/" || return 1
	printf '%s\n' 'sample cookie=0x0000000100000001 pid=7 tid=7 cpu=0 time=10 event=cpu-clock comm=\012x\040y;<z>\134\377' \
		'    kernel 0xffffffff81000010 tick+0x10' \
		'user cookie=0x0000000100000001 pid=7 tid=7 frames=2 end=outermost' \
		'    user @hp:leaf+0x1 regs' '    user @hp:main+0x10 sframe' >"$T/hn.s"
	python3 $D/gen.py --obj "hp=$HD/prog" <"$T/hn.s" >"$T/hn.txt" &&
		python3 $D/gen.py --obj "hp=$HD/prog" --binary --kallsyms "$T/hn.ks" <"$T/hn.s" >"$T/hn.bin" ||
		{ echo gen.py; return 1; }
	# the stream as the kernel writes it: one record per line, names escaped
	[ "$(wc -l <"$T/hn.txt")" = 5 ] && grep -qF 'comm=\012x\040y;<z>\134'$'\xff' "$T/hn.txt" &&
		grep -qF '/h\040d\012;<x>\134'$'\xff''/prog+0x' "$T/hn.txt" || { echo "stream: $(head -c 300 "$T/hn.txt")"; return 1; }
	local want='\012x_y:<z>\134\377;main;leaf;tick 1' in
	for in in "$T/hn.txt" "--kallsyms $T/hn.ks $T/hn.bin"; do
		[ "$($R --folded $in)" = "$want" ] || { echo "folded ($in): $($R --folded $in | head -3)"; return 1; }
		$R -v $in >"$T/hn.perf" || return 1
		# header, kernel frame, 2 user frames, blank line
		[ "$(wc -l <"$T/hn.perf")" = 5 ] || { echo "perf lines: $(head -6 "$T/hn.perf")"; return 1; }
		grep -qF '\012x y;<z>\134\377 7/7 [000]' "$T/hn.perf" &&
			grep -qF " leaf+0x1 ($T/h d\\012;<x>\\134\\377/prog) method=regs" "$T/hn.perf" ||
			{ echo "perf: $(head -3 "$T/hn.perf")"; return 1; }
		! LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f\x80-\xff]' "$T/hn.perf" ||
			{ echo "perf output holds control or non-UTF-8 bytes"; return 1; }
		$R --summary $in >"$T/hn.sum" || return 1
		grep -qF "100.00% symbolized  $T/h d\\012;<x>\\134\\377/prog build-id=" "$T/hn.sum" ||
			{ echo "summary: $(grep symbolized "$T/hn.sum")"; return 1; }
		$R --svg $in >"$T/hn.svg" && xmllint --noout "$T/hn.svg" || { echo "svg"; return 1; }
		python3 - "$T/hn.svg" <<-'EOF' || return 1
		import sys, xml.dom.minidom as m
		d = m.parse(sys.argv[1])
		t = [x.firstChild.data for x in d.getElementsByTagName("title") if x.firstChild]
		if "\\012x_y:<z>\\134\\377 (1 sample, 100.00%)" not in t:
		    sys.exit("svg titles: %r" % t)
		EOF
	done
	$R -v "$T/hn.txt" >"$T/hn1" && $R -v --kallsyms "$T/hn.ks" "$T/hn.bin" >"$T/hn2" &&
		diff -u "$T/hn1" "$T/hn2" || { echo "binary differs from text"; return 1; }
}
run_test hostile-names hostile_names

kernel_unresolved() {
	# the kernel prints a bare address for a return address it cannot name
	printf '%s\n' 'sample cookie=0x0000000100000001 pid=7 tid=7 cpu=0 time=10 event=cpu-clock comm=p' \
		'    kernel 0xffffffffc0a01234 0xffffffffc0a01234' \
		'    kernel 0xffffffff81000010 tick+0x10 [mod]' "$U_LEAF" >"$T/ku.s"
	gen "$T/ku.s" "$T/ku.txt" || return 1
	[ "$($R --folded "$T/ku.txt")" = "p;main;leaf;tick;[kernel.kallsyms] 1" ] ||
		{ $R --folded "$T/ku.txt"; return 1; }
	$R "$T/ku.txt" | grep -qP '^\tffffffffc0a01234 \[unknown\] \(\[kernel.kallsyms\]\)$' &&
		$R "$T/ku.txt" | grep -qP '^\tffffffff81000010 tick\+0x10 \(\[mod\]\)$' ||
		{ echo "perf lines"; return 1; }
}
run_test kernel-unresolved kernel_unresolved

# ---- symbolization ----------------------------------------------------------
# Every function nm lists in prog and libtr.so, at +0 as the interrupted IP
# and at +1 as a return address, is named back with the right offset.
symbolize_nm() {
	local o name sc=$T/sym.s exp=$T/sym.exp
	: >"$sc"
	: >"$exp"
	for o in prog lib; do
		local f=$T/prog
		[ $o = lib ] && f=$T/libtr.so
		# one name per address (aliases), functions of non-zero size only
		nm -S --defined-only "$f" | awk '$3 ~ /^[tTwW]$/ && $2 !~ /^0+$/' |
			sort -u -k1,1 | while read -r _ size _ name; do
			[ $((16#$size)) -ge 2 ] || continue
			echo "$name" >>"$exp"
			cat >>"$sc" <<-EOF
			sample cookie=0x0000000100000001 pid=1 tid=1 cpu=0 time=1 event=self comm=x
			user cookie=0x0000000100000001 pid=1 tid=1 frames=2 end=outermost
			    user @$o:$name+0x0 regs
			    user @$o:$name+0x1 sframe
			EOF
		done
	done
	[ "$(wc -l <"$exp")" -ge 6 ] || { echo "too few symbols"; return 1; }
	gen "$sc" "$T/sym.txt" || return 1
	$R "$T/sym.txt" >"$T/sym.out" || return 1
	while read -r name; do
		grep -qP "^\t +[0-9a-f]+ \Q$name\E\+0x0 \(" "$T/sym.out" ||
			{ echo "$name+0x0 not found"; return 1; }
		grep -qP "^\t +[0-9a-f]+ \Q$name\E\+0x1 \(" "$T/sym.out" ||
			{ echo "$name+0x1 not found"; return 1; }
	done <"$exp"
	! grep -q '\[unknown\]' "$T/sym.out" || { echo "unresolved frames"; return 1; }
}
run_test symbolize-against-nm symbolize_nm

# A return address just past a function's last byte (a call that never
# returns there) belongs to that function, looked up at ip - 1; as the
# interrupted IP the same address is not in it.
symbolize_return_address() {
	local size
	size=$(nm -S "$T/prog" | awk '$4 == "middle" { print $2 }')
	printf '%s\n' 'sample cookie=0x0000000100000001 pid=1 tid=1 cpu=0 time=1 event=self comm=x' \
		'user cookie=0x0000000100000001 pid=1 tid=1 frames=2 end=outermost' \
		'    user @prog:middle+end regs' '    user @prog:middle+end sframe' >"$T/ra.s"
	gen "$T/ra.s" "$T/ra.txt" && $R "$T/ra.txt" >"$T/ra.out" || return 1
	local l1 l2
	l1=$(sed -n 2p "$T/ra.out")
	l2=$(sed -n 3p "$T/ra.out")
	[[ $l2 == *" middle+0x$(printf %x $((16#$size))) ("* ]] || { echo "return address: $l2"; return 1; }
	[[ $l1 != *" middle+"* ]] || { echo "interrupted IP: $l1"; return 1; }
}
run_test symbolize-return-address symbolize_return_address

# Names as libdwfl's own lookup (dwfl_module_addrinfo(), eu-addr2line -S)
# chooses them, which symtab.c does by a binary search: the first, last
# and next byte of functions and addresses spread over the code of prog,
# libtr.so and the C library.
symbolize_libdwfl() {
	local libc
	libc=$(ldd "$T/prog" | awk '$1 ~ /^libc\.so/ { print $3 }')
	[ -n "$libc" ] || { echo "no libc in ldd's list"; return 1; }
	python3 $D/dwfl_names.py $R "$T/prog" "$T/libtr.so" "$libc" >"$T/dw.out" ||
		{ cat "$T/dw.out"; return 1; }
	grep -q '^checked [0-9]\{4,\} mismatched 0$' "$T/dw.out" || { cat "$T/dw.out"; return 1; }
}
run_test symbolize-libdwfl-choice symbolize_libdwfl

# -l: file:line as addr2line gives it (ip for the first frame, ip-1 after)
symbolize_lines() {
	$R -l "$T/profile.txt" >"$T/l.out" || return 1
	local n=0 idx=0 line fn obj got want start off adj
	while IFS= read -r line; do
		if [[ -z $line || $line != $'\t'* ]]; then idx=0; continue; fi
		[[ $line == *"([kernel.kallsyms])" || $line == *" ([unknown])" ]] && continue
		if [[ $line =~ ^$'\t'\ *[0-9a-f]+\ ([a-z_]+)\+0x([0-9a-f]+)\ \((/[^\)]*)\)\ (.+)$ ]]; then
			fn=${BASH_REMATCH[1]} off=$((16#${BASH_REMATCH[2]}))
			obj=${BASH_REMATCH[3]} got=${BASH_REMATCH[4]}
			start=$(nm "$obj" | awk -v f="$fn" '$3 == f { print $1; exit }')
			adj=$((idx == 0 ? 0 : 1))
			want=$(addr2line -e "$obj" "$(printf %x $((16#$start + off - adj)))" |
				sed 's/ (discriminator.*//')
			[ "$got" = "$want" ] || { echo "$fn+$off: got '$got' want '$want'"; return 1; }
			n=$((n + 1))
		else
			echo "no file:line: $line"
			return 1
		fi
		idx=$((idx + 1))
	done <"$T/l.out"
	[ $n -ge 30 ] || { echo "only $n frames checked"; return 1; }
}
run_test symbolize-lines-addr2line symbolize_lines

# C++ names are demangled (as perf does: c++filt's spelling) in perf output;
# folded output drops argument lists as stackcollapse-perf.pl does.
symbolize_cxx() {
	g++ -O1 -g -fomit-frame-pointer -fno-inline -o "$T/cxx" $D/cxx.cpp || { echo "g++ failed"; return 1; }
	local area hidden twice sc=$T/cxx.s m
	area=$(nm "$T/cxx" | awk '$3 ~ /Circle4area/ { print $3 }')
	hidden=$(nm "$T/cxx" | awk '$3 ~ /6hidden/ { print $3 }')
	twice=$(nm "$T/cxx" | awk '$3 ~ /5twice/ { print $3 }')
	[ -n "$area" ] && [ -n "$hidden" ] && [ -n "$twice" ] || { echo "symbols not found"; return 1; }
	: >"$sc"
	local n=1
	for m in "$area" "$hidden" "$twice"; do
		n=$((n + 2))
		cat >>"$sc" <<-EOF
		sample cookie=0x$(printf %016x $n) pid=1 tid=1 cpu=0 time=$n event=self comm=cxx
		user cookie=0x$(printf %016x $n) pid=1 tid=1 frames=2 end=outermost
		    user @cxx:$m+0x1 regs
		    user @cxx:main+0x8 sframe
		EOF
	done
	python3 $D/gen.py --obj "cxx=$T/cxx" <"$sc" >"$T/cxx.txt" || return 1
	$R "$T/cxx.txt" >"$T/cxx.out" || return 1
	for m in "$area" "$hidden" "$twice"; do
		grep -qF " $(echo "$m" | c++filt)+0x1 ($T/cxx)" "$T/cxx.out" ||
			{ echo "$(echo "$m" | c++filt) not in: $(grep -m3 cxx\) "$T/cxx.out")"; return 1; }
	done
	printf '%s\n' 'cxx;main;(anonymous namespace)::hidden 1' 'cxx;main;long twice<long> 1' \
		'cxx;main;shapes::Circle::area 1' >"$T/cxx.exp"
	$R --folded "$T/cxx.txt" | diff -u "$T/cxx.exp" - || return 1
	# stackcollapse-perf.pl drops frames that start with "(" (it takes them
	# for process names), "(anonymous namespace)::..." among them
	sed 's/;(anonymous namespace)::hidden//' "$T/cxx.exp" | sort >"$T/cxx.exp2"
	python3 $D/collapse.py <"$T/cxx.out" | sort | diff -u "$T/cxx.exp2" - ||
		{ echo "stackcollapse rules differ"; return 1; }
}
run_test symbolize-cxx-demangle symbolize_cxx

# A stripped object: its frames stay addresses, named after the object.
symbolize_stripped() {
	strip -o "$T/prog.stripped" "$T/prog" || return 1
	python3 $D/gen.py --obj "prog=$T/prog.stripped=$T/prog" <"$T/ra.s" >"$T/st.txt" || return 1
	$R "$T/st.txt" | grep -q "\[unknown\] ($T/prog.stripped)" ||
		{ echo "no [unknown] frame"; return 1; }
	$R --folded "$T/st.txt" | grep -qx 'x;\[prog.stripped\];\[prog.stripped\] 1' ||
		{ echo "folded: $($R --folded "$T/st.txt")"; return 1; }
}
run_test symbolize-stripped symbolize_stripped

# --root: a recording from a VM names /usr/bin/prog; the files sit under a
# directory here; separate debug info found by build-id under the root.
symbolize_root() {
	local root=$T/root bid
	mkdir -p "$root/usr/bin" "$root/usr/lib"
	strip -o "$root/usr/bin/prog" "$T/prog" && cp "$T/libtr.so" "$root/usr/lib/" || return 1
	bid=$(readelf -n "$T/prog" | awk '/Build ID/ { print $3 }')
	mkdir -p "$root/usr/lib/debug/.build-id/${bid:0:2}"
	objcopy --only-keep-debug "$T/prog" "$root/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug" || return 1
	python3 $D/gen.py --obj "prog=/usr/bin/prog=$T/prog" \
		--obj "lib=/usr/lib/libtr.so=$T/libtr.so" <"$T/profile.s" >"$T/root.txt" || return 1
	$R --folded --root "$root" "$T/root.txt" | diff -u "$T/profile.expected" - ||
		{ echo "with --root"; return 1; }
	$R --folded "$T/root.txt" | grep -q '\[prog\];\[prog\]' ||
		{ echo "without --root the frames should stay unresolved"; return 1; }
	$R --summary "$T/root.txt" | grep -q '/usr/bin/prog (not found)' ||
		{ echo "summary lacks (not found)"; return 1; }
}
run_test symbolize-root-debuginfo symbolize_root

# ---- objects chosen by the recorded users ------------------------------------
# Object paths come from any user's processes; run as root, ustack-report
# opens only regular files, no symlink as the last component: a FIFO (or a
# symlink to one) would hang it, a device might act on open.  The frames
# stay unsymbolized, the run ends at once.
hostile_objects() {
	local h=$T/objs
	mkdir -p "$h"
	mkfifo "$h/fifo" && ln -s "$h/fifo" "$h/fifolink" && ln -s /dev/zero "$h/devlink" &&
		ln -s "$T/prog" "$h/proglink" || return 1
	python3 $D/gen.py --obj "a=$h/fifo=$T/prog" --obj "b=$h/fifolink=$T/prog" \
		--obj "c=$h/devlink=$T/prog" --obj "d=$h/proglink=$T/prog" <<-EOF >"$T/ho.txt" || return 1
	sample cookie=0x0000000100000001 pid=7 tid=7 cpu=0 time=10 event=cpu-clock comm=p
	user cookie=0x0000000100000001 pid=7 tid=7 frames=4 end=outermost
	    user @a:leaf+0x1 regs
	    user @b:middle+0x1 sframe
	    user @c:outer+0x1 sframe
	    user @d:main+0x1 sframe
	EOF
	local rc
	timeout 20 $R --summary "$T/ho.txt" >"$T/ho.out" 2>"$T/ho.err"
	rc=$?
	[ $rc = 0 ] || { echo "exit $rc (124: hung) $(head -2 "$T/ho.err")"; return 1; }
	grep -q 'user frames: 4, symbolized 0 (0.00%)' "$T/ho.out" ||
		{ echo "$(grep 'user frames' "$T/ho.out")"; return 1; }
	grep -q 'fifolink: a symbolic link' "$T/ho.err" && grep -q 'objs/fifo: not a regular file' "$T/ho.err" ||
		{ echo "stderr: $(head -4 "$T/ho.err" | tr '\n' ' ')"; return 1; }
}
run_test hostile-object-paths hostile_objects

# Privileges are dropped (to SUDO_UID/SUDO_GID, else nobody) before any ELF
# is parsed: elfspy.so logs the effective ids at each elf_begin().  The
# objects, opened before, under a directory only root may enter, are
# still symbolized.
drops_privileges() {
	[ "$(id -u)" = 0 ] || { echo "(not root: nothing to drop)"; return 0; }
	gcc -O2 -shared -fPIC -o "$T/elfspy.so" $D/elfspy.c -ldl || return 1
	rm -f "$T/spy1" "$T/spy2"
	ELFSPY_LOG=$T/spy1 SUDO_UID=12345 SUDO_GID=12346 LD_PRELOAD=$T/elfspy.so \
		$R --folded "$T/profile.txt" >"$T/dp1" || return 1
	ELFSPY_LOG=$T/spy2 LD_PRELOAD=$T/elfspy.so env -u SUDO_UID -u SUDO_GID \
		$R --folded "$T/profile.txt" >"$T/dp2" || return 1
	diff -u "$T/profile.expected" "$T/dp1" && diff -u "$T/profile.expected" "$T/dp2" || return 1
	[ -s "$T/spy1" ] && [ "$(sort -u "$T/spy1")" = "euid=12345 egid=12346" ] ||
		{ echo "with SUDO_UID: $(sort -u "$T/spy1" | tr '\n' ' ')"; return 1; }
	[ -s "$T/spy2" ] && [ "$(sort -u "$T/spy2")" = "euid=$(id -u nobody) egid=$(id -g nobody)" ] ||
		{ echo "without: $(sort -u "$T/spy2" | tr '\n' ' ')"; return 1; }
}
run_test drops-privileges-before-elf drops_privileges

# ---- binary robustness, live mode, garbage ----------------------------------
binary_malformed() {
	local size
	size=$(stat -c %s "$T/profile.bin")
	# truncated in the middle of the last record
	head -c $((size - 12)) "$T/profile.bin" >"$T/trunc.bin"
	$R --summary "$T/trunc.bin" >"$T/tr" || { echo "exit $?"; return 1; }
	# the unknown record kind counts one, the cut record another
	grep -qx 'samples: 10' "$T/tr" && grep -qx 'skipped records: 2' "$T/tr" ||
		{ echo "truncated: $(head -3 "$T/tr")"; return 1; }
	# a record claiming a huge size; another one with size 0
	python3 - "$T/profile.bin" "$T/bad.bin" "$T/zero.bin" <<-'EOF' || return 1
	import struct, sys
	b = bytearray(open(sys.argv[1], "rb").read())
	first = struct.unpack_from("<I", b, 4)[0]
	bad = bytearray(b); struct.pack_into("<I", bad, first + 4, 0x7ffffff8)
	open(sys.argv[2], "wb").write(bad)
	z = bytearray(b); struct.pack_into("<I", z, first + 4, 0)
	open(sys.argv[3], "wb").write(z)
	EOF
	$R --summary "$T/bad.bin" >"$T/tr" 2>/dev/null || { echo "bad size: exit $?"; return 1; }
	grep -qx 'samples: 1' "$T/tr" || { echo "bad size: $(head -2 "$T/tr")"; return 1; }
	$R --summary "$T/zero.bin" >"$T/tr" 2>/dev/null || { echo "zero size: exit $?"; return 1; }
	grep -qx 'samples: 1' "$T/tr" || { echo "zero size: $(head -2 "$T/tr")"; return 1; }
}
run_test binary-malformed binary_malformed

garbage_input() {
	local i rc
	for i in 1 2 3 4 5 6 7 8; do
		python3 - "$i" "$T/g" <<-'EOF'
		import random, struct, sys
		r = random.Random(int(sys.argv[1]))
		n = r.randrange(1, 4096)
		b = bytearray(r.getrandbits(8) for _ in range(n))
		if r.random() < 0.5:            # binary-looking
		    b[0:2] = struct.pack("<H", r.choice([1, 2, 3]))
		else:                           # text-looking
		    b = bytearray(b"sample cookie=0x1 tid=1 comm=" + bytes(b) +
		              b"\nuser cookie=0x1 tid=1\n    user 0x1 regs /x+0x") + b
		open(sys.argv[2], "wb").write(b)
		EOF
		for mode in --perf --folded --svg --summary --pprof --speedscope; do
			$R $mode "$T/g" >/dev/null 2>&1
			rc=$?
			[ $rc -lt 2 ] || { echo "seed $i $mode: exit $rc"; return 1; }
		done
	done
	# structured garbage: every prefix of a valid binary stream
	local size n f
	for f in profile.bin profile.pk; do
		size=$(stat -c %s "$T/$f")
		for ((n = 1; n < size; n += 37)); do
			head -c $n "$T/$f" >"$T/g"
			$R --folded "$T/g" >/dev/null 2>&1
			rc=$?
			[ $rc -lt 2 ] || { echo "$f prefix $n: exit $rc"; return 1; }
		done
	done
}
run_test garbage-input garbage_input

# Mutated streams under ASan and UBSan: no memory error, no undefined
# behaviour, and every SVG produced stays well-formed XML.
sanitizers() {
	make -C tools/ustack-report SAN_OUT="$T/ur-san" sanitize >"$T/san.log" 2>&1 ||
		{ tail -n 3 "$T/san.log"; echo "sanitizer build failed"; return 1; }
	python3 $D/trace_text.py perf <"$T/profile.txt" >"$T/profile.trace" || return 1
	ASAN_OPTIONS=detect_leaks=0 python3 - "$T" <<-'EOF'
	import json, os, random, subprocess, sys
	T = sys.argv[1]
	for src in ["profile.bin", "profile.pk", "profile.txt", "profile.trace"]:
	    base = open(os.path.join(T, src), "rb").read()
	    r = random.Random(src)
	    for i in range(40):
	        b = bytearray(base)
	        for _ in range(r.randrange(1, 10)):
	            b[r.randrange(len(b))] = r.getrandbits(8)
	        open(T + "/mut", "wb").write(b)
	        for mode in ["--svg", "--summary", "-v", "--pprof", "--speedscope"]:
	            p = subprocess.run([T + "/ur-san", mode, "-l", T + "/mut"],
	                               capture_output=True)
	            if (p.returncode not in (0, 1) or b"runtime error" in p.stderr
	                    or b"Sanitizer" in p.stderr):
	                sys.exit("%s #%d %s: exit %d %s" % (src, i, mode, p.returncode,
	                         p.stderr.decode(errors="replace")[-300:]))
	            if mode == "--svg" and p.returncode == 0:
	                open(T + "/mut.svg", "wb").write(p.stdout)
	                if subprocess.run(["xmllint", "--noout", T + "/mut.svg"],
	                                  capture_output=True).returncode:
	                    sys.exit("%s #%d: SVG not well-formed" % (src, i))
	            if mode == "--speedscope" and p.returncode == 0:
	                try:
	                    json.loads(p.stdout.decode("utf-8"))
	                except ValueError as e:
	                    sys.exit("%s #%d: speedscope JSON: %s" % (src, i, e))
	EOF
}
run_test sanitizers-mutated-streams sanitizers

# Live mode against a stand-in device (a regular file: the ioctl is refused,
# poll says readable, reads end): same joins, raw stream saved unchanged.
live_mode() {
	$R --folded --duration 0.3 --device "$T/profile.bin" --kallsyms "$T/profile.bin.ks" \
		--save "$T/saved.bin" >"$T/live" 2>"$T/live.err" || { cat "$T/live.err"; return 1; }
	diff -u "$T/profile.expected" "$T/live" || return 1
	cmp "$T/saved.bin" "$T/profile.bin" || return 1
	$R --duration 0.1 --device "$T/nonexistent" >/dev/null 2>&1 && { echo "missing device accepted"; return 1; }
	# a pipe that pauses mid-record and then ends: everything is read, end
	# of file ends the recording long before the duration
	mkfifo "$T/fifo" || return 1
	local size
	size=$(stat -c %s "$T/profile.bin")
	{ head -c 1000 "$T/profile.bin"; sleep 0.3; tail -c $((size - 1000)) "$T/profile.bin"; } >"$T/fifo" &
	timeout 30 $R --folded --duration 300 --device "$T/fifo" --kallsyms "$T/profile.bin.ks" >"$T/live2" ||
		{ echo "pipe: exit $?"; return 1; }
	wait $!
	diff -u "$T/profile.expected" "$T/live2"
}
run_test live-mode live_mode

# A live recording keeps the samples up to its end: one taken while it
# drained the last user records (here: one an hour after it) is dropped,
# not shown as a sample without a user stack.
live_until() {
	cp "$T/profile.txt" "$T/late.txt"
	echo "sample cookie=0x00000fff00000001 pid=100 tid=100 cpu=0 time=$(($(cut -d. -f1 /proc/uptime) + 3600))000000000 event=cpu-clock comm=prog" >>"$T/late.txt"
	$R --summary "$T/late.txt" | grep -qx 'samples: 12' || { echo "the late sample is not in the file"; return 1; }
	$R --summary --duration 0.2 --device "$T/late.txt" >"$T/lsum" 2>&1 || { cat "$T/lsum"; return 1; }
	grep -qx 'samples: 11' "$T/lsum" && grep -qx 'no user stack: 1 (9.09%)' "$T/lsum" ||
		{ grep -E '^(samples|no user stack):' "$T/lsum"; return 1; }
}
run_test live-until live_until

# ---- SVG ---------------------------------------------------------------------
# names that need escaping, and invalid UTF-8 in a binary comm
cat >"$T/esc.s" <<'EOF'
sample cookie=0x0000000100000001 pid=7 tid=7 cpu=0 time=10 event=cpu-clock comm=a<b>&"c'
    kernel 0xffffffff81000010 tick+0x10
EOF
printf '%s\n' "$U_LEAF" >>"$T/esc.s"
cat "$T/profile.s" >>"$T/esc.s"
gen "$T/esc.s" "$T/esc.txt"
genb "$T/esc.s" "$T/esc.bin"
python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); i = b.find(b"worker"); b[i:i+2] = b"\xff\xc3"; open(sys.argv[1], "wb").write(b)' "$T/esc.bin"

svg_wellformed() {
	$R --svg "$T/esc.txt" >"$T/esc.svg" && $R --svg --kallsyms "$T/esc.bin.ks" "$T/esc.bin" >"$T/escb.svg" ||
		return 1
	xmllint --noout "$T/esc.svg" "$T/escb.svg" || return 1
	python3 - "$T/esc.svg" <<-'EOF' || return 1
	import sys, xml.dom.minidom as m
	d = m.parse(sys.argv[1])
	titles = [t.firstChild.data for t in d.getElementsByTagName("title") if t.firstChild]
	want = ["all (12 samples, 100.00%)", "a<b>&c (1 sample, 8.33%)",
	    "leaf (5 samples, 41.67%)", "lib_inner (2 samples, 16.67%)"]
	for w in want:
	    if w not in titles:
	        sys.exit("title %r missing" % w)
	if not d.getElementsByTagName("script"):
	    sys.exit("no script")
	EOF
	# (quotes are dropped from names, as stackcollapse-perf.pl does)
	grep -q '<title>a&lt;b&gt;&amp;c (1 sample' "$T/esc.svg" || { echo "not escaped"; return 1; }
	$R --svg --title "q\"u'o<t>e&" "$T/esc.txt" >"$T/t.svg" && xmllint --noout "$T/t.svg" &&
		grep -q '>q&quot;u&apos;o&lt;t&gt;e&amp;</text>' "$T/t.svg" || { echo "title not escaped"; return 1; }
}
run_test svg-wellformed svg_wellformed

$R --svg --title "ustack test profile" "$T/profile.txt" >"$T/profile.svg"
CHROME_OK=1
if ! command -v chromium >/dev/null; then
	CHROME_OK=0
fi
chrome() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$(mktemp -d -p "$T")" "$@" 2>/dev/null
}

svg_chromium_screenshot() {
	[ $CHROME_OK = 1 ] || { echo "chromium not installed (bash scripts/deps.sh)"; return 1; }
	rm -f "$T/shot.png"
	chrome --window-size=1200,400 --screenshot="$T/shot.png" "file://$T/profile.svg" >/dev/null
	[ -s "$T/shot.png" ] || { echo "no screenshot"; return 1; }
	python3 - "$T/shot.png" <<-'EOF'
	import struct, sys, zlib
	b = open(sys.argv[1], "rb").read()
	if b[:8] != b"\x89PNG\r\n\x1a\n":
	    sys.exit("not a PNG")
	w, h = struct.unpack(">II", b[16:24])
	if (w, h) != (1200, 400):
	    sys.exit("size %dx%d" % (w, h))
	if len(b) < 5000:
	    sys.exit("suspiciously small PNG (%d bytes): blank page?" % len(b))
	EOF
	[ -n "$USTACK_KEEP_SCREENSHOT" ] && cp "$T/shot.png" "$USTACK_KEEP_SCREENSHOT"
	return 0
}
run_test svg-chromium-screenshot svg_chromium_screenshot

svg_chromium_dom() {
	[ $CHROME_OK = 1 ] || { echo "chromium not installed"; return 1; }
	chrome --dump-dom "file://$T/profile.svg" >"$T/dom" || { echo "dump-dom failed"; return 1; }
	local w
	for w in 'main (8 samples, 72.73%)' 'leaf (5 samples, 45.45%)' \
		'lib_func (3 samples, 27.27%)' 'lib_func (2 samples, 18.18%)' \
		'[no user stack] (1 sample, 9.09%)' \
		'worker (2 samples, 18.18%)' 'ksys_write (1 sample, 9.09%)'; do
		grep -qF "<title>$w</title>" "$T/dom" || { echo "DOM lacks $w"; return 1; }
	done
	grep -q '>ustack test profile</text>' "$T/dom" || { echo "no title"; return 1; }
}
run_test svg-chromium-dom svg_chromium_dom

svg_chromium_search() {
	[ $CHROME_OK = 1 ] || { echo "chromium not installed"; return 1; }
	# leaf: 5 of 11 samples; lib_: lib_func (3 + 2) and lib_inner (inside
	# worker's lib_func, counted once) = 5
	chrome --dump-dom "file://$T/profile.svg?s=%5Eleaf%24" >"$T/dom" || return 1
	grep -q '>Matched: 45.5%</text>' "$T/dom" || { echo "search leaf: $(grep -o 'Matched[^<]*' "$T/dom")"; return 1; }
	grep -q '<title>leaf (5 samples, 45.45%)</title><rect[^>]*fill="rgb(230,0,230)"' "$T/dom" ||
		{ echo "leaf not highlighted"; return 1; }
	chrome --dump-dom "file://$T/profile.svg?s=lib_" >"$T/dom" || return 1
	grep -q '>Matched: 45.5%</text>' "$T/dom" || { echo "search lib_: $(grep -o 'Matched[^<]*' "$T/dom")"; return 1; }
}
run_test svg-chromium-search svg_chromium_search

svg_chromium_zoom() {
	[ $CHROME_OK = 1 ] || { echo "chromium not installed"; return 1; }
	chrome --dump-dom "file://$T/profile.svg?f=middle" >"$T/dom" || return 1
	grep -q 'data-zoomed="middle"' "$T/dom" || { echo "not zoomed"; return 1; }
	# middle, leaf and the tick fill the width; siblings hidden; parents dimmed
	grep -q '<g[^>]*><title>leaf (5 samples, 45.45%)</title><rect x="10.0" [^>]*width="1180.0"' "$T/dom" ||
		{ echo "leaf not full width"; return 1; }
	grep -q '<g [^>]*display: none;[^>]*><title>lib_func (3 samples' "$T/dom" ||
		{ echo "sibling lib_func not hidden"; return 1; }
	grep -q '<g [^>]*class="parent"[^>]*><title>outer (8 samples' "$T/dom" ||
		{ echo "parent outer not marked"; return 1; }
}
run_test svg-chromium-zoom svg_chromium_zoom

# ---- pprof, speedscope, filters, help and manual pages ----------------------
# folded_by_event STREAM [OPTIONS]: `EVENT comm;...;inner count` for every
# event, from --folded --event, the reference for the profile formats
folded_by_event() {
	local in=$1 ev
	shift
	for ev in $($R "$@" "$in" | awk '/^[^\t].*: [0-9]+ .*:$/ { sub(/:$/, "", $NF); print $NF }' | sort -u); do
		$R --folded --event "$ev" "$@" "$in" | sed "s|^|$ev |"
	done | sort
}

# pprof_dump PROFILE.pb.gz: the profile decoded by protoc-c's own decoder
PDUMP=$T/pprof-dump
pprof_dump() {
	if [ ! -x "$PDUMP" ]; then
		gcc -O1 -g -Wall -Werror -Itools/ustack-report -o "$PDUMP" $D/pprof_dump.c \
			tools/ustack-report/profile.pb-c.c -lprotobuf-c || return 1
	fi
	gzip -dc "$1" | "$PDUMP"
}

# go tool pprof reads the profile and lists the workload's functions with
# the hand-computed counts, per sample type; file:line with -l; the objects'
# build-ids in the mappings.
pprof_go_top() {
	command -v go >/dev/null || { echo "go not installed (bash scripts/deps.sh)"; return 1; }
	$R --pprof "$T/profile.txt" >"$T/p.pb.gz" || return 1
	gzip -t "$T/p.pb.gz" || { echo "not gzip"; return 1; }
	export HOME=$T PPROF_TMPDIR=$T
	go tool pprof -top -sample_index=cpu-clock "$T/p.pb.gz" >"$T/top" 2>&1 ||
		{ cat "$T/top"; return 1; }
	local want
	while IFS= read -r want; do
		grep -qE -- "$want" "$T/top" || { echo "cpu-clock: no /$want/"; cat "$T/top"; return 1; }
	done <<-'EOF'
	^Type: cpu-clock$
	Total samples = 9 *$
	^ +8 88\.89% .* asm_sysvec_apic_timer_interrupt$
	^ +0 +0% .* 5 55\.56%  leaf$
	^ +0 +0% .* 5 55\.56%  middle$
	^ +0 +0% .* 6 66\.67%  outer$
	^ +0 +0% .* 6 66\.67%  main$
	^ +0 +0% .* 3 33\.33%  lib_func$
	^ +0 +0% .* 2 22\.22%  lib_inner$
	^ +0 +0% .* 2 22\.22%  \[incomplete: fault\]$
	^ +0 +0% .* 1 11\.11%  \[no user stack\]$
	EOF
	go tool pprof -top -sample_index=syscall:write "$T/p.pb.gz" >"$T/top" 2>&1 || return 1
	grep -qE '^ +2 +100% +100% +2 +100%  do_syscall_64$' "$T/top" &&
		grep -qE ' 2 +100%  lib_func$' "$T/top" || { echo "syscall:write"; cat "$T/top"; return 1; }
	# -l: the same file:line as our perf output gives main's frame
	$R -l --pprof "$T/profile.txt" >"$T/pl.pb.gz" || return 1
	local fl
	fl=$($R -l "$T/profile.txt" | awk '$2 ~ /^main\+0x/ { print $NF; exit }')
	[ -n "$fl" ] || { echo "no file:line in -l perf output"; return 1; }
	go tool pprof -top -lines "$T/pl.pb.gz" 2>&1 | grep -qF " main $fl" ||
		{ echo "-lines lacks 'main $fl'"; go tool pprof -top -lines "$T/pl.pb.gz"; return 1; }
	local bid
	bid=$(readelf -n "$T/prog" | awk '/Build ID/ { print $3 }')
	go tool pprof -raw "$T/p.pb.gz" 2>&1 | grep -qE "^[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ $T/prog $bid " ||
		{ echo "no mapping of $T/prog with build-id $bid"; return 1; }
}
run_test pprof-go-tool-top pprof_go_top

# protoc-c's decoder gives back what was written: per sample type the
# stacks and counts of --folded --event, the pid/tid/comm labels, and for
# every user frame of the stream a location whose mapping gives its object,
# file offset and build-id back.
pprof_decode() {
	$R -l --pprof "$T/profile.txt" >"$T/pd.pb.gz" && pprof_dump "$T/pd.pb.gz" >"$T/pd" || return 1
	grep -qx 'default cpu-clock' "$T/pd" &&
		[ "$(grep '^type ' "$T/pd")" = $'type cpu-clock count\ntype syscall:write count' ] ||
		{ echo "sample types: $(grep -E '^(type|default) ' "$T/pd")"; return 1; }
	local bid bidl
	bid=$(readelf -n "$T/prog" | awk '/Build ID/ { print $3 }')
	bidl=$(readelf -n "$T/libtr.so" | awk '/Build ID/ { print $3 }')
	python3 $D/pprof_fold.py --stream "$T/profile.txt" --build-id "$T/prog=$bid" \
		--build-id "$T/libtr.so=$bidl" <"$T/pd" >"$T/pd.folded" || return 1
	diff -u <(folded_by_event "$T/profile.txt") "$T/pd.folded" || return 1
	python3 $D/pprof_fold.py --labels <"$T/pd" >"$T/pd.labels" || return 1
	diff -u - "$T/pd.labels" <<-'EOF'
	labels pid=100 tid=101 comm=prog 9
	labels pid=100 tid=202 comm=worker 2
	EOF
	# -l: functions carry the file and lines perf output prints
	grep -q "^location [0-9]* [1-9][0-9]* 0x[0-9a-f]* leaf $PWD/$D/prog.c:[0-9][0-9]*\$" "$T/pd" ||
		{ echo "no leaf with prog.c:line"; return 1; }
	# binary records give the same profile as text ones
	$R --pprof --kallsyms "$T/profile.bin.ks" "$T/profile.bin" >"$T/pb.pb.gz" &&
		$R --pprof "$T/profile.txt" >"$T/pt.pb.gz" || return 1
	cmp <(gzip -dc "$T/pb.pb.gz") <(gzip -dc "$T/pt.pb.gz") || { echo "binary != text"; return 1; }
	# nothing to write is still a valid, empty profile
	: >"$T/empty"
	$R --pprof "$T/empty" >"$T/e.pb.gz" && pprof_dump "$T/e.pb.gz" >/dev/null ||
		{ echo "empty input"; return 1; }
	# gzip bytes are refused on a terminal (script(1) gives one)
	if command -v script >/dev/null; then
		script -qec "$R --pprof $T/profile.txt" /dev/null >"$T/tty" 2>&1
		grep -q 'redirect standard output' "$T/tty" || { echo "wrote to a terminal"; return 1; }
	fi
}
run_test pprof-protoc-c-decode pprof_decode

# Guessed frames (method "guess") are marked "? " in pprof and speedscope.
cat >"$T/guess.s" <<'EOF'
sample cookie=0x0000000100000001 pid=7 tid=7 cpu=0 time=10 event=cpu-clock comm=p
    kernel 0xffffffff81000010 tick+0x10
user cookie=0x0000000100000001 pid=7 tid=7 frames=3 end=no-info
    user @prog:leaf+0x1 regs
    user @prog:middle+0x9 guess
    user @prog:main+0x10 guess
EOF
gen "$T/guess.s" "$T/guess.txt"
pprof_guess() {
	$R --pprof "$T/guess.txt" >"$T/g.pb.gz" && pprof_dump "$T/g.pb.gz" >"$T/g" || return 1
	[ "$(python3 $D/pprof_fold.py <"$T/g")" = 'cpu-clock p;[incomplete: no-info];? main;? middle;leaf;tick 1' ] ||
		{ python3 $D/pprof_fold.py <"$T/g"; return 1; }
	$R --speedscope "$T/guess.txt" | grep -q '{"name":"? middle"}' || { echo speedscope; return 1; }
}
run_test pprof-speedscope-guess-marked pprof_guess

# And in perf-script text ("? " before the symbol, as the kernel marks its
# unreliable frames), folded stacks, the SVG (its own dashed style) and
# the summary's count.
guess_marked() {
	$R "$T/guess.txt" >"$T/g.perf" || return 1
	grep -q ' ? middle+0x9 (' "$T/g.perf" && grep -q ' ? main+0x10 (' "$T/g.perf" &&
		grep -q ' leaf+0x1 (' "$T/g.perf" && ! grep -q '? leaf' "$T/g.perf" ||
		{ cat "$T/g.perf"; return 1; }
	[ "$($R --folded "$T/guess.txt")" = 'p;[incomplete: no-info];? main;? middle;leaf;tick 1' ] ||
		{ $R --folded "$T/guess.txt"; return 1; }
	$R --svg "$T/guess.txt" >"$T/g.svg" || return 1
	[ "$(grep -c 'class="guess"' "$T/g.svg")" = 2 ] &&
		grep 'class="guess"' "$T/g.svg" | grep -q '? middle' &&
		! grep '<title>leaf' "$T/g.svg" | grep -q 'class="guess"' ||
		{ grep -n 'guess\|<title>' "$T/g.svg" | head; return 1; }
	$R --summary "$T/guess.txt" | grep -qx 'guessed frames (stack scan): 2 (66.67%), in 1 samples (100.00%)' ||
		{ $R --summary "$T/guess.txt"; return 1; }
}
run_test guess-marked-perf-svg-summary guess_marked

# Interpreter frames: an `interp` record joins the user record of its
# (tid, cookie) and its frames, with file and line, take the place of the
# evaluator's native frames (_PyEval_EvalFrameDefault for lang=python), in
# pprof and speedscope.  A stand-in "interpreter" names its evaluator so.
cat >"$T/py.c" <<'EOF'
int __attribute__((noinline)) native_leaf(int x) { return x * 3 + 1; }
int __attribute__((noinline)) _PyEval_EvalFrameDefault(int x) { return native_leaf(x) + 1; }
int main(int argc, char **argv) { (void)argv; return _PyEval_EvalFrameDefault(argc) + 2; }
EOF
gcc $CFL -o "$T/py" "$T/py.c"
cat >"$T/interp.s" <<'EOF'
sample cookie=0x0000000100000001 pid=9 tid=9 cpu=0 time=10 event=cpu-clock comm=python3
    kernel 0xffffffff81000010 tick+0x10
user cookie=0x0000000100000001 pid=9 tid=9 frames=4 end=outermost
    user @py:native_leaf+0x1 regs
    user @py:_PyEval_EvalFrameDefault+0x1 sframe
    user @py:_PyEval_EvalFrameDefault+0x1 sframe
    user @py:main+0x1 sframe
interp cookie=0x0000000100000001 pid=9 tid=9 frames=2 lang=python
    interp handler /srv/app.py:12
    something else
    interp <module> /srv/app.py:30
sample cookie=0x0000000300000001 pid=9 tid=9 cpu=0 time=20 event=cpu-clock comm=python3
    kernel 0xffffffff81000010 tick+0x10
user cookie=0x0000000300000001 pid=9 tid=9 frames=2 end=outermost
    user @py:_PyEval_EvalFrameDefault+0x1 regs
    user @py:main+0x1 sframe
interp cookie=0x0000000500000001 pid=9 tid=9 frames=1 lang=python
    interp orphan /srv/app.py:1
EOF
python3 $D/gen.py --obj "py=$T/py" <"$T/interp.s" >"$T/interp.txt"
interp_frames() {
	$R --pprof "$T/interp.txt" >"$T/i.pb.gz" && pprof_dump "$T/i.pb.gz" >"$T/i" || return 1
	python3 $D/pprof_fold.py <"$T/i" >"$T/i.folded" || return 1
	diff -u - "$T/i.folded" <<-'EOF' || return 1
	cpu-clock python3;main;<module>;handler;native_leaf;tick 1
	cpu-clock python3;main;_PyEval_EvalFrameDefault;tick 1
	EOF
	grep -q '^location [0-9]* 0 0x0 handler /srv/app.py:12$' "$T/i" &&
		grep -q '^location [0-9]* 0 0x0 <module> /srv/app.py:30$' "$T/i" ||
		{ echo "pprof: no file:line for the interpreted frames"; grep '^location' "$T/i"; return 1; }
	$R --speedscope "$T/interp.txt" >"$T/i.json" || return 1
	grep -qF '{"name":"handler","file":"/srv/app.py","line":12}' "$T/i.json" ||
		{ echo "speedscope: no handler frame with file and line"; return 1; }
	python3 - "$T/i.json" <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))
	f = d["shared"]["frames"]
	got = sorted(";".join(f[i]["name"] for i in s) for s in d["profiles"][0]["samples"])
	want = sorted(["python3;main;<module>;handler;native_leaf;tick",
	               "python3;main;_PyEval_EvalFrameDefault;tick"])
	sys.exit(0 if got == want else "speedscope stacks: %r" % got)
	EOF
}
run_test interp-frames-pprof-speedscope interp_frames

# The text outputs: interp frames in place of the evaluator's, named
# "function (file:line)" (perf-script) or "function (file)" (folded, SVG);
# the sample whose answer never came stays native and is counted.
interp_text() {
	$R --folded "$T/interp.txt" >"$T/i.folded2" || return 1
	diff -u - "$T/i.folded2" <<-'EOF' || return 1
	python3;main;<module> (/srv/app.py);handler (/srv/app.py);native_leaf;tick 1
	python3;main;_PyEval_EvalFrameDefault;tick 1
	EOF
	$R --perf "$T/interp.txt" >"$T/i.perf" || return 1
	grep -qE '^\s+0 handler \(/srv/app\.py:12\) \(\[interp\]\)$' "$T/i.perf" &&
		grep -qE '^\s+0 <module> \(/srv/app\.py:30\) \(\[interp\]\)$' "$T/i.perf" ||
		{ echo "perf-script: no interp frames"; cat "$T/i.perf"; return 1; }
	[ "$(grep -c _PyEval_EvalFrameDefault "$T/i.perf")" = 1 ] ||
		{ echo "perf-script: evaluator frames not replaced"; return 1; }
	$R --svg "$T/interp.txt" | grep -qF 'handler (/srv/app.py)' ||
		{ echo "svg: no interp frame"; return 1; }
	$R --summary "$T/interp.txt" | grep -qx 'interpreter frames: 1 samples, 1 unanswered in its code (native frames only)' ||
		{ echo "summary: no interp counts"; $R --summary "$T/interp.txt" | head -8; return 1; }
}
run_test interp-frames-text-outputs interp_text

# The same answers in binary records (ustack-report --duration, --save)
# give the same stacks.
interp_binary() {
	python3 $D/gen.py --obj "py=$T/py" --binary --kallsyms "$T/interp.ks" \
		<"$T/interp.s" >"$T/interp.bin" || return 1
	$R --folded --kallsyms "$T/interp.ks" "$T/interp.bin" >"$T/ib.folded" || return 1
	$R --folded "$T/interp.txt" >"$T/it.folded" || return 1
	diff -u "$T/it.folded" "$T/ib.folded"
}
run_test interp-frames-binary interp_binary

# Nested evaluations: Python -> a C builtin -> Python (sorted(key=...)).
# Each group of the answer, ending with its "entry" frame, takes the place
# of its own evaluator frame, in order, and the builtin stays between
# them (stay 1).  Stay 2: an evaluator caught before its frame was linked
# (one evaluator more, both lists whole): matched from the outermost end,
# the innermost evaluator stays native.  Stay 3: an answer cut short (no
# entry at its end) and a walk cut short: matched from the innermost end.
# Stay 4: an answer without entry marks replaces the whole span.
cat >"$T/nest.c" <<'EOF'
int __attribute__((noinline)) native_leaf(int x) { return x * 3 + 1; }
int __attribute__((noinline)) _PyEval_EvalFrameDefault(int x) { return native_leaf(x) + 1; }
int __attribute__((noinline)) builtin_sorted(int x) { return _PyEval_EvalFrameDefault(x) + 1; }
int main(int argc, char **argv) { (void)argv; return builtin_sorted(argc) + 2; }
EOF
gcc $CFL -o "$T/nest" "$T/nest.c"
cat >"$T/nest.s" <<'EOF'
sample cookie=0x0000000100000001 pid=9 tid=9 cpu=0 time=10 event=cpu-clock comm=python3
    kernel 0xffffffff81000010 tick+0x10
user cookie=0x0000000100000001 pid=9 tid=9 frames=5 end=outermost
    user @nest:native_leaf+0x1 regs
    user @nest:_PyEval_EvalFrameDefault+0x1 sframe
    user @nest:builtin_sorted+0x1 sframe
    user @nest:_PyEval_EvalFrameDefault+0x1 sframe
    user @nest:main+0x1 sframe
interp cookie=0x0000000100000001 pid=9 tid=9 frames=4 lang=python3.11
    interp by_len /srv/app.py:3 entry
    interp order /srv/app.py:9
    interp helper /srv/app.py:20
    interp <module> /srv/app.py:30 entry
sample cookie=0x0000000300000001 pid=9 tid=9 cpu=0 time=20 event=cpu-clock comm=python3
    kernel 0xffffffff81000010 tick+0x10
user cookie=0x0000000300000001 pid=9 tid=9 frames=5 end=outermost
    user @nest:_PyEval_EvalFrameDefault+0x1 regs
    user @nest:builtin_sorted+0x1 sframe
    user @nest:_PyEval_EvalFrameDefault+0x1 sframe
    user @nest:_PyEval_EvalFrameDefault+0x1 sframe
    user @nest:main+0x1 sframe
interp cookie=0x0000000300000001 pid=9 tid=9 frames=2 lang=python3.11
    interp by_len /srv/app.py:3 entry
    interp <module> /srv/app.py:30 entry
sample cookie=0x0000000500000001 pid=9 tid=9 cpu=0 time=30 event=cpu-clock comm=python3
    kernel 0xffffffff81000010 tick+0x10
user cookie=0x0000000500000001 pid=9 tid=9 frames=3 end=depth
    user @nest:_PyEval_EvalFrameDefault+0x1 regs
    user @nest:builtin_sorted+0x1 sframe
    user @nest:_PyEval_EvalFrameDefault+0x1 sframe
interp cookie=0x0000000500000001 pid=9 tid=9 frames=3 lang=python3.11
    interp by_len /srv/app.py:3 entry
    interp order /srv/app.py:9 entry
    interp helper /srv/app.py:20
sample cookie=0x0000000700000001 pid=9 tid=9 cpu=0 time=40 event=cpu-clock comm=python3
    kernel 0xffffffff81000010 tick+0x10
user cookie=0x0000000700000001 pid=9 tid=9 frames=5 end=outermost
    user @nest:native_leaf+0x1 regs
    user @nest:_PyEval_EvalFrameDefault+0x1 sframe
    user @nest:builtin_sorted+0x1 sframe
    user @nest:_PyEval_EvalFrameDefault+0x1 sframe
    user @nest:main+0x1 sframe
interp cookie=0x0000000700000001 pid=9 tid=9 frames=2 lang=python3.11
    interp by_len /srv/app.py:3
    interp <module> /srv/app.py:30
EOF
python3 $D/gen.py --obj "nest=$T/nest" <"$T/nest.s" >"$T/nest.txt"
interp_nested() {
	$R --folded "$T/nest.txt" >"$T/n.folded" || return 1
	diff -u - "$T/n.folded" <<-'EOF' || return 1
	python3;[incomplete: depth];helper (/srv/app.py);order (/srv/app.py);builtin_sorted;by_len (/srv/app.py);tick 1
	python3;main;<module> (/srv/app.py);by_len (/srv/app.py);builtin_sorted;_PyEval_EvalFrameDefault;tick 1
	python3;main;<module> (/srv/app.py);by_len (/srv/app.py);native_leaf;tick 1
	python3;main;<module> (/srv/app.py);helper (/srv/app.py);order (/srv/app.py);builtin_sorted;by_len (/srv/app.py);native_leaf;tick 1
	EOF
	$R --perf "$T/nest.txt" >"$T/n.perf" || return 1
	awk '/^python3/ { n++ } n == 1 && /^\t/ { sub(/^\(\/tmp\/.*/, "(nest)", $3); print $2, $3 }' "$T/n.perf" >"$T/n.first"
	diff -u - "$T/n.first" <<-'EOF' || return 1
	tick+0x10 ([kernel.kallsyms])
	native_leaf+0x1 (nest)
	by_len (/srv/app.py:3)
	builtin_sorted+0x1 (nest)
	order (/srv/app.py:9)
	helper (/srv/app.py:20)
	<module> (/srv/app.py:30)
	main+0x1 (nest)
	EOF
}
run_test interp-frames-nested interp_nested

# speedscope's JSON schema, from its npm package (cached), validates our
# files (plain, -l, names that need escaping, a comm that is not UTF-8) and
# refuses a broken one; the profiles hold --folded --event's stacks.
SS_VERSION=1.25.0
SS_DIR=${USTACK_CACHE:-/var/cache/ustack}/npm
SS_SCHEMA=$SS_DIR/speedscope-$SS_VERSION-file-format-schema.json
speedscope_schema_fetch() {
	[ -s "$SS_SCHEMA" ] && return 0
	command -v npm >/dev/null || { echo "npm not installed (bash scripts/deps.sh)"; return 1; }
	mkdir -p "$SS_DIR" || return 1
	(cd "$SS_DIR" && timeout 300 npm pack --silent --cache "$SS_DIR/.npm" "speedscope@$SS_VERSION" >/dev/null) ||
		{ echo "npm pack speedscope@$SS_VERSION failed"; return 1; }
	tar -xzOf "$SS_DIR/speedscope-$SS_VERSION.tgz" package/dist/release/file-format-schema.json \
		>"$SS_SCHEMA.tmp" && mv "$SS_SCHEMA.tmp" "$SS_SCHEMA"
}
speedscope_schema() {
	speedscope_schema_fetch || return 1
	/usr/bin/python3 -c 'import jsonschema' || { echo "python3-jsonschema missing (bash scripts/deps.sh)"; return 1; }
	local in opt
	for in in "$T/profile.txt" "$T/esc.txt" "$T/esc.bin"; do
		for opt in "" -l; do
			$R --speedscope $opt --kallsyms "$T/esc.bin.ks" "$in" >"$T/ss.json" || return 1
			/usr/bin/python3 $D/speedscope_check.py "$SS_SCHEMA" "$T/ss.json" >"$T/ss.folded" ||
				{ echo "$in $opt"; return 1; }
		done
	done
	$R --speedscope "$T/profile.txt" >"$T/ss.json" || return 1
	/usr/bin/python3 $D/speedscope_check.py "$SS_SCHEMA" "$T/ss.json" >"$T/ss.folded" || return 1
	diff -u <(folded_by_event "$T/profile.txt") "$T/ss.folded" || return 1
	# -l frames carry file and line
	$R --speedscope -l "$T/profile.txt" | grep -qE "\{\"name\":\"leaf\",\"file\":\"$PWD/$D/prog.c\",\"line\":[0-9]+\}" ||
		{ echo "no leaf frame with file and line"; return 1; }
	# the validator does refuse: a weight that is a string
	sed 's/"weights":\[5/"weights":["5"/' "$T/ss.json" >"$T/bad.json"
	! cmp -s "$T/ss.json" "$T/bad.json" || { echo "sed changed nothing"; return 1; }
	/usr/bin/python3 $D/speedscope_check.py "$SS_SCHEMA" "$T/bad.json" >/dev/null 2>&1 &&
		{ echo "an invalid file validated"; return 1; }
	return 0
}
run_test speedscope-schema speedscope_schema

# Two processes: the hand-computed profile as pid 100 (prog, worker) and a
# copy as pid 300 (other, helper).  Each filter selects exactly its samples,
# in every output format.
sed 's/pid=100/pid=300/; s/tid=101/tid=301/; s/tid=202/tid=302/; s/comm=prog/comm=other/; s/comm=worker/comm=helper/' \
	"$T/profile.s" | cat "$T/profile.s" - >"$T/two.s"
gen "$T/two.s" "$T/two.txt"
genb "$T/two.s" "$T/two.bin"

# samples_in_every_format IN [FILTERS]: one count per output format
samples_in_every_format() {
	local in=$1 ks=()
	shift
	[ "$in" = "$T/two.bin" ] && ks=(--kallsyms "$T/two.bin.ks")
	$R "${ks[@]}" "$@" "$in" | grep -c '^$'
	$R --folded "${ks[@]}" "$@" "$in" | awk '{ n += $NF } END { print n + 0 }'
	$R --summary "${ks[@]}" "$@" "$in" | sed -n 's/^samples: //p'
	$R --svg "${ks[@]}" "$@" "$in" | grep -o '<title>all ([0-9]* sample' | grep -o '[0-9]*'
	$R --pprof "${ks[@]}" "$@" "$in" >"$T/fl.pb.gz" && pprof_dump "$T/fl.pb.gz" |
		awk '/^sample / { split($2, v, ","); for (i in v) n += v[i] } END { print n + 0 }'
	$R --speedscope "${ks[@]}" "$@" "$in" | python3 -c '
import json, sys
print(sum(sum(p["weights"]) for p in json.load(sys.stdin)["profiles"]))'
}

filters_every_format() {
	local want args got in
	for in in "$T/two.txt" "$T/two.bin"; do
		while read -r want args; do
			# shellcheck disable=SC2086
			got=$(samples_in_every_format "$in" $args | tr '\n' ' ')
			[ "$got" = "$want $want $want $want $want $want " ] ||
				{ echo "${in##*/} $args: want $want in perf folded summary svg pprof speedscope, got $got"; return 1; }
		done <<-'EOF'
		22
		11 --pid 300
		22 --pid 100,300
		22 --pid 100 --pid 300
		2 --tid 202
		4 --tid 202,302
		11 --tid 101 --tid 302
		2 --comm worker
		4 --comm worker,helper
		18 --comm prog --comm other
		9 --pid 300 --comm other
		2 --pid 300 --tid 302 --comm helper
		2 --pid 300 --event syscall:write
		EOF
	done
	# --svg of no sample has no "all" frame: 0 everywhere but there
	[ "$(samples_in_every_format "$T/two.txt" --pid 100 --comm other | tr '\n' ' ')" = "0 0 0 0 0 " ] ||
		{ echo "pid 100 and comm other: not empty"; return 1; }
	return 0
}
run_test filters-every-format filters_every_format

# The selected samples are exactly the right ones: their stacks, their
# labels, and user records of other tasks left out of the summary.
filters_exact() {
	sed 's/^prog;/other;/; s/^worker;/helper;/' "$T/profile.expected" | sort >"$T/f300.exp"
	$R --folded --pid 300 "$T/two.txt" | diff -u "$T/f300.exp" - || { echo "--pid 300"; return 1; }
	$R --folded --pid 100 "$T/two.txt" | diff -u "$T/profile.expected" - || { echo "--pid 100"; return 1; }
	{ grep '^worker;' "$T/profile.expected"; grep '^helper;' "$T/f300.exp"; } | sort >"$T/ftid.exp"
	$R --folded --tid 202,302 "$T/two.txt" | diff -u "$T/ftid.exp" - || { echo "--tid"; return 1; }
	$R --folded --comm helper --comm worker "$T/two.txt" | diff -u "$T/ftid.exp" - || { echo "--comm"; return 1; }
	$R --pprof --tid 301 "$T/two.txt" >"$T/ft.pb.gz" && pprof_dump "$T/ft.pb.gz" >"$T/ft" || return 1
	[ "$(python3 $D/pprof_fold.py --labels <"$T/ft")" = "labels pid=300 tid=301 comm=other 9" ] ||
		{ echo "pprof labels: $(python3 $D/pprof_fold.py --labels <"$T/ft")"; return 1; }
	$R --summary --comm worker "$T/two.txt" | grep -qx 'user records: 2 (0 without a sample)' ||
		{ echo "summary --comm: $($R --summary --comm worker "$T/two.txt" | grep 'user records')"; return 1; }
	$R --summary --pid 300 "$T/two.txt" | grep -qx 'user records: 9 (0 without a sample)' ||
		{ echo "summary --pid"; return 1; }
	# bad values: a usage error (2), nothing written
	local bad
	for bad in "--pid x" "--pid 1,,2" "--pid=" "--tid -1" "--tid 99999999999" "--comm=" "--comm a,"; do
		# shellcheck disable=SC2086
		$R --folded $bad "$T/two.txt" >"$T/bad.out" 2>&1
		[ $? = 2 ] && grep -q 'bad value' "$T/bad.out" || { echo "'$bad' accepted: $(head -2 "$T/bad.out")"; return 1; }
	done
}
run_test filters-exact filters_exact

# --help names every option of the option table, and so does the manual
# page; the pages of all three tools render without a warning.
help_and_man_pages() {
	local o opts
	opts=$(sed -n 's/^\t\t{ "\([a-z-]*\)", .*/\1/p' tools/ustack-report/main.c)
	[ "$(echo "$opts" | wc -w)" -ge 20 ] || { echo "option table not found: $opts"; return 1; }
	$R --help >"$T/help" || return 1
	for o in $opts; do
		grep -q -- "--$o\b" "$T/help" || { echo "--help lacks --$o"; return 1; }
		grep -q -- "\\\\-\\\\-$o\b" man/ustack-report.1 || { echo "man page lacks --$o"; return 1; }
	done
	local c
	for c in run dump lookup gen check; do
		grep -q "^\.B $c\b" man/sframe-register.1 || grep -q "^\.BI $c " man/sframe-register.1 ||
			{ echo "sframe-register.1 lacks $c"; return 1; }
	done
	for c in 'ustackd: ready' SIGTERM SIGINT '\-\-status' /var/cache/ustack/sframe/; do
		grep -qF -- "$c" man/ustackd.8 || { echo "ustackd.8 lacks $c"; return 1; }
	done
	local p
	for p in man/ustack-report.1 man/sframe-register.1 man/ustackd.8; do
		if command -v man >/dev/null; then
			LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$p" 2>"$T/man.err" >"$T/man.out" || { echo "$p: man failed"; return 1; }
		else
			groff -wall -man -Tutf8 "$p" 2>"$T/man.err" >"$T/man.out" || { echo "$p: groff failed"; return 1; }
		fi
		[ ! -s "$T/man.err" ] || { echo "$p: $(head -3 "$T/man.err")"; return 1; }
		grep -q NAME "$T/man.out" || { echo "$p: nothing rendered"; return 1; }
	done
	make -s install-man DESTDIR="$T/inst" PREFIX=/usr >/dev/null || return 1
	for p in man1/ustack-report.1 man1/sframe-register.1 man8/ustackd.8; do
		[ -s "$T/inst/usr/share/man/$p" ] || { echo "make install-man: no $p"; return 1; }
	done
}
run_test help-and-man-pages help_and_man_pages

# The trace events' text (perf script, trace-cmd report, trace_pipe) is a
# third input format, told by its content: the profile rendered each way
# reads as the text stream with its user frames stripped of their objects
# (trace events carry addresses only), cookies, methods and ends included.
trace_formats() {
	local st
	python3 $D/trace_text.py strip <"$T/profile.txt" >"$T/strip.txt" || return 1
	$R -v "$T/strip.txt" >"$T/trs" || return 1
	for st in perf trace-cmd pipe; do
		python3 $D/trace_text.py $st <"$T/profile.txt" >"$T/tr.$st" || return 1
		$R -v --kallsyms "$T/profile.bin.ks" "$T/tr.$st" >"$T/tr.$st.out" || { echo "$st: exit $?"; return 1; }
		diff -u "$T/trs" "$T/tr.$st.out" || { echo "$st differs"; return 1; }
		$R --summary "$T/tr.$st" | grep -qx 'format: trace events' ||
			{ echo "$st: not read as trace events"; return 1; }
	done
	# Kernel addresses resolve with --kallsyms, as for binary records.
	$R --folded --kallsyms "$T/profile.bin.ks" "$T/tr.perf" |
		grep -q ';asm_sysvec_apic_timer_interrupt 5$' ||
		{ echo "kstack not symbolized"; return 1; }
	# Neither /dev/ustack stream is taken for trace events.
	$R --summary "$T/profile.txt" | grep -qx 'format: text' &&
		$R --summary "$T/profile.bin" | grep -qx 'format: binary'
}
run_test trace-formats trace_formats

# A comm with blanks and '-' in each tracer's prefix; tp and kprobe events.
cat >"$T/tce.s" <<'EOF'
sample cookie=0x0000000100000001 pid=300 tid=301 cpu=3 time=1000000 event=tp:sched:sched_process_exec comm=my\040prog-x
    kernel 0xffffffff81e00a1a asm_sysvec_apic_timer_interrupt+0x1a
user cookie=0x0000000100000001 pid=300 tid=301 frames=1 end=outermost
    user @prog:leaf+0x4 regs
sample cookie=0x0000000300000001 pid=300 tid=301 cpu=2 time=2000000 event=kprobe:vfs_write comm=my\040prog-x
    kernel 0xffffffff81e00a1a asm_sysvec_apic_timer_interrupt+0x1a
EOF
gen "$T/tce.s" "$T/tce.txt"
trace_comm_events() {
	local st
	for st in perf trace-cmd pipe; do
		python3 $D/trace_text.py $st <"$T/tce.txt" >"$T/tce.$st" || return 1
		$R "$T/tce.$st" >"$T/tce.out" || return 1
		grep -qx 'my prog-x 300/301 \[003\] 0.001000: 1 tp:sched:sched_process_exec:' "$T/tce.out" &&
		grep -qx 'my prog-x 300/301 \[002\] 0.002000: 1 kprobe:vfs_write:' "$T/tce.out" ||
			{ echo "$st:"; cat "$T/tce.out"; return 1; }
		[ "$($R --folded --event kprobe:vfs_write "$T/tce.$st" | wc -l)" = 1 ] ||
			{ echo "$st: --event kprobe:vfs_write"; return 1; }
	done
}
run_test trace-comm-events trace_comm_events

# ftrace names a task it has not seen switch since exec "<...>": the
# sample takes the name that the thread's other lines (its user_stack,
# printed at the return to user space) give it.
trace_unknown_comm() {
	cat >"$T/tuc.pipe" <<'EOF2'
           <...>-246     [000] ...1.    30.734402: sample: cookie=0x0000000300000001 pid=246 tid=246 event=syscall:write kstack={0xffffffff81a43dfe,0xffffffff81c00126}
     workload_sf-246     [000] .....    30.741524: user_stack: cookie=0x0000000300000001 pid=246 tid=246 end=outermost frames=2 ips={0x47b7a0,0x47b8a0} methods={0x1,0x1}
           <...>-247     [001] ...1.    30.734402: sample: cookie=0x0000000300000002 pid=247 tid=247 event=syscall:write kstack={0xffffffff81a43dfe}
EOF2
	$R --folded "$T/tuc.pipe" >"$T/tuc.out" || return 1
	grep -q '^workload_sf;' "$T/tuc.out" && grep -q '^<\.\.\.>;' "$T/tuc.out" ||
		{ cat "$T/tuc.out"; return 1; }
}
run_test trace-unknown-comm trace_unknown_comm

# tp and kprobe events in binary records: their names follow the frames.
binary_any_events() {
	genb "$T/tce.s" "$T/tce.bin" || return 1
	$R -v "$T/tce.txt" >"$T/tt" && $R -v --kallsyms "$T/tce.bin.ks" "$T/tce.bin" >"$T/tb" ||
		return 1
	grep -q 'kprobe:vfs_write' "$T/tb" || { echo "no kprobe:vfs_write"; cat "$T/tb"; return 1; }
	diff -u "$T/tt" "$T/tb"
}
run_test binary-tp-kprobe-events binary_any_events

# User frames of a process that is still running are named from its
# /proc/PID/maps: objects, file offsets, then functions.
trace_live_maps() {
	local pid bias i
	"$T/prog" wait </dev/null >/dev/null 2>&1 &
	pid=$!
	# prog is PIE: its first mapping (file offset 0) is its load bias.
	for i in 1 2 3 4 5 6 7 8 9 10; do
		bias=$(awk -v p="$T/prog" '$6 == p && $3 == "00000000" { print $1; exit }' /proc/$pid/maps 2>/dev/null)
		[ -n "$bias" ] && break
		sleep 0.1
	done
	[ -n "$bias" ] || { kill $pid; echo "no mapping of prog"; return 1; }
	bias=0x${bias%-*}
	sed "s/pid=100 /pid=$pid /" "$T/profile.s" >"$T/live.s"
	"${GEN[@]}" --base "prog=$bias" <"$T/live.s" | python3 $D/trace_text.py perf >"$T/live.tr" ||
		{ kill $pid; return 1; }
	$R --folded "$T/live.tr" >"$T/live.out"
	kill $pid; wait $pid 2>/dev/null
	grep -q "^prog;main;outer;middle;leaf;\[kernel.kallsyms\] 5$" "$T/live.out" ||
		{ cat "$T/live.out"; return 1; }
}
run_test trace-live-maps trace_live_maps

# ---- perf script: perf's own samples and callchains ------------------------
# perf-script.txt holds every header and frame form by hand: its folded
# stacks, summary, pprof and speedscope profiles.
PS=$D/perf-script.txt
cat >"$T/ps.expected" <<'EOF'
cxx;_start;__libc_start_main;main;(anonymous namespace)::fill;std::vector<int, std::allocator<int> >::push_back 1
kworker/0:1;[no user stack];worker_thread 1
my_worker_2;clone3;start_thread;lib_func;lib_inner;task_work_run;ustack_walk_user 1
prog;[incomplete: unknown];[unknown];leaf 1
prog;[incomplete: unknown];leaf 1
prog;_start;__libc_start_main;[libc.so.6];main;middle;leaf;asm_sysvec_apic_timer_interrupt 1
EOF
perf_script_forms() {
	local l
	$R --folded "$PS" >"$T/ps.out" || return 1
	diff -u "$T/ps.expected" "$T/ps.out" || return 1
	$R --summary "$PS" >"$T/ps.sum" || return 1
	for l in 'samples: 6' 'skipped records: 1' 'format: perf script' \
		 'complete user stacks: 3 (50.00%)'; do
		grep -qxF "$l" "$T/ps.sum" || { echo "summary lacks '$l'"; return 1; }
	done
	! grep -q 'names unknown' "$T/ps.sum" || { echo "perf's names flagged"; return 1; }
	# pid/tid, [cpu] and time of the header; the object's offset (dsoff)
	$R -v "$PS" >"$T/ps.v" || return 1
	grep -qx 'my worker 2 100/101 \[002\] 10.000200: 1 .*cpu-clock:' "$T/ps.v" ||
		{ echo "header: $(grep '^my' "$T/ps.v")"; return 1; }
	grep -qP '^\t +5555000020f0 main\+0x0 \(/opt/t/cxx\) .*offset=0x20f0$' "$T/ps.v" ||
		{ echo "dsoff"; return 1; }
	grep -qP '^\t +5555000020f0 \(anonymous namespace\)::fill\(int\)\+0x0 \(/opt/t/cxx\) ' \
		"$T/ps.v" || { echo "inlined frame's object"; return 1; }
	# pprof: the same stacks, per event (prog's: pprof keeps C++ names
	# whole, pprof_fold.py cuts a comm at its first blank)
	$R --pprof "$PS" >"$T/ps.pb.gz" && pprof_dump "$T/ps.pb.gz" >"$T/ps.pd" || return 1
	python3 $D/pprof_fold.py <"$T/ps.pd" | grep ' prog;' >"$T/ps.pf" || return 1
	diff -u <(folded_by_event "$PS" | grep ' prog;') "$T/ps.pf"
}
run_test perf-script-forms perf_script_forms

# speedscope's schema validates the profile of perf script's text, which
# holds --folded --event's stacks (prog's, as for pprof).
perf_script_speedscope() {
	speedscope_schema_fetch || return 1
	$R --speedscope "$PS" >"$T/ps.json" || return 1
	/usr/bin/python3 $D/speedscope_check.py "$SS_SCHEMA" "$T/ps.json" >"$T/ps.ss" || return 1
	diff -u <(folded_by_event "$PS" | grep ' prog;') <(grep ' prog;' "$T/ps.ss")
}
run_test perf-script-speedscope perf_script_speedscope

# A real recording: perf record --call-graph dwarf of prog (no frame
# pointers); perf script's text folds as FlameGraph's stackcollapse-perf.pl
# rules fold it (but for our marks of walks that did not reach _start), and
# nearly every sample of prog in outer() reaches main and _start.
perf_script_real() {
	LD_LIBRARY_PATH=$T perf record -q -o "$T/pr.data" -F 999 --call-graph dwarf,16384 \
		"$T/prog" spin 40000000 >/dev/null 2>"$T/pr.err" ||
		{ echo "perf record: $(tail -n 2 "$T/pr.err")"; return 1; }
	perf script -i "$T/pr.data" >"$T/pr.txt" 2>"$T/pr.err" || { cat "$T/pr.err"; return 1; }
	$R --folded "$T/pr.txt" >"$T/pr.f" || return 1
	sed -E 's/;\[(incomplete: [^]]*|no user stack)\]//' "$T/pr.f" | sort >"$T/pr.fu"
	python3 $D/collapse.py <"$T/pr.txt" 2>"$T/pr.cerr" | sort >"$T/pr.c" || return 1
	[ -s "$T/pr.cerr" ] && { head -n 2 "$T/pr.cerr"; return 1; }
	diff -u "$T/pr.c" "$T/pr.fu" || return 1
	# the samples in outer() and below, whose stacks perf walked from there
	awk '$1 ~ /^prog;.*(outer|middle|leaf|lib_func|lib_inner)(;|$)/ { t += $NF }
		$1 ~ /^prog;_start;.*;main;outer(;|$)/ { n += $NF }
		END { print n " of " t " samples in outer() reach main and _start"
		      exit !(t >= 100 && n * 100 >= t * 95) }' "$T/pr.f"
}
# perf may not be allowed to record here (a container, perf_event_paranoid)
if ! want perf-script-real; then
	:
elif perf record -q -o "$T/probe.data" -- true >/dev/null 2>&1; then
	run_test perf-script-real perf_script_real
else
	skip perf-script-real "perf cannot record here"
fi

# JIT code named from perf maps
. $D/perfmap.sh

exit 0
