# Complete from the first sample through perf (issue 50): sid's perf
# records, with --call-graph fp,defer and kernel_unwinder=1, a program
# ustackd has never seen (a fresh copy of bin/first_prog and its
# libfirst.so with new build-ids, C++ without frame pointers), started
# after ustackd is ready and its pass over the system is done: first by
# `perf record ./prog` (perf starting it), then by `perf record -a`
# (system-wide, around a sleep) while another fresh copy runs.  Each
# time >= 99% of the program's callchains are whole, ending at _start
# (those of main's 0.7 s of CPU reach main on the way; the loader's and
# exit's few end at _start without it), ticks inside a deferred walk
# itself counted apart (at most 5%), as in perf-defer.  Before a walk
# waited for an object's first coverage: 7% of callchains reached main.
# kernels: sid
# perf: sid
# timeout: 600
. ./lib.sh
PERF=perf-sid
[ -x /usr/sbin/ustackd ] || fail "ustackd not built"
command -v $PERF >/dev/null || fail "no perf of sid in the guest"
$PERF --version || fail "sid's perf does not run"
ustack_unload
rm -rf /var/cache/ustack
ustack_load kernel_unwinder=1
[ "$(cat /sys/module/ustack/parameters/kernel_unwinder)" = 1 ] || fail "kernel_unwinder is not 1"
: >/tmp/fsp-ud.log
ustackd -v 2>/tmp/fsp-ud.log & UD=$!
trap 'kill $UD 2>/dev/null' EXIT
wait_ready /tmp/fsp-ud.log
wait_system_pass /tmp/fsp-ud.log

# share DATA: "complete main own loader total" of first_prog's samples:
# complete, the outermost frame is _start; main, main is on the way there;
# own, the tick came while the task ran a deferred walk itself (perf-defer's
# share); loader, before the program's own code: in execve (bprm_execve:
# the one user frame is the loader's entry point) or in the loader's
# start-up, whose outermost frame is ld.so's _start, which has no symbol
# in Debian's ld.so (perf shows [unknown]): not counted against it, at
# most 10%.  (A walk stopped by an object it met first stops in that
# object, the program or its library: ld.so is the system pass's.)
share() {
	$PERF script --no-inline -i "$1" 2>/tmp/perf.err >/tmp/fsp.txt || fail "perf script: $(cat /tmp/perf.err)"
	awk '
		/^[^ \t]/ { flush(); comm = $1; next }
		/^[ \t]/ {
			s = $2; sub(/\+0x[0-9a-f]*$/, "", s); last = s; dso = $NF
			if (s == "main") m = 1
			if (s ~ /^(process_unwind_deferred|unwind_deferred_task_work|ustack_)/) o = 1
			if (s == "bprm_execve") x = 1
			next
		}
		{ flush() }
		function flush() {
			if (comm == "first_prog") {
				tot++
				if (last == "_start") { ok++; mm += m } else if (o) own++
				else if (x || dso ~ /\/ld-linux[^\/]*\)$/) ex++
			}
			comm = ""; m = 0; o = 0; x = 0; last = ""; dso = ""
		}
		END { flush(); print ok + 0, mm + 0, own + 0, ex + 0, tot + 0 }' /tmp/fsp.txt
}
# check WHAT DATA
check() {
	set -- "$1" "$2" $(share "$2")
	echo "$1: $3 of $7 callchains whole (to _start), $4 of them through main; $5 taken inside a deferred walk, $6 in execve or the loader's start-up"
	[ "$7" -ge 200 ] || fail "$1: only $7 samples"
	[ $(($5 * 100)) -le $(($7 * 5)) ] || fail "$1: $5 of $7 samples inside the walks (> 5%)"
	[ $(($6 * 100)) -le $(($7 * 10)) ] || fail "$1: $6 of $7 samples in execve or the loader (> 10%)"
	[ $(($4 * 100)) -ge $(($7 * 80)) ] || fail "$1: only $4 of $7 callchains through main: not main's loop"
	[ $(($3 * 100)) -ge $((($7 - $5 - $6) * 99)) ] && return 0
	grep -E '^ *(store_miss|kernel_unwinder)' /sys/kernel/debug/ustack/stats
	# the incomplete ones: their outermost frame (symbol, object)
	awk '
		/^[^ \t]/ { flush(); comm = $1; next }
		/^[ \t]/ { last = $2 " " $NF; sub(/\+0x[0-9a-f]* /, " ", last); if ($2 ~ /^(process_unwind_deferred|unwind_deferred_task_work|ustack_|bprm_execve)/) o = 1; next }
		{ flush() }
		function flush() {
			if (comm == "first_prog" && last !~ /^_start / && last !~ /\/ld-linux[^\/]*\)$/ && !o) n[last]++
			comm = ""; o = 0; last = ""
		}
		END { flush(); for (k in n) print "  " n[k] " callchains end at " k }' /tmp/fsp.txt | sort -rn -k1 | head -n 12
	awk '/^first_prog/ { p = 1; c = $0; s = ""; next } p && /^[ \t]/ { s = s "\n" $0; next }
		p && !/^[ \t]/ { if (s !~ /_start/) { print c s; if (++n == 3) exit } p = 0 }' /tmp/fsp.txt
	grep -E "first_prog|libfirst" /tmp/fsp-ud.log | tail -n 8
	echo "FAIL: $1: $3 of $(($7 - $5 - $6)) callchains whole from the first sample (< 99%)"
	FAILED="$FAILED; $1: $3 of $(($7 - $5 - $6)) whole"
}
FAILED=

# perf starting the program: a user's `perf record ./prog`.
d=/tmp/first.$$.p
first_fresh $d "$$-p-$(cut -d' ' -f1 /proc/uptime)"
$PERF record -q -N -F 999 -e cpu-clock --call-graph fp,defer -o /tmp/fsp1.data \
	$d/first_prog 0.7 >/dev/null 2>/tmp/perf1.err || fail "perf record: $(cat /tmp/perf1.err)"
grep -q "$d/first_prog: generated" /tmp/fsp-ud.log || fail "ustackd did not generate $d/first_prog's entry: $(grep first_prog /tmp/fsp-ud.log)"
check "perf record ./first_prog" /tmp/fsp1.data

# System-wide: perf records everything; the program starts while it does.
d=/tmp/first.$$.a
first_fresh $d "$$-a-$(cut -d' ' -f1 /proc/uptime)"
$PERF record -a -q -N -F 999 -e cpu-clock --call-graph fp,defer -o /tmp/fsp2.data \
	-- sleep 120 2>/tmp/perf2.err & PR=$!
# perf starts its workload once its events are on
i=0
until [ -n "$(for p in /proc/[0-9]*; do
	[ "$(cat $p/comm 2>/dev/null)" = sleep ] && [ "$(cut -d' ' -f4 $p/stat 2>/dev/null)" = $PR ] && echo $p
	done)" ]; do
	kill -0 $PR 2>/dev/null || fail "perf record -a: $(cat /tmp/perf2.err)"
	i=$((i + 1)); [ $i -lt 600 ] || fail "perf record -a did not start in 60 s"
	sleep 0.1
done
sleep 0.5
$d/first_prog 0.7 >/dev/null || fail "first_prog"
sleep 0.5
kill -INT $PR
wait $PR
[ -s /tmp/fsp2.data ] || fail "perf record -a: $(cat /tmp/perf2.err)"
check "perf record -a, first_prog run meanwhile" /tmp/fsp2.data
kill $UD; wait $UD 2>/dev/null
UD=
ustack_unload
[ -z "$FAILED" ] || fail "${FAILED#; } (< 99%)"
echo "first-sample-perf: ok"
