# The sampling test: a CPU-bound program built without frame
# pointers, run under the shim, sampled at 999 Hz for 2 s: every sample has
# its user record, every user record ends outermost, the frames match the
# program's call structure, cookies are unique per kernel stay.
# kernels: 6.1 6.12 sid debug
. ./lib.sh
ustack_load sample_hz=999
[ -x /usr/bin/sframe-register ] || fail "no sframe-register"
record_start /tmp/rec
ev=$(sampling_event); case $ev in cycles | cpu-clock) ;; *) fail "$ev" ;; esac
# Most of its stacks must be in its loop, not its start-up: under the shim
# that takes seconds on the debug kernel (a loaded host's: 4 s, more than
# half of the stacks when the loop ran 2 s), where it loops longer.
secs=2
[ $DEBUG_KERNEL = 0 ] || secs=6
sframe-register run ./bin/workload_sf cpu $secs || fail "workload"
record_stop
if ! awk -f syms.awk -f stream-check.awk -v comm=workload_sf -v syms=bin/workload_sf.syms \
	-v obj=/tests/vm/bin/workload_sf -v hot=cpu_inner,cpu_outer -v chain=cpu_outer,run_cpu,main \
	-v event=$ev -v min_samples=$(per_hz 200) /tmp/rec; then
	grep -B2 -A8 'workload_sf+' /tmp/rec | head -40
	fail "stream check"
fi
cat /sys/kernel/debug/ustack/stats
ustack_unload
