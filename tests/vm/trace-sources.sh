# tracepoints= and kprobes= as sources.  raw_syscalls:sys_enter and a
# kprobe on vfs_write take each of a program's write() calls, named
# event=tp:raw_syscalls:sys_enter and event=kprobe:vfs_write in text and
# binary records, with user stacks main > run_write > write_one.  A bad
# name is refused whole (EINVAL, one log line naming it) and the parameter
# still reads back what is active.
# kernels: debug
. ./lib.sh
P=/sys/module/ustack/parameters
ustack_load sample_hz=0 tracepoints=sched:sched_process_exec
[ "$(cat $P/tracepoints)" = sched:sched_process_exec ] || fail "tracepoints at load: $(cat $P/tracepoints)"
[ -z "$(cat $P/kprobes)" ] || fail "kprobes: $(cat $P/kprobes)"

# refused NAME PARAM VALUE: EINVAL, logged by name, nothing changed
refused() {
	before=$(cat "$P/$2")
	err=$(sh -c "echo '$3' >$P/$2" 2>&1) && fail "$2=$3 was accepted"
	case "$err" in *nvalid*) ;; *) fail "$2=$3: not EINVAL: $err" ;; esac
	[ "$(cat "$P/$2")" = "$before" ] || fail "$2=$3 changed it to $(cat "$P/$2")"
	dmesg | grep -q "$2: cannot trace '$1'" || fail "no log line naming $1"
}
refused sched:no_such_event tracepoints sched:no_such_event
refused nosystem tracepoints sched:sched_switch,nosystem
refused irq:sched_switch tracepoints irq:sched_switch
refused 'sched:sched_switch;x' tracepoints 'sched:sched_switch;x'
refused no_such_function_xyz kprobes vfs_write,no_such_function_xyz
# Not kprobe-able: the kprobes' own code.
refused kprobe_int3_handler kprobes kprobe_int3_handler
[ -z "$(cat $P/kprobes)" ] || fail "a refused kprobes write left $(cat $P/kprobes)"

param_set tracepoints raw_syscalls:sys_enter,sched:sched_process_exec
param_set kprobes vfs_write
[ "$(cat $P/tracepoints)" = raw_syscalls:sys_enter,sched:sched_process_exec ] ||
	fail "tracepoints readback: $(cat $P/tracepoints)"
[ "$(cat $P/kprobes)" = vfs_write ] || fail "kprobes readback"

# run FORMAT FILE: one recorded run of 200 writes, only the program traced
run() {
	if [ "$1" = text ]; then record_start "$2"; else
		FORMAT=$1 ./bin/ustack_read dump "$2" >/dev/null &
		RECORDER=$!
		until grep -q '^active 1' /sys/kernel/debug/ustack/stats; do sleep 0.05; done
	fi
	rm -f /tmp/go; mkfifo /tmp/go
	WAIT_STDIN=1 sframe-register run ./bin/workload_sf write 200 </tmp/go &
	w=$!
	param_set pid $w
	echo >/tmp/go
	wait $w || fail "workload"
	record_stop
	param_set pid 0
}
run text /tmp/rec
ntp=$(grep -c "^sample .* event=tp:raw_syscalls:sys_enter comm=workload_sf$" /tmp/rec)
nkp=$(grep -c "^sample .* event=kprobe:vfs_write comm=workload_sf$" /tmp/rec)
echo "tp samples $ntp, kprobe samples $nkp"
[ "$ntp" -ge 200 ] || fail "$ntp tp:raw_syscalls:sys_enter samples"
[ "$nkp" -ge 200 ] || fail "$nkp kprobe:vfs_write samples"
grep -A3 'event=kprobe:vfs_write' /tmp/rec | head -4
grep -A3 'event=kprobe:vfs_write' /tmp/rec | grep -q 'kernel .* vfs_write' ||
	fail "the kprobe's kernel stack lacks vfs_write"

# folded EVENT FILE: the program's writes with the right user stack
folded() {
	ustack-report --folded --event "$1" "$2" >/tmp/folded || fail "ustack-report $1"
	# raw_syscalls:sys_enter takes run_write's open and close too
	awk '/^workload_sf;/ && /;run_write;/ && !/;run_write;(__open|open|__close|close)/ {
		n = $NF; total += n
		if ($0 !~ /;main;run_write;write_one;/ || $0 ~ /\[no user stack\]|\[incomplete/) {
			bad += n; if (++shown < 3) print "wrong stack: " $0 }
	     }
	     END { print total + 0 " writes from run_write, " bad + 0 " with a wrong stack"
		   exit (total < 200) || bad > 0 }' /tmp/folded
}
folded tp:raw_syscalls:sys_enter /tmp/rec || fail "tp stacks"
# An int3 kprobe runs as NMI: where NMI requests are refused (6.1 with
# KASAN), its samples have cookie 0 and no user stack.  An ftrace-based
# one (function entry) takes them like any other event.
if [ "$(grep "event=kprobe:vfs_write comm=workload_sf$" /tmp/rec | grep -vc 'cookie=0x0000000000000000 ')" = 0 ]; then
	case $KREL in *ustack-debug*) echo "kprobe samples refused as NMI requests" ;;
	*) fail "kprobe samples without cookies" ;; esac
else
	folded kprobe:vfs_write /tmp/rec || fail "kprobe stacks"
fi

# Binary records carry the names too, packed or not.
for f in binary packed; do
	run $f /tmp/rec.$f
	ustack-report --summary /tmp/rec.$f | sed -n '1,12p'
	folded tp:raw_syscalls:sys_enter /tmp/rec.$f || fail "tp stacks ($f)"
	ustack-report --folded --event kprobe:vfs_write /tmp/rec.$f | grep -q '^workload_sf;' ||
		fail "no kprobe:vfs_write samples in $f records"
done

# Changed while running, then emptied: the probes go.
record_start /tmp/rec2
param_set kprobes ""
param_set tracepoints sched:sched_process_exec
./bin/workload_fp write 10 || fail "workload"
record_stop
grep -q 'event=tp:sched:sched_process_exec comm=workload_fp$' /tmp/rec2 ||
	fail "no sched_process_exec sample of workload_fp"
if grep -q 'event=kprobe:.* comm=workload_fp$' /tmp/rec2; then
	fail "kprobe samples after kprobes= was emptied"
fi
param_set tracepoints ""
ustack_unload
