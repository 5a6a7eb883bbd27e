# Debian's bpftrace consumes the trace events: attaching a program to
# tracepoint:ustack:user_stack starts the sources with no /dev/ustack
# reader, and a one-liner counts the user stacks by end reason.  Its
# counts are the walks the module counted by end reason meanwhile (only
# the program is traced, all of it while bpftrace is attached).
# Not on the debug kernel: its tinyconfig has no CONFIG_BPF_SYSCALL (no
# bpf(2) to load a program with), and bpftrace's 200 MB of LLVM and clang
# libraries would crowd its 1 GB guest.
# kernels: 6.1
# bpftrace: yes
. ./lib.sh
S=/sys/kernel/debug/ustack/stats
command -v bpftrace >/dev/null || fail "no bpftrace in the guest"
ustack_load sample_hz=0 syscalls=write
grep -q '^sources_on 0' $S || fail "sources on before any consumer"
grep -E 'end|nr_frames' /sys/kernel/tracing/events/ustack/user_stack/format

rm -f /tmp/go; mkfifo /tmp/go
WAIT_STDIN=1 sframe-register run ./bin/workload_sf write 100 </tmp/go &
w=$!
param_set pid $w
grep '^end_' $S >/tmp/ends.0

bpftrace -e 'tracepoint:ustack:user_stack { @[args->end] = count(); }' >/tmp/bt.out 2>&1 &
bt=$!
# bpftrace's start (BTF, LLVM, the verifier) takes 2 s here, and once in
# a CI run more than the test's 300: a failure within 120 s says where
# bpftrace was instead.
t0=$(cut -d. -f1 /proc/uptime)
until grep -q '^sources_on 1' $S; do
	kill -0 $bt 2>/dev/null || { cat /tmp/bt.out; fail "bpftrace exited"; }
	if [ $(($(cut -d. -f1 /proc/uptime) - t0)) -ge 120 ]; then
		cat /tmp/bt.out
		grep -E '^(State|VmRSS|voluntary|nonvoluntary)' /proc/$bt/status
		echo "wchan $(cat /proc/$bt/wchan); $(tr ' ' '\n' </proc/$bt/stat | sed -n 14,15p | paste -sd' ') ticks"
		cat /proc/$bt/stack 2>/dev/null | head -20
		free
		fail "bpftrace did not start the sources in 120 s"
	fi
	sleep 0.1
done
echo >/tmp/go
wait $w || fail "workload"
sleep 0.5
kill -INT $bt
wait $bt || { cat /tmp/bt.out; fail "bpftrace"; }
i=0
until grep -q '^sources_on 0' $S; do
	i=$((i + 1)); [ $i -lt 200 ] || fail "bpftrace left the sources on"
	sleep 0.05
done
param_set pid 0
grep '^end_' $S >/tmp/ends.1
cat /tmp/bt.out

# "@[outermost]: 100" per end reason against the walks' end_<reason>
# counters: the same, reason by reason, and at least the 100 writes
# outermost.
awk '
	FILENAME == "/tmp/ends.0" { e0[substr($1, 5)] = $2; next }
	FILENAME == "/tmp/ends.1" { d = $2 - e0[substr($1, 5)]; if (d) st[substr($1, 5)] = d; next }
	/^@\[.*\]: [0-9]+$/ { k = $1; sub(/^@\[/, "", k); sub(/\]:$/, "", k); bt[k] = $2 }
	END {
		for (k in st) { n++; if (bt[k] != st[k]) { bad++; print k ": bpftrace " bt[k] + 0 ", stats " st[k] } }
		for (k in bt) if (!(k in st)) { bad++; print k ": bpftrace " bt[k] ", stats 0" }
		print n + 0 " end reasons, " bad + 0 " differ, " bt["outermost"] + 0 " outermost"
		exit bad || bt["outermost"] < 100 }' /tmp/ends.0 /tmp/ends.1 /tmp/bt.out ||
	fail "bpftrace counts and the stats disagree"
ustack_unload
