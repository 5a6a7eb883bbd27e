# Sampling at 999 Hz a CPU-bound program with frame pointers (no SFrame):
# every sample has its user record, the frames match the call structure as
# far as frame pointers can tell (the caller of a leaf without a frame is
# lost; Debian's libc keeps no frame pointers, so walks may end there),
# cookies are unique per stay and never shared across tasks.  The chain is
# asserted for stacks whose first frame is the leaf cpu_inner: a tick at
# cpu_outer's prologue or epilogue loses run_cpu, as frame pointers do.
. ./lib.sh
ustack_load sample_hz=999
record_start /tmp/rec
ev=$(sampling_event); case $ev in cycles | cpu-clock) ;; *) fail "$ev" ;; esac
./bin/workload_fp cpu 2 || fail "workload"
record_stop
if ! awk -f syms.awk -f stream-check.awk -v comm=workload_fp -v syms=bin/workload_fp.syms \
	-v obj=/tests/vm/bin/workload_fp -v hot=cpu_inner -v chain=run_cpu,main \
	-v ends=outermost,bad-frame,no-info \
	-v event=$ev -v min_samples=$(per_hz 200) /tmp/rec; then
	grep -B2 -A8 'workload_fp+' /tmp/rec | head -40
	fail "stream check"
fi
grep -q ' fp /tests/vm/bin/workload_fp+' /tmp/rec || fail "no fp frames"
cat /sys/kernel/debug/ustack/stats
ustack_unload
