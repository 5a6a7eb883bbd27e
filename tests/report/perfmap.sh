# tests/report: JIT code named from perf maps (tools/ustack-report/
# perfmap.c), a JVM's answers placed, a split Python evaluator found.
# Sourced by run.sh (t, R, T, D, GEN).  A stand-in process (sleep) with
# /tmp/perf-PID.map, and a stream whose user records of that PID have
# frames in anonymous memory:
#   perfmap-live-save     --duration reads the map through /proc/PID/root
#                         while the process runs and names the frames,
#                         innermost the last entry written; --save keeps
#                         the map, after the device's bytes unchanged, so a
#                         report after the process and its map are gone
#                         still names them; text recordings the same
#   perfmap-hostile       maps that are overlapping, unsorted, with odd
#                         bytes, very long lines, bad numbers, no newline,
#                         1.1 million entries, 70 MB, a FIFO, a symlink, a
#                         directory, another user's file: no crash, no
#                         hang, valid entries still name frames, names
#                         escaped, refused files name nothing
#   interp-java-answers   lang=java answers take the place of the frames
#                         in anonymous memory
#   interp-split-evaluator  a stripped Python's evaluator split by GCC:
#                         its unnamed part found, named and replaced

# perfmap_stream PID OUT: a binary stream of 3 samples of PID whose user
# stacks run through JIT code at 0x7f0000001000.. (entries of the map).
perfmap_stream() {
	cat >"$T/pm.s" <<-EOF
	sample cookie=0x1 pid=$1 tid=$1 cpu=0 time=1000 event=cpu-clock comm=node
	    kernel 0xffffffff81000010 do_tick+0x10
	user cookie=0x1 pid=$1 tid=$1 frames=4 end=outermost
	    user 0x7f0000001010 regs [anon]+0x7f0000001010
	    user 0x7f0000002020 fp [anon]+0x7f0000002020
	    user 0x7f0000003030 fp [anon]+0x7f0000003030
	    user @prog:main+0x4 fp
	sample cookie=0x2 pid=$1 tid=$1 cpu=0 time=2000 event=cpu-clock comm=node
	    kernel 0xffffffff81000010 do_tick+0x10
	user cookie=0x2 pid=$1 tid=$1 frames=3 end=outermost
	    user 0x7f0000004008 regs [anon]+0x7f0000004008
	    user 0x7f0000003030 fp [anon]+0x7f0000003030
	    user @prog:main+0x4 fp
	sample cookie=0x3 pid=$1 tid=$1 cpu=0 time=3000 event=cpu-clock comm=node
	    kernel 0xffffffff81000010 do_tick+0x10
	user cookie=0x3 pid=$1 tid=$1 frames=2 end=outermost
	    user 0x7f0000009000 regs [anon]+0x7f0000009000
	    user @prog:main+0x4 fp
	EOF
	"${GEN[@]}" --binary --kallsyms "$2.ks" <"$T/pm.s" >"$2"
}

# The map: leaf over an older entry at the same place (the later wins),
# in no order; 0x7f0000009000 is in no entry.
perfmap_good() {
	printf '%s\n' \
		"7f0000003000 100 LazyCompile:*outer /tmp/app.js:1" \
		"7f0000001000 100 LazyCompile:~stale /tmp/app.js:9" \
		"7f0000002000 80 LazyCompile:*middle /tmp/app.js:5" \
		"7f0000004000 40 Builtin:Other" \
		"7f0000001000 100 LazyCompile:*leaf /tmp/app.js:7"
}

