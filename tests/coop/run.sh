#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/coop: the shim's cooperative unwinders on the host, without the
# module: USTACK_COOP_TEST_HZ=N makes the shim ask its unwinders N times a
# second of CPU time (SIGPROF) as a request would, and write the answers
# to standard error (tools/shim/interp.c).  The real requests are
# the VM tests' (tests/vm/coop-*.sh).
#   python3.X-order   coop_prog.py under Debian 12's python3.11 and the
#                     Pythons of other suites, unpacked by
#                     scripts/unpack-suite.sh (trixie's 3.13, sid's 3.14
#                     and 3.15): output unchanged, >= 99% of the answers
#                     with its frames in call order, every function seen,
#                     the reads plain loads (fast=1)
#   python-unknown    a Python of a version without a known layout is
#                     left alone, with one line saying so
#   python-reuse      code objects freed and reused: no frame named
#                     after the code object that was there before
#   python-no-syscall-reads  the answers read with no system call
#   python-faulthandler  faulthandler enabled after the shim: the guard
#                     goes in front of it again, and a real crash still
#                     gets one traceback of faulthandler's and kills
#   hostile           a torn frame chain (fakepy.c): short stacks, no crash
#   small-stack       a coroutine on a 12 KB stack (smallstack.c) answered
#                     1000 times a second: the answer's buffers are the
#                     thread's own mapping, not the interrupted stack
#   guard-chain       a SIGSEGV handler the program installs after the
#                     shim's gets the program's faults, before and after
#                     the shim puts its guard in front of it again (plain
#                     loads again), which then steps aside for good
#   guard-default     a fault with no handler of the program's still kills
#   java-inlined      the JVM agent under openjdk-17, CoopChain with c
#                     inlined by C2 into a loop with no safepoint: >= 90%
#                     of the answers name c above b, a and main (without
#                     DebugNonSafepoints, which the agent turns on, the
#                     nearest recorded scope is b's call of e)
# Run from the repository root: bash tests/coop/run.sh [NAME...]
set -u
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
. tests/select.sh coop "$@"
T=$ROOT/tools/shim
SHIM=$T/libsframe-register.so
C=$ROOT/tests/coop
W=$(mktemp -d /tmp/ustack-coop.XXXXXX)
on_exit 'rm -rf "$W"'

if ! make -s -C "$T" -j2 >"$W/build.log" 2>&1; then
	fail build "make -C tools/shim failed: $(tail -3 "$W/build.log" | tr '\n' ' ')"
	exit 0
fi
pass build

# shim_run HZ ERRFILE CMD...: CMD under the shim, asked HZ times a second.
shim_run() {
	local hz=$1 err=$2
	shift 2
	USTACK_COOP_TEST_HZ=$hz LD_PRELOAD=$SHIM "$@" 2>>"$err"
}

# --- the Pythons --------------------------------------------------------
# python_order NAME CMD...: coop_prog.py under CMD (40 rounds: some 400
# answers, at the timer resolution a 250 Hz tick gives; with 10, 3.14's
# fast rounds gave some 100, Tree.count in 3 to 8 of them, and none once
# in CI).
python_order() {
	local name=$1 out err res
	shift
	out=$W/$name.out err=$W/$name.err
	if ! "$@" "$ROOT/tests/vm/coop_prog.py" 40 >"$W/$name.plain" 2>"$W/$name.plain.err"; then
		fail "$name" "does not run: $(head -2 "$W/$name.plain.err" | tr '\n' ' ')"
		return
	fi
	if ! shim_run 1000 "$err" "$@" "$ROOT/tests/vm/coop_prog.py" 40 >"$out"; then
		fail "$name" "under the shim: exit $?: $(grep -av '^ \|^coop' "$err" | head -2)"
		return
	fi
	if ! cmp -s "$W/$name.plain" "$out"; then
		fail "$name" "output differs under the shim"
		return
	fi
	res=$(python3 "$C/order.py" "$err" coop_prog.py)
	set -- $(sed -n 's/^answers //p' <<<"$res")
	local judged=$3 good=$5 f
	if [ "${judged:-0}" -lt 50 ]; then
		fail "$name" "only ${judged:-0} answers with the program's frames: $(tail -1 <<<"$res")"
	elif [ $((good * 100)) -lt $((judged * 99)) ]; then
		fail "$name" "$good of $judged answers in call order: $(head -2 <<<"$res" | tr '\n' ' ')"
	elif grep -aq '^coop-test fast=0' "$err"; then
		fail "$name" "$(grep -ac '^coop-test fast=0' "$err") answers read with system calls"
	else
		for f in fib Tree.count squares worker digit_sum; do
			grep -q "^functions:.* $f\( \|$\)" <<<"$res" || {
				fail "$name" "no frame of $f: $(head -1 <<<"$res")"
				return
			}
		done
		pass "$name"
		echo "coop/$name: $good of $judged answers in call order"
	fi
}

