# A parameter write takes effect whole or fails (issue 25, item 10).  The
# module's test hook fail_sources=N makes the next N creations of a
# source's kernel object fail as memory running out would (the stock
# kernels have no failslab).  While sampling runs at 99 Hz, a write of
# sample_hz=149 whose counters cannot be made must return the error,
# sample_hz must still read 99, and the old counters must still sample.
# Likewise syscalls=getpid whose sys_enter probe cannot go in: the write
# fails and syscalls still reads the old (empty) list.
# kernels: 6.1 debug
. ./lib.sh
ustack_load sample_hz=99
[ -e /sys/module/ustack/parameters/fail_sources ] || fail "no fail_sources test hook"
record_start /tmp/pf.rec
ev=$(sampling_event)

# sample_hz: every counter creation fails.
param_set fail_sources 1000
if echo 149 >/sys/module/ustack/parameters/sample_hz 2>/tmp/pf.err; then
	hz_ret=0
else
	hz_ret=1
fi
param_set fail_sources 0
hz=$(cat /sys/module/ustack/parameters/sample_hz)
cpus=$(( $(stat_of sampling_cycles_cpus) + $(stat_of sampling_cpu_clock_cpus) ))
./bin/workload_fp cpu 1
# syscalls: the probe cannot be registered.
param_set fail_sources 1
if echo getpid >/sys/module/ustack/parameters/syscalls 2>>/tmp/pf.err; then
	sc_ret=0
else
	sc_ret=1
fi
param_set fail_sources 0
sc=$(cat /sys/module/ustack/parameters/syscalls)
record_stop
n=$(grep -c "^sample .*event=$ev .*comm=workload_fp" /tmp/pf.rec)
echo "sample_hz write failed: $hz_ret ($(head -1 /tmp/pf.err)), reads $hz; $cpus CPUs sampling," \
	"$n samples of workload_fp after; syscalls write failed: $sc_ret, reads '$sc'"
ustack_unload
[ "$hz_ret" = 1 ] || fail "sample_hz=149 reported success though no counter could be made"
[ "$hz" = 99 ] || fail "sample_hz reads $hz after a failed write, not 99"
[ "$cpus" = "$(grep -c '^processor' /proc/cpuinfo)" ] || fail "sampling on $cpus CPUs after the failed write"
[ "$n" -ge 20 ] || fail "the old counters stopped: $n samples of a 1 s CPU-bound program"
[ "$sc_ret" = 1 ] || fail "syscalls=getpid reported success though its probe could not go in"
[ -z "$sc" ] || fail "syscalls reads '$sc' after a failed write"
