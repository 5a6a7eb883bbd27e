# io_uring worker threads (io-wq workers "iou-wrk-<tid>" and the SQPOLL
# thread "iou-sqp-<pid>", PF_IO_WORKER) get no user walk and no sample:
# sampled at 999 Hz with offcpu=1 and pid=<the program>, while the workers
# burn CPU in the kernel (IOSQE_ASYNC reads of /dev/zero, 4 MiB each), exit
# (each round's submitting thread takes its io-wq and workers with it),
# block (an async openat of a FIFO) and idle-sleep.  The io threads must
# have been there (tids and comms in /proc/<pid>/task, CPU time, voluntary
# switches); none of their tids may appear in a record; the main thread's
# samples (cpu-clock and offcpu) each have their user record; nothing lost.
. ./lib.sh
rm -f /tmp/iou.go && mkfifo /tmp/iou.go || fail "mkfifo"
ustack_load sample_hz=999 offcpu=1 buffer_kb=32768
# The shell opens the FIFO before exec: the program's pid is known (and
# filtered) before it runs.
./bin/iouring 3 </tmp/iou.go >/tmp/iou.out 2>&1 &
P=$!
param_set pid $P
record_start /tmp/rec
echo go >/tmp/iou.go
# A watchdog that shows where the program hangs, if it does.
( sleep 180; echo "iouring hangs:"; cat /tmp/iou.out
  for t in /proc/$P/task/*; do echo "${t##*/} $(cat $t/comm) $(cat $t/wchan)"; cat $t/stack; done
  kill -9 $P ) 2>&1 &
W=$!
wait $P || { cat /tmp/iou.out; fail "iouring exit $?"; }
kill $W 2>/dev/null
record_stop 1
cat /tmp/iou.out
s=/sys/kernel/debug/ustack/stats
grep -E '^(requests|coalesced|walks|deliveries|regs_mismatch|dropped|nomem) ' $s | tr '\n' ' '; echo
grep -q '^done rounds=[1-9]' /tmp/iou.out || fail "no round completed"

# The scenario happened: io-wq workers and the SQPOLL thread of this pid
# existed, burned CPU and slept.
wrk=$(awk '$1 == "iothread" && $3 ~ /^iou-wrk-/ { printf "%s ", $2 }' /tmp/iou.out)
sqp=$(awk '$1 == "iothread" && $3 ~ /^iou-sqp-/ { printf "%s ", $2 }' /tmp/iou.out)
[ -n "$wrk" ] || fail "no io-wq worker (iou-wrk-*) seen in /proc/$P/task"
[ -n "$sqp" ] || fail "no SQPOLL thread (iou-sqp-*) seen in /proc/$P/task"
awk '$1 == "iothread" { split($4, t, "="); split($5, v, "="); cpu += t[2]; sw += v[2] }
     END { print "io threads: " cpu " ticks on CPU, " sw " voluntary switches"
	   exit !(cpu > 0 && sw > 0) }' /tmp/iou.out || fail "the io threads neither ran nor slept"

# Every check runs; the test fails at the end with all that went wrong.
bad=
# None of their tids in any record, no record named after them.
awk -v tids=" $wrk$sqp" '
	/^[a-z]/ { bad = 0 }
	/^(sample|user) / { for (i = 2; i <= NF; i++) if ($i ~ /^tid=/ && index(tids, " " substr($i, 5) " ")) bad = 1 }
	/^sample / && / comm=iou-/ { bad = 1 }
	/^[a-z]/ && bad { n++ }
	bad && n <= 8 { print }
	END { if (n) print n " records of io threads"; exit n > 0 }' /tmp/rec >/tmp/bad ||
	{ cat /tmp/bad; bad="$bad; records of io_uring threads: $(tail -n1 /tmp/bad)"; }
l=$(lost_lines /tmp/rec | head -3)
[ -z "$l" ] || bad="$bad; records lost: $l"
[ "$(sed -n 's/^dropped //p' $s)" = 0 ] || bad="$bad; dropped $(sed -n 's/^dropped //p' $s)"
[ "$(sed -n 's/^regs_mismatch //p' $s)" = 0 ] || bad="$bad; $(grep regs_mismatch $s) register mismatches"

# The program's own threads (comm iouring: the main thread and each round's
# submitter) are still sampled, each sample with its user record; the main
# thread's spinning stacks are right.  io_uring_enter runs the task's
# task_work while it waits (io_run_task_work): the walk can run before the
# stay ends, and the stay's later samples then come after its user record.
# stream-check.awk wants the user record last: give it the user records at
# the end, and count the samples that came after theirs.
awk '/^[a-z]/ { u = /^user / } u { print >"/tmp/rec.users"; next } { print }' /tmp/rec >/tmp/rec.sorted
cat /tmp/rec.users >>/tmp/rec.sorted
awk '/^user / { done[$2] = 1 } /^sample / && ($2 in done) { n++ }
     END { print n + 0 " samples after the user record of their stay (walked inside io_uring_enter)" }' /tmp/rec
check() {	# check LABEL stream-check.awk ARGS...
	l=$1; shift
	awk -f syms.awk -f stream-check.awk -v comm=iouring -v syms=bin/iouring.syms \
		-v obj=/tests/vm/bin/iouring "$@" /tmp/rec.sorted >/tmp/check.out && { tail -n1 /tmp/check.out; return; }
	cat /tmp/check.out
	# The records of the samples without a user record.
	for c in $(sed -n 's/^FAIL: sample \(0x[0-9a-f]*\) has no user record$/\1/p' /tmp/check.out | head -n3); do
		awk -v c="cookie=$c" '/^[a-z]/ { p = ($2 == c) } p' /tmp/rec
	done
	bad="$bad; $l: $(grep '^FAIL' /tmp/check.out | head -n1)"
}
# Each round's submitter exits: a request just before do_exit sets
# PF_EXITING is delivered with end=exit.
# How much of its time the main thread spends in its own loop depends on
# the kernel and the host (single-threaded TCG, KASAN): at least 10 such
# stacks, whose chain is checked, except under KASAN (the debug kernel),
# where it hardly runs user code.
check cpu-clock -v hot=cpu_inner -v min_hot_pct=0 -v chain=run_rounds,main \
	-v ends=outermost,bad-frame,no-info -v event=cpu-clock -v min_samples=$(per_hz 100)
hot=$(sed -n 's/.* hot=\([0-9]*\) .*/\1/p' /tmp/check.out | tail -n1)
case $(uname -r) in
*-ustack-debug) ;;
*) [ "${hot:-0}" -ge 10 ] || bad="$bad; only ${hot:-0} main-thread stacks in cpu_inner" ;;
esac
# pid= names the shell's child before it execs the program: a switch
# inside that execve (a loaded host makes one likely) asks in a stay whose
# user image is replaced, and its record ends with exec.
check offcpu -v ends=outermost,bad-frame,no-info,fault,exit,exec -v event=offcpu -v min_samples=5
[ -z "$bad" ] || fail "${bad#; }"
ustack_unload