perfmap_live_save() {
	local pid
	sleep 60 &
	pid=$!
	perfmap_good >/tmp/perf-$pid.map
	perfmap_stream $pid "$T/pm.bin" || { kill $pid; return 1; }
	$R --folded --duration 0.3 --device "$T/pm.bin" --kallsyms "$T/pm.bin.ks" \
		--save "$T/pm.saved" >"$T/pm.live" 2>"$T/pm.err"
	kill $pid
	wait $pid 2>/dev/null
	rm -f /tmp/perf-$pid.map
	local want="node;main;LazyCompile:\*outer /tmp/app.js:1;LazyCompile:\*middle /tmp/app.js:5;LazyCompile:\*leaf /tmp/app.js:7;"
	grep -q "^$want" "$T/pm.live" || { echo "live:"; cat "$T/pm.live" "$T/pm.err"; return 1; }
	grep -q '^node;main;LazyCompile:\*outer /tmp/app.js:1;Builtin:Other;' "$T/pm.live" ||
		{ echo "live, builtin:"; cat "$T/pm.live"; return 1; }
	grep -q '^node;main;\[anon\];' "$T/pm.live" || { echo "live, unnamed:"; cat "$T/pm.live"; return 1; }
	# the device's bytes first, unchanged; the map after them
	cmp -n "$(stat -c %s "$T/pm.bin")" "$T/pm.bin" "$T/pm.saved" || return 1
	[ "$(stat -c %s "$T/pm.saved")" -gt "$(stat -c %s "$T/pm.bin")" ] || { echo "no map saved"; return 1; }
	$R --folded --kallsyms "$T/pm.bin.ks" "$T/pm.saved" >"$T/pm.after" || return 1
	diff -u "$T/pm.live" "$T/pm.after" || return 1
	# without the saved map: the frames stay unnamed
	$R --folded --kallsyms "$T/pm.bin.ks" "$T/pm.bin" | grep -q 'LazyCompile' &&
		{ echo "named without a map"; return 1; }
	# a text recording with the map as a text record
	"${GEN[@]}" <"$T/pm.s" >"$T/pm.txt" || return 1
	printf '%s\n' "perfmap pid=$pid entries=2" \
		'    jit 7f0000001000 100 LazyCompile:*leaf\040/tmp/app.js:7' \
		'    jit 7f0000003000 100 outer\001x' >>"$T/pm.txt"
	$R --folded "$T/pm.txt" >"$T/pm.tout" || return 1
	grep -q '^node;main;outer\\001x;\[anon\];LazyCompile:\*leaf /tmp/app.js:7;' "$T/pm.tout" ||
		{ echo "text:"; cat "$T/pm.tout"; return 1; }
}
run_test perfmap-live-save perfmap_live_save

# One hostile map: ustack-report must finish quickly; $2: a regex the
# folded output must match ("" for none), $3 one it must not.
perfmap_try() {
	local name=$1 want=$2 nowant=$3 rc
	timeout 60 $R --folded --duration 0.2 --device "$T/pm.bin" --kallsyms "$T/pm.bin.ks" \
		--save "$T/pmh.saved" >"$T/pmh.out" 2>"$T/pmh.err"
	rc=$?
	[ $rc = 0 ] || { echo "$name: exit $rc: $(head -3 "$T/pmh.err")"; return 1; }
	if [ -n "$want" ] && ! grep -q -- "$want" "$T/pmh.out"; then
		echo "$name: no '$want':"; head -5 "$T/pmh.out"; return 1
	fi
	if [ -n "$nowant" ] && grep -q -- "$nowant" "$T/pmh.out"; then
		echo "$name: '$nowant':"; head -5 "$T/pmh.out"; return 1
	fi
	# no raw control or invalid bytes in names
	if LC_ALL=C grep -q "$(printf '[\001-\010\016-\037\177]')" "$T/pmh.out"; then
		echo "$name: raw control bytes in the output"; return 1
	fi
	$R --folded --kallsyms "$T/pm.bin.ks" "$T/pmh.saved" >"$T/pmh.again" 2>/dev/null ||
		{ echo "$name: the saved recording: exit $?"; return 1; }
	diff -q "$T/pmh.out" "$T/pmh.again" >/dev/null || { echo "$name: saved differs"; return 1; }
}

perfmap_hostile() {
	local pid rc
	sleep 120 &
	pid=$!
	perfmap_hostile_maps $pid
	rc=$?
	kill $pid
	wait $pid 2>/dev/null
	rm -rf "/tmp/perf-$pid.map" "$T/pmh.saved" "$T/pmh.out" "$T/pmh.again"
	return $rc
}

