# Debian's trace-cmd consumes the trace events: `trace-cmd record -e
# ustack` starts the sources with no /dev/ustack reader, `trace-cmd
# report` prints each sample and the user stack of its cookie, and
# ustack-report joins that text by cookie.  With a /dev/ustack reader
# beside it, each user_stack event trace-cmd prints holds the very frames
# of the user record of its cookie.  (Debian's tool on Debian's kernel;
# the events' kernel side runs under lockdep in trace-events and
# trace-sources on the debug kernel.)
# kernels: 6.1
# trace-cmd: yes
. ./lib.sh
S=/sys/kernel/debug/ustack/stats
command -v trace-cmd >/dev/null || fail "no trace-cmd in the guest"
ustack_load sample_hz=0 syscalls=write
grep -q '^sources_on 0' $S || fail "sources on before any consumer"

# tc_record N OUT: trace-cmd records the events while the program makes N
# writes (only it traced) and reports them into OUT.
tc_record() {
	rm -f /tmp/go; mkfifo /tmp/go
	WAIT_STDIN=1 sframe-register run ./bin/workload_sf write "$1" </tmp/go &
	w=$!
	param_set pid $w
	# What trace-cmd runs: once the sources run, the program writes and
	# is gone.
	rm -f /tmp/tc-on
	cat >/tmp/tc-run.sh <<RUN
i=0
until grep -q '^sources_on 1' $S; do
	i=\$((i + 1)); [ \$i -lt 200 ] || { kill $w; exit 1; }
	sleep 0.05
done
touch /tmp/tc-on
echo >/tmp/go
while [ -e /proc/$w ]; do sleep 0.2; done
sleep 0.5
RUN
	trace-cmd record -q -o /tmp/trace.dat -e ustack sh /tmp/tc-run.sh >/tmp/tc-rec.log 2>&1 ||
		{ cat /tmp/tc-rec.log; fail "trace-cmd record"; }
	[ -e /tmp/tc-on ] || fail "trace-cmd did not start the sources"
	wait $w || fail "workload"
	param_set pid 0
	trace-cmd report -i /tmp/trace.dat >"$2" 2>/tmp/tc.err ||
		{ cat /tmp/tc.err; fail "trace-cmd report"; }
}

tc_record 100 /tmp/tc.txt
i=0
until grep -q '^sources_on 0' $S; do
	i=$((i + 1)); [ $i -lt 200 ] || fail "trace-cmd left the sources on"
	sleep 0.05
done
grep -m2 -E ' (sample|user_stack): ' /tmp/tc.txt

# Every sample of the program has one user_stack of its cookie, and its
# 100 writes end outermost with at least main > run_write > write_one >
# write (its shell may write once before the exec).
awk -v w=$w -f trace-join.awk /tmp/tc.txt ||
	fail "trace-cmd report: samples and user stacks"

ustack-report --summary /tmp/tc.txt >/tmp/tc.sum
sed -n '1,6p' /tmp/tc.sum
grep -qx 'format: trace events' /tmp/tc.sum || fail "trace-cmd report not read as trace events"
# The program has exited: its user frames are addresses, at least its
# seven (libc's write, write_one, run_write, main, libc's start, _start).
j=$(ustack-report --folded --pid $w --event syscall:write /tmp/tc.txt |
	awk '$0 !~ /\[no user stack\]/ && gsub(/\[unknown\]/, "&") >= 7 { n += $NF } END { print n + 0 }')
echo "ustack-report: $j samples joined to whole user stacks"
[ "$j" -ge 100 ] || fail "trace-cmd report: $j samples joined to whole user stacks"
# With a /dev/ustack reader too: the frames trace-cmd prints are those of
# the user records of the same cookies.
record_start /tmp/rec
tc_record 50 /tmp/tc2.txt
record_stop
# trace-cmd prints an array as decimal words ("ips=1 2 methods=0 0"), the
# records hex: both as decimal (exact below 2^53; user addresses are).
awk '
	function dec(h,   i, v) {
		if (h !~ /^0x/) return sprintf("%.0f", h)
		for (i = 3; i <= length(h); i++)
			v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
		return sprintf("%.0f", v) }
	FNR == NR && / user_stack: / {
		match($0, /cookie=0x[0-9a-f]+/); c = substr($0, RSTART + 7, RLENGTH - 7)
		t[c] = ""; in_ips = 0
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^ips=/) { in_ips = 1; v = substr($i, 5) }
			else if ($i ~ /=/) in_ips = 0
			else v = $i
			if (in_ips) t[c] = t[c] (t[c] == "" ? "" : ",") dec(v) }
		next }
	FNR == 1 { c = "" }
	/^user / { c = substr($2, 8); ips[c] = ""; next }
	/^[a-z]/ { c = "" }
	c != "" && $1 == "user" { ips[c] = ips[c] (ips[c] == "" ? "" : ",") dec($2) }
	END {
		for (c in ips) if (c in t) { n++; if (t[c] != ips[c]) { bad++; if (bad < 3) print c ": " t[c] " != " ips[c] } }
		print n + 0 " cookies in both, " bad + 0 " differ"
		exit n < 50 || bad }' /tmp/tc2.txt /tmp/rec || fail "trace-cmd and /dev/ustack disagree"

ustack_unload