if want python3.11-order; then
	if [ -x /usr/bin/python3.11 ]; then
		python_order python3.11-order /usr/bin/python3.11
	else
		fail python3.11-order "no /usr/bin/python3.11 (scripts/deps.sh demo)"
	fi
fi
for v in trixie:3.13 sid:3.14 sid:3.15; do
	suite=${v%%:*} v=${v#*:}
	want "python$v-order" || continue
	if ! r=$(bash "$ROOT/scripts/unpack-suite.sh" "$suite" "python$v" "python$v" 2>"$W/unpack.err"); then
		fail "python$v-order" "scripts/unpack-suite.sh $suite: $(tail -2 "$W/unpack.err" | tr '\n' ' ')"
		continue
	fi
	python_order "python$v-order" "$r/ld.sh" usr/bin/python$v
done

if want python-reuse; then
	if shim_run 1000 "$W/reuse.err" /usr/bin/python3.11 "$C/reuse.py" 20000 >"$W/reuse.out"; then
		res=$(python3 "$C/reuse-check.py" "$W/reuse.err")
		set -- $(tail -1 <<<"$res")
		if [ "$2" -lt 100 ]; then
			fail python-reuse "only $2 frames of generated functions"
		elif [ "$4" != 0 ]; then
			fail python-reuse "$(tr '\n' ' ' <<<"$res")"
		else
			pass python-reuse
			echo "coop/python-reuse: $2 frames, $(grep '^reused' "$W/reuse.out")"
		fi
	else
		fail python-reuse "exit $?"
	fi
fi

if want python-no-syscall-reads; then
	# strace counts the reads of the old way; the answers must come.
	if ! command -v strace >/dev/null; then
		fail python-no-syscall-reads "no strace (scripts/deps.sh check)"
	elif USTACK_COOP_TEST_HZ=1000 LD_PRELOAD=$SHIM strace -f -qq -o "$W/strace" \
		-e trace=process_vm_readv,openat /usr/bin/python3.11 "$C/reuse.py" 5000 \
		>/dev/null 2>"$W/ns.err"; then
		n=$(grep -c 'process_vm_readv\|/proc/self/mem' "$W/strace")
		a=$(grep -ac '^coop-test fast=1 frames=[1-9]' "$W/ns.err")
		if [ "$a" -lt 20 ]; then
			fail python-no-syscall-reads "only $a answers"
		elif [ "$n" != 0 ]; then
			fail python-no-syscall-reads "$n reads by system call for $a answers"
		else
			pass python-no-syscall-reads
		fi
	else
		fail python-no-syscall-reads "exit $?"
	fi
fi

if want python-faulthandler; then
	{ shim_run 1000 "$W/crash.err" /usr/bin/python3.11 "$C/crash.py" >/dev/null; } 2>/dev/null
	rc=$?
	n=$(grep -ac '^Fatal Python error: Segmentation fault' "$W/crash.err")
	if [ $rc != 139 ] || [ "$n" != 1 ]; then
		fail python-faulthandler "exit $rc, $n tracebacks of faulthandler (want 139, 1)"
	elif ! grep -a '^coop-test' "$W/crash.err" | cut -c11-16 | uniq | tr '\n' ' ' |
	     grep -q 'fast=0 fast=1 $'; then
		fail python-faulthandler "the guard did not go in front of faulthandler: $(grep -a '^coop-test' "$W/crash.err" | cut -c1-16 | uniq -c | tr '\n' ' ')"
	else
		pass python-faulthandler
	fi
fi

# --- fakepy: a Python the shim must survive --------------------------------
# --- the JVM agent --------------------------------------------------------
if want java-inlined; then
	J=/usr/lib/jvm/java-17-openjdk-amd64/bin
	if [ ! -x $J/javac ]; then
		fail java-inlined "no $J/javac (scripts/deps.sh check)"
	elif ! make -s -C "$ROOT/tools/jvm-agent" >"$W/jvm.log" 2>&1 ||
	     ! $J/javac -d "$W/jbin" "$ROOT/tests/vm/java/CoopChain.java" 2>>"$W/jvm.log"; then
		fail java-inlined "build: $(tail -2 "$W/jvm.log" | tr '\n' ' ')"
	elif ! LD_LIBRARY_PATH=$T shim_run 997 "$W/java.err" $J/java -Xmx48m \
		-XX:+UseSerialGC -XX:-UsePerfData -XX:+PreserveFramePointer \
		-XX:CompileCommand=quiet -XX:CompileCommand=dontinline,CoopChain::e \
		-agentpath:"$ROOT/tools/jvm-agent/libustack-jvm.so" -cp "$W/jbin" \
		CoopChain 200000 4000 >"$W/java.out"; then
		fail java-inlined "exit $?: $(grep -av '^ \|^coop' "$W/java.err" | head -2)"
	else
		# Answers with the chain main, a, b (innermost first: b a main
		# at the end); "whole" when c is above them.
		set -- $(awk '/^coop-test/ { if (s != "") judge(); s = ""; next }
			/^    interp CoopChain\./ { s = s " " $2 }
			function judge() {
				if (s ~ / CoopChain\.b CoopChain\.a CoopChain\.main$/) {
					n++
					whole += s ~ /^ CoopChain\.c /
				}
			}
			END { if (s != "") judge(); print n + 0, whole + 0 }' "$W/java.err")
		if [ "$1" -lt 50 ]; then
			fail java-inlined "only $1 answers with the chain"
		elif [ $(($2 * 100)) -lt $(($1 * 90)) ]; then
			fail java-inlined "$2 of $1 answers name c above b, a and main"
		else
			pass java-inlined
			echo "coop/java-inlined: $2 of $1 answers name c above b, a and main"
		fi
	fi
fi

if want small-stack; then
	if ! gcc -O2 -g -Wall -Wextra -o "$W/smallstack" "$C/smallstack.c" -ldl 2>"$W/cc.err"; then
		fail small-stack "build: $(head -3 "$W/cc.err" | tr '\n' ' ')"
	else
		out=$(shim_run 1000 "$W/small.err" "$W/smallstack" 1)
		rc=$?
		a=$(grep -ac '^coop-test fast=[01] frames=1$' "$W/small.err")
		if [ $rc != 0 ] || [ "$out" != "answers: ok" ]; then
			fail small-stack "exit $rc: $out"
		elif [ "$a" -lt 50 ]; then
			fail small-stack "only $a answers on the coroutine's stack"
		else
			pass small-stack
			echo "coop/small-stack: $a answers on a 12 KB stack"
		fi
	fi
fi

want python-unknown hostile guard-chain guard-default || exit 0
if ! gcc -O2 -g -Wall -Wno-array-bounds -rdynamic -pthread -o "$W/fakepy" "$C/fakepy.c" 2>"$W/cc.err" ||
   ! gcc -O2 -g -Wall -Wno-array-bounds -rdynamic -pthread -DFAKE_VERSION=0x031000f0 \
	-o "$W/fakepy316" "$C/fakepy.c" 2>>"$W/cc.err"; then
	fail fakepy-build "$(head -3 "$W/cc.err")"
	exit 0
fi

if want python-unknown; then
	out=$(shim_run 1000 "$W/unknown.err" "$W/fakepy316" hostile 0.3)
	n=$(grep -ac 'python 3.16.0: no frame layout known' "$W/unknown.err")
	if [ "$out" != "answers: ok" ]; then
		fail python-unknown "$out"
	elif [ "$n" != 1 ] || [ "$(wc -l <"$W/unknown.err")" != 1 ]; then
		fail python-unknown "not one line: $(head -3 "$W/unknown.err" | tr '\n' ' ')"
	else
		pass python-unknown
		echo "coop/python-unknown: $(cat "$W/unknown.err")"
	fi
fi

if want hostile; then
	out=$(shim_run 2000 "$W/hostile.err" "$W/fakepy" hostile 3)
	rc=$?
	a=$(grep -ac '^coop-test fast=1 frames=' "$W/hostile.err")
	full=$(grep -ac '^coop-test fast=1 frames=48$' "$W/hostile.err")
	if [ $rc != 0 ] || [ "$out" != "answers: ok" ]; then
		fail hostile "exit $rc: $out"
	elif [ "$a" -lt 100 ] || [ "$full" = 0 ] || [ "$full" = "$a" ]; then
		fail hostile "$a answers, $full of them whole: the chain was not torn, or never whole"
	else
		pass hostile
		echo "coop/hostile: $a answers, $full of the whole chain"
	fi
fi

if want guard-chain; then
	out=$(shim_run 2000 "$W/chain.err" "$W/fakepy" chain 2)
	rc=$?
	if [ $rc != 0 ] || [ "$(tr '\n' ' ' <<<"$out")" != "own handler before: ran own handler after: ran answers: ok " ]; then
		fail guard-chain "exit $rc: $(tr '\n' ' ' <<<"$out")"
	elif ! grep -a '^coop-test' "$W/chain.err" | cut -c11-16 | uniq | tr '\n' ' ' |
	     grep -q '^fast=1 fast=0 fast=1 '; then
		fail guard-chain "the guard was not replaced, or not put back: $(grep -a '^coop-test' "$W/chain.err" | cut -c1-16 | uniq -c | tr '\n' ' ')"
	else
		pass guard-chain
	fi
fi

if want guard-default; then
	{ shim_run 1000 "$W/default.err" "$W/fakepy" default >/dev/null; } 2>/dev/null
	rc=$?
	if [ $rc = 139 ]; then
		pass guard-default
	else
		fail guard-default "exit $rc, not killed by SIGSEGV"
	fi
fi
exit 0
