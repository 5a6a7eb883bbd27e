# The trace events ustack:sample and ustack:user_stack.  Enabled with no
# /dev/ustack reader, they start the sources: a program's traced write()
# calls come through trace_pipe as samples and user stacks of the same
# cookies, complete (end=outermost).  With a /dev/ustack reader too, each
# user_stack event holds the very frames of the user record of its cookie.
# Disabling them stops the sources; ustack-report reads trace_pipe's text.
# Debian's perf records both events and ustack-report joins what perf
# script prints.
# kernels: debug
# perf: yes
. ./lib.sh
T=/sys/kernel/tracing
S=/sys/kernel/debug/ustack/stats
ustack_load sample_hz=0 syscalls=write
for e in sample user_stack; do
	[ -f $T/events/ustack/$e/format ] || fail "no event ustack:$e"
done
cat $T/events/ustack/user_stack/format
grep -q '^sources_on 0' $S || fail "sources on before any reader"

# sources_wait 0|1: the enable's work item has run
sources_wait() {
	i=0
	until grep -q "^sources_on $1" $S; do
		i=$((i + 1)); [ $i -lt 200 ] || fail "sources_on never became $1"
		sleep 0.05
	done
}

# Only the program's writes are traced, and between its runs those of an
# idle task: with every pid traced, the trace_pipe reader's own writes
# make events it reads and writes again, a loop that has kept a loaded
# guest's CPU busy for minutes.
sleep 100000 &
idle=$!
param_set pid $idle

# workload N: N writes of the program, only it traced
workload() {
	rm -f /tmp/go; mkfifo /tmp/go
	WAIT_STDIN=1 sframe-register run ./bin/workload_sf write "$1" </tmp/go &
	w=$!
	param_set pid $w
	echo >/tmp/go
	wait $w || fail "workload"
	param_set pid $idle
}

echo >$T/trace
cat $T/trace_pipe >/tmp/tp &
tp=$!
echo 1 >$T/events/ustack/enable || fail "enable"
sources_wait 1
[ -e /proc/$tp ] || fail "trace_pipe reader"
workload 100
sleep 1
echo 0 >$T/events/ustack/enable
sources_wait 0
sleep 0.5
kill $tp; wait $tp 2>/dev/null
grep -m2 -E 'ustack|sample: |user_stack: ' /tmp/tp
# Every sample of the program's pid has a nonzero cookie and one
# user_stack of the same cookie; its 100 writes end outermost with at
# least main > run_write > write_one > write (the shell it was forked as,
# same pid, may write once before its exec, with the shell's stack).
awk -v w=$w -f trace-join.awk /tmp/tp || fail "trace_pipe events"
echo "trace_pipe: $(grep -c ' sample: ' /tmp/tp) samples, $(grep -c ' user_stack: ' /tmp/tp) user stacks"
grep ' user_stack: ' /tmp/tp | grep -v " pid=$w " | head -3
ustack-report --summary /tmp/tp | sed -n '1,8p'
# Counted, not named: ftrace names a task by its cmdline cache, filled at
# context switches, so the program's lines may say "<...>", or "sh" from
# before its exec (seen on the debug kernel).
ustack-report --summary /tmp/tp | grep -q '^complete user stacks: [1-9][0-9][0-9]' &&
	ustack-report --folded --event syscall:write /tmp/tp |
	awk '{ n += $NF } END { exit n < 100 }' ||
	fail "ustack-report does not read trace_pipe"

# Both consumers at once: the same cookies, the same frames.
echo >$T/trace
cat $T/trace_pipe >/tmp/tp2 &
tp=$!
echo 1 >$T/events/ustack/user_stack/enable
sources_wait 1
record_start /tmp/rec
workload 50
record_stop
echo 0 >$T/events/ustack/user_stack/enable
sources_wait 0
sleep 0.5
kill $tp; wait $tp 2>/dev/null
awk '
	FNR == NR && / user_stack: / {
		match($0, /cookie=0x[0-9a-f]+/); c = substr($0, RSTART + 7, RLENGTH - 7)
		match($0, /ips=\{[^}]*\}/); t[c] = substr($0, RSTART + 5, RLENGTH - 6); next }
	FNR == 1 { c = "" }
	/^user / { c = substr($2, 8); ips[c] = ""; next }
	/^[a-z]/ { c = "" }
	c != "" && $1 == "user" { ips[c] = ips[c] (ips[c] == "" ? "" : ",") $2 }
	END {
		for (c in ips) if (c in t) { n++; if (t[c] != ips[c]) { bad++; if (bad < 3) print c ": " t[c] " != " ips[c] } }
		print n + 0 " cookies in both, " bad + 0 " differ"
		exit n < 50 || bad }' /tmp/tp2 /tmp/rec || fail "trace events and /dev/ustack disagree"

# perf record: the events start the sources while perf holds them.
command -v perf >/dev/null || fail "no perf in the guest"
rm -f /tmp/go; mkfifo /tmp/go
WAIT_STDIN=1 sframe-register run ./bin/workload_sf write 100 </tmp/go &
w=$!
param_set pid $w
perf record -q -a -o /tmp/perf.data -e ustack:sample -e ustack:user_stack -- sh -c 'sleep 1; echo >/tmp/go; while [ -e /proc/'$w' ]; do sleep 0.2; done; sleep 0.5' ||
	fail "perf record"
wait $w
param_set pid $idle
sources_wait 0
perf script -i /tmp/perf.data >/tmp/ps.txt 2>/tmp/ps.err || { cat /tmp/ps.err; fail "perf script"; }
grep -m2 -E 'ustack:(sample|user_stack):' /tmp/ps.txt
n=$(grep -c "ustack:user_stack: .* pid=$w .* end=outermost " /tmp/ps.txt)
echo "perf script: $n user stacks of the program"
[ "$n" -ge 100 ] || fail "perf script: $n user stacks"
ustack-report --summary /tmp/ps.txt >/tmp/ps.sum
sed -n '1,6p' /tmp/ps.sum
grep -qx 'format: trace events' /tmp/ps.sum || fail "perf script not read as trace events"
# The program has exited: its user frames are addresses, at least its
# seven (libc's write, write_one, run_write, main, libc's start, _start).
j=$(ustack-report --folded --pid $w --event syscall:write /tmp/ps.txt |
	awk '$0 !~ /\[no user stack\]/ && gsub(/\[unknown\]/, "&") >= 7 { n += $NF } END { print n + 0 }')
[ "$j" -ge 100 ] || fail "perf script: $j samples joined to whole user stacks"
kill $idle
ustack_unload