perfmap_hostile_maps() {
	local pid=$1 m=/tmp/perf-$1.map
	perfmap_stream $pid "$T/pm.bin" || return 1
	{
		# odd bytes, bad numbers, no newline at the end
		python3 - "$m" <<-'EOF'
		import sys
		with open(sys.argv[1], "wb") as f:
		    f.write(b"zzzz 10 bad start\n7f0000002000 -5 negative\n")
		    f.write(b"7f0000002000 ffffffffffffffff wraps\n0 0 empty\n")
		    f.write(b"7f0000002000 0x80 \x01ctl\x7f\xff\xfeinvalid\\back\r\n")
		    f.write(b"7f0000001000 100 " + b"L" * 100000 + b"\n")
		    f.write(b"1234567890123456789 10 too long a number\n\n\n")
		    f.write(b"7f0000003000 100 nul\x00inside\n")
		    f.write(b"7f0000004000 40 no newline at the end")
		EOF
		perfmap_try odd-bytes 'ctl\\177\\377\\376invalid\\134back;LLLLLLLL' '' || return 1
		# overlapping and unsorted: 300000 entries over the same pages (code
		# freed and reused), the last one written at a place wins
		python3 - "$m" <<-'EOF'
		import sys
		with open(sys.argv[1], "w") as f:
		    for i in range(300000):
		        a = 0x7f0000001000 + (i * 7919 % 64) * 16
		        f.write("%x %x e%d\n" % (a, 0x4000 - (a - 0x7f0000001000), i))
		    f.write("7f0000001010 10 last\n")
		EOF
		perfmap_try overlapping ';last;' '' || return 1
		# 1.1 million entries: the first 1048576 kept
		python3 - "$m" <<-'EOF'
		import sys
		with open(sys.argv[1], "w") as f:
		    for i in range(1100000):
		        f.write("%x 1 f%d\n" % (0x600000000000 + i, i))
		    f.write("7f0000001000 100 beyond\n")
		EOF
		perfmap_try many-entries '' 'beyond' || return 1
		# 70 MB: read up to 64 MiB, the entry after that unread
		{ perfmap_good; head -c $((70 << 20)) /dev/zero | tr '\0' 'x'; echo;
		  echo "7f0000009000 10 past-the-cap"; } >"$m"
		perfmap_try huge 'leaf' 'past-the-cap' || return 1
		# not regular files, or not the process owner's: nothing read
		rm -f "$m"; mkfifo "$m"
		perfmap_try fifo '' 'LazyCompile' || return 1
		rm -f "$m"; perfmap_good >"$T/elsewhere.map"; ln -s "$T/elsewhere.map" "$m"
		perfmap_try symlink '' 'LazyCompile' || return 1
		rm -f "$m"; mkdir "$m"
		perfmap_try directory '' 'LazyCompile' || return 1
		rmdir "$m"; perfmap_good >"$m"; chown nobody "$m"
		perfmap_try other-owner '' 'LazyCompile' || return 1
	}
}
run_test perfmap-hostile perfmap_hostile

# A JVM's answers (lang=java, from the agent: no entry marks) take the
# place of its frames in anonymous memory (interpreter and JIT code),
# between the JVM's native frames, whatever a perf map says of them.
java_answers() {
	cat >"$T/java.s" <<-'EOF2'
	sample cookie=0x1 pid=77 tid=78 cpu=0 time=1000 event=cpu-clock comm=java
	    kernel 0xffffffff81000010 do_tick+0x10
	user cookie=0x1 pid=77 tid=78 frames=6 end=outermost
	    user 0x7f0000001010 regs [anon]+0x7f0000001010
	    user 0x7f0000002020 fp [anon]+0x7f0000002020
	    user 0x7f0000003030 fp [anon]+0x7f0000003030
	    user @prog:leaf+0x1 sframe
	    user @prog:middle+0x1 sframe
	    user @prog:main+0x4 sframe
	interp cookie=0x1 pid=77 tid=78 frames=4 lang=java
	    interp Chain.c Chain.java:4
	    interp Chain.b Chain.java:10
	    interp Chain.a Chain.java:14
	    interp Chain.main Chain.java:21
	EOF2
	"${GEN[@]}" <"$T/java.s" >"$T/java.txt" || return 1
	$R --folded "$T/java.txt" >"$T/java.out" || return 1
	grep -q '^java;main;middle;leaf;Chain.main (Chain.java);Chain.a (Chain.java);Chain.b (Chain.java);Chain.c (Chain.java);do_tick 1$' \
		"$T/java.out" || { cat "$T/java.out"; return 1; }
}
run_test interp-java-answers java_answers

