# Requests from NMI context.  TCG has no PMU, so the module's test hook
# (debugfs nmi_test) sends real NMI IPIs to CPU 1, where a CPU-bound program
# built without frame pointers runs under the shim.  Every NMI sample of it
# gets its user record under the same cookie, ending outermost with the
# program's call chain, and the registers at the walk are those the NMI
# saw (regs_mismatch, counted for the program's stays only: pid=).  Then NMIs land in a storm of cpu-clock and syscall requests on the
# same CPU (NMIs inside the engine's own IRQ-off sections are refused):
# one user record per cookie, no lost record, forward progress.  Where
# NMI requests are impossible (6.1 built with KASAN: the debug kernel),
# each one must be refused cleanly instead: cookie 0, counted.
# timeout: 300
. ./lib.sh
s=/sys/kernel/debug/ustack/stats
refusing=0
case $KREL in *ustack-debug*) refusing=1 ;; esac

ustack_load sample_hz=0 buffer_kb=65536
record_start /tmp/rec
taskset -c 1 sframe-register run ./bin/workload_sf cpu 6 &
W=$!
# Only the program: the register check below is about its stays (a shell's
# stays see signal frames set up after a request, which is not a mismatch).
param_set pid $W
# Bursts of 100 NMIs until 400 have hit the program (at most 2000).
i=0
while kill -0 $W 2>/dev/null && [ $i -lt 20 ] &&
      [ "$(grep -c 'event=nmi-test comm=workload_sf$' /tmp/rec)" -lt 400 ]; do
	taskset -c 0 sh -c 'echo "1 100" >/sys/kernel/debug/ustack/nmi_test' || fail "nmi_test"
	i=$((i + 1))
done
wait $W || fail "workload"
record_stop
cat $s
req=$(stat_of nmi_requests); ref=$(stat_of nmi_refused)
echo "nmi_requests=$req nmi_refused=$ref"
[ "$req" -ge 300 ] || fail "only $req NMI requests from $((i * 100)) NMIs"
if [ $refusing = 1 ]; then
	[ "$ref" = "$req" ] || fail "$ref of $req NMI requests refused on a kernel that cannot take them"
	n=$(grep -c '^sample .*event=nmi-test' /tmp/rec)
	z=$(grep '^sample .*event=nmi-test' /tmp/rec | grep -c 'cookie=0x0000000000000000')
	[ "$n" -ge 300 ] && [ "$n" = "$z" ] || fail "$z of $n nmi-test samples without a cookie"
	ustack_unload
	exit 0
fi
if ! awk -f syms.awk -f stream-check.awk -v comm=workload_sf -v syms=bin/workload_sf.syms \
	-v obj=/tests/vm/bin/workload_sf -v hot=cpu_inner,cpu_outer -v chain=cpu_outer,run_cpu,main \
	-v event=nmi-test -v min_samples=300 /tmp/rec; then
	grep -A8 'event=nmi-test' /tmp/rec | head -40
	fail "stream check"
fi
[ "$(stat_of regs_mismatch)" = 0 ] || fail "register mismatches: $(stat_of regs_mismatch)"

# NMIs inside a storm of requests from IRQ and tracepoint context.
param_set sample_hz 999
param_set syscalls getppid
record_start /tmp/rec2
taskset -c 1 ./bin/hazard deep 50 $(long 20000 8000) &
W=$!
param_set pid $W
taskset -c 0 sh -c 'echo "1 1000" >/sys/kernel/debug/ustack/nmi_test' || fail "nmi_test (storm)"
wait $W || fail "hazard deep"
record_stop
cat $s
# An NMI that lands while its own CPU writes to the ring drops its sample
# (counted in a lost record); user records are never lost here.
! lost_lines /tmp/rec2 | grep -qv ' users=0 ' || fail "user records lost: $(lost_lines /tmp/rec2 | head -3)"
awk '/^sample / && / comm=hazard$/ { split($2, c, "="); if (c[2] != "0x0000000000000000") want[c[2]] = $0; n[$7]++ }
     /^user / { split($2, c, "="); if (c[2] in seen) { print "two user records for " c[2]; bad++ } seen[c[2]] = 1 }
     END { for (c in want) if (!(c in seen)) { if (missing++ < 3) print "no user record: " want[c] }
	   for (e in n) print e, n[e]
	   exit bad || missing || !n["event=nmi-test"] || !n["event=syscall:getppid"] }' /tmp/rec2 ||
	fail "storm with NMIs"
[ "$(stat_of regs_mismatch)" = 0 ] || fail "register mismatches: $(stat_of regs_mismatch)"
ustack_unload
