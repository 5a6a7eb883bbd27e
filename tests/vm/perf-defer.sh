# perf's deferred callchains fed by ustack (kernel_unwinder, issue 27):
# sid's perf records a program built without frame pointers (bin/workload,
# -O2) with --call-graph fp,defer, ustackd covering it and its libc.  With
# kernel_unwinder=1, >= 99% of the stacks perf script shows reach main and
# _start (ticks inside a deferred walk itself, which get no user stack,
# are counted apart: at most 5%); with 0 (before and after), the kernel's
# frame-pointer walk's short stacks are back (< 10%).  The engine's own
# stream, recording the same program at the same time, still reaches the
# outermost frame in >= 99% of its stacks; ustack-report folds perf
# script's text.  The parameter takes 0 or 1 only, a bad value refused
# whole.  Unloading while perf records gives the kernel its walk back
# safely; the parameter given at load works too.
# kernels: sid
# perf: sid
# timeout: 600
. ./lib.sh
PERF=perf-sid
[ -x /usr/sbin/ustackd ] || fail "ustackd not built"
command -v ustack-report >/dev/null || fail "ustack-report not built"
command -v $PERF >/dev/null || fail "no perf of sid in the guest"
$PERF --version || fail "sid's perf does not run"
ustack_unload
rm -rf /var/cache/ustack
ustack_load sample_hz=199 buffer_kb=16384
p=/sys/module/ustack/parameters/kernel_unwinder
[ "$(cat $p)" = 0 ] || fail "kernel_unwinder is $(cat $p) at load"
for v in 2 -1 on yes 1x x; do
	if echo "$v" >$p 2>/dev/null; then
		fail "kernel_unwinder=$v accepted"
	fi
	[ "$(cat $p)" = 0 ] || fail "kernel_unwinder=$v changed it to $(cat $p)"
done

bin/workload cpu 600 >/dev/null & PW=$!
: >/tmp/ud.log
ustackd -v 2>/tmp/ud.log & UD=$!
trap 'kill $PW $UD 2>/dev/null' EXIT
wait_ready /tmp/ud.log

# record DATA: 3 s of the program's samples, user stacks deferred
record() {
	$PERF record -q -N -e cpu-clock -F 199 --call-graph fp,defer -p $PW \
		-o "$1" -- sleep 3 2>/tmp/perf.err || fail "perf record: $(cat /tmp/perf.err)"
}
# script DATA: perf script's text (no inline frames: no addr2line here)
script() {
	$PERF script --no-inline -i "$1" 2>/tmp/perf.err || fail "perf script: $(cat /tmp/perf.err)"
}
# share DATA: "complete own total" of the program's samples (perf_share)
share() { perf_share $PERF "$1" workload; }
# short WHAT DATA: few stacks reach main and _start (the kernel's walk)
short() {
	set -- "$1" $(share "$2")
	echo "$1: $2 of $4 stacks reach main and _start"
	[ "$4" -ge 100 ] || fail "$1: only $4 samples"
	[ $(($2 * 100)) -lt $(($4 * 10)) ] || fail "$1: $2 of $4 complete: not the kernel's walk"
}

record /tmp/p0.data
short "kernel_unwinder=0" /tmp/p0.data

# Ours, while the engine's stream records the same program.
w0=$(stat_of kernel_unwinder_walks)
param_set kernel_unwinder 1
[ "$(cat $p)" = 1 ] || fail "kernel_unwinder reads $(cat $p) after 1"
record_start /tmp/rec
record /tmp/p1.data
record_stop
set -- $(share /tmp/p1.data)
echo "kernel_unwinder=1: $1 of $3 stacks reach main and _start, $2 taken inside a deferred walk"
[ "$3" -ge 100 ] || fail "kernel_unwinder=1: only $3 samples"
[ $(($2 * 100)) -le $(($3 * 5)) ] || fail "kernel_unwinder=1: $2 of $3 samples inside the walks (> 5%)"
[ $(($1 * 100)) -ge $((($3 - $2) * 99)) ] || {
	grep kernel_unwinder /sys/kernel/debug/ustack/stats
	# the incomplete ones (when, and their outermost frame), and the last
	awk '/^[^ \t]/ { if (h != "" && last != "_start") print h " ... " last; h = $0; last = ""; next }
		/^[ \t]/ { last = $2 } END { print "last sample: " h }' /tmp/perf-share.txt | tail -n 12
	fail "kernel_unwinder=1: $1 of $(($3 - $2)) stacks complete (< 99%)"
}
walks=$(($(stat_of kernel_unwinder_walks) - w0))
echo "walks for the kernel's unwinder: $walks"
[ "$walks" -ge $(($3 / 2)) ] || fail "$walks walks for $3 samples"
check_complete "the stream alongside" /tmp/rec "$PW"

# ustack-report reads perf script's text: the program's whole stacks,
# folded from _start down, as many as perf script shows, in call order.
script /tmp/p1.data >/tmp/p1.txt
ustack-report --folded /tmp/p1.txt >/tmp/p1.folded || fail "ustack-report --folded"
head -n 3 /tmp/p1.folded
awk -v want="$1" '$1 ~ /^workload;_start;.*;main(;|$)/ { n += $NF; if ($1 ~ /;main;run_cpu;cpu_outer(;|$)/) o += $NF }
	END { print "folded: " n " whole stacks (perf script: " want "), " o " of them through cpu_outer"
	      exit !(n == want && o * 100 >= n * 99) }' /tmp/p1.folded || {
	grep -v ';main;run_cpu;cpu_outer' /tmp/p1.folded | head -n 10
	fail "ustack-report --folded: not the whole stacks perf script shows"
}

# Turned off, the kernel's own walk is back.
param_set kernel_unwinder 0
[ "$(cat $p)" = 0 ] || fail "kernel_unwinder reads $(cat $p) after 0"
record /tmp/p2.data
short "kernel_unwinder=0 again" /tmp/p2.data

# Unloaded while perf records, with kernel_unwinder=1 (no reader holds the
# module): the kernel's walk is back before our text goes, perf records
# on, and its later stacks are the kernel's.
kill $UD; wait $UD 2>/dev/null
param_set kernel_unwinder 1
$PERF record -q -N -e cpu-clock -F 199 --call-graph fp,defer -p $PW \
	-o /tmp/p3.data -- sleep 4 2>/tmp/perf3.err & PR=$!
sleep 1.5
ustack_unload
wait $PR || fail "perf record across the unload: $(cat /tmp/perf3.err)"
script /tmp/p3.data >/dev/null
dmesg | grep -q 'kernel_unwinder: unwind_user() walks with frame pointers again' ||
	fail "no log line of the kernel's walk given back"
record /tmp/p4.data
short "after the unload" /tmp/p4.data

# Given at load: on from the start, and off when unloaded.
ustack_load kernel_unwinder=1
[ "$(cat $p)" = 1 ] || fail "kernel_unwinder=1 at load reads $(cat $p)"
ustack_unload
echo ok