# A Python whose evaluator GCC split in two (hot/cold partitioning) and
# whose symbol table is stripped (Debian's 3.14, 3.15): the part no
# dynamic symbol names is found by its FDE, which follows the
# evaluator's in .eh_frame, named _PyEval_EvalFrameDefault.cold, and the
# answer takes its place.
split_evaluator() {
	cat >"$T/split.c" <<-'EOF2'
	#include <stdio.h>
	__attribute__((noinline)) int native_leaf(int x) { return x * 3 + 1; }
	__attribute__((noinline, cold)) void complain(int x) { fprintf(stderr, "bad %d\n", x); }
	__attribute__((noinline)) int _PyEval_EvalFrameDefault(int x)
	{
		if (__builtin_expect(x > 100, 0)) {
			complain(x);
			x = native_leaf(x) + native_leaf(x + 1);
			complain(x);
		}
		return native_leaf(x) + 1;
	}
	int main(int argc, char **argv) { (void)argv; return _PyEval_EvalFrameDefault(argc) + 2; }
	EOF2
	gcc -O2 -g -rdynamic -o "$T/split" "$T/split.c" && strip -o "$T/split.stripped" "$T/split" ||
		return 1
	nm "$T/split" | grep -q ' _PyEval_EvalFrameDefault\.cold$' || { echo "gcc split nothing"; return 1; }
	cat >"$T/split.s" <<-'EOF2'
	sample cookie=0x1 pid=9 tid=9 cpu=0 time=10 event=cpu-clock comm=python3
	    kernel 0xffffffff81000010 tick+0x10
	user cookie=0x1 pid=9 tid=9 frames=3 end=outermost
	    user @sp:native_leaf+0x1 regs
	    user @sp:_PyEval_EvalFrameDefault.cold+0x10 sframe
	    user @sp:main+0x4 sframe
	interp cookie=0x1 pid=9 tid=9 frames=2 lang=python3.14
	    interp handler /srv/app.py:3
	    interp <module> /srv/app.py:9 entry
	EOF2
	python3 $D/gen.py --obj "sp=$T/split.stripped=$T/split" <"$T/split.s" >"$T/split.txt" || return 1
	$R -v "$T/split.txt" | grep -q '_PyEval_EvalFrameDefault.cold' && { echo "not replaced"; $R -v "$T/split.txt"; return 1; }
	$R --folded "$T/split.txt" >"$T/split.out" || return 1
	grep -qx 'python3;main;<module> (/srv/app.py);handler (/srv/app.py);native_leaf;tick 1' "$T/split.out" ||
		{ cat "$T/split.out"; return 1; }
	# without the answer, the frame is named
	grep -v interp "$T/split.txt" | $R --folded - | grep -q ';_PyEval_EvalFrameDefault.cold;' ||
		{ echo "split part not named"; grep -v interp "$T/split.txt" | $R --folded -; return 1; }
}
run_test interp-split-evaluator split_evaluator

# --summary's unanswered samples: only those in the interpreter's own code
# (an evaluator frame) with no answer; a sample of its start-up or exit
# (no evaluator frame: nothing to answer with) is not one.
summary_unanswered() {
	cat >"$T/su.s" <<-'EOF2'
	sample cookie=0x1 pid=9 tid=9 cpu=0 time=10 event=cpu-clock comm=python3
	    kernel 0xffffffff81000010 tick+0x10
	user cookie=0x1 pid=9 tid=9 frames=2 end=outermost
	    user @py:_PyEval_EvalFrameDefault+0x1 regs
	    user @py:main+0x1 sframe
	interp cookie=0x1 pid=9 tid=9 frames=1 lang=python3.11
	    interp handler /srv/app.py:12 entry
	sample cookie=0x2 pid=9 tid=9 cpu=0 time=20 event=cpu-clock comm=python3
	    kernel 0xffffffff81000010 tick+0x10
	user cookie=0x2 pid=9 tid=9 frames=2 end=outermost
	    user @py:_PyEval_EvalFrameDefault+0x1 regs
	    user @py:main+0x1 sframe
	sample cookie=0x3 pid=9 tid=9 cpu=0 time=30 event=cpu-clock comm=python3
	    kernel 0xffffffff81000010 tick+0x10
	user cookie=0x3 pid=9 tid=9 frames=2 end=outermost
	    user @py:native_leaf+0x1 regs
	    user @py:main+0x1 sframe
	EOF2
	python3 $D/gen.py --obj "py=$T/py" <"$T/su.s" >"$T/su.txt" || return 1
	$R --summary "$T/su.txt" | grep -qx 'interpreter frames: 1 samples, 1 unanswered in its code (native frames only)' ||
		{ $R --summary "$T/su.txt" | grep interpreter; return 1; }
}
run_test interp-summary-unanswered summary_unanswered
