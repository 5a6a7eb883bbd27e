# Cooperative unwinding against a C program that opts in itself and then
# misbehaves (src/coop_c.c), sampled at 999 Hz: a blocked signal is never
# raised (counted, nothing pending); requests never answered expire and
# later walks are not signalled meanwhile; forged answers (wrong cookie,
# another thread's, oversized, a bad string, a second answer) are refused
# with their errno and only the right one makes an interp record; fork
# (a child answering its parent's cookie, a child exec'ing) and exec of
# the process itself with a request outstanding (the new image is not
# opted in, gets no signal, and the old cookie is refused); 64 threads
# answering.
# kernels: 6.1 6.12 6.12-rt debug
. ./lib.sh
ustack_load sample_hz=999 coop_timeout_ms=50
record_start /tmp/coopc.rec
run() {
	_t0=$(cut -d" " -f1 /proc/uptime)
	./bin/coop_c "$@" >/tmp/coopc.out 2>&1 || { rc=$?; cat /tmp/coopc.out; fail "coop_c $* exit $rc"; }
	echo "coop_c $*: $(cut -d" " -f1 /proc/uptime) - $_t0 s"
	cat /tmp/coopc.out
	grep -q '^result 0$' /tmp/coopc.out || fail "coop_c $1: wrong result"
}
val() { tr ' ' '\n' </tmp/coopc.out | sed -n "s/^$1=//p"; }
s0() { stat_of coop_$1; }

b0=$(s0 blocked)
run block 2
[ "$(val signals)" = 0 ] || fail "a blocked signal arrived"
[ "$(val pending)" = 0 ] || fail "the blocked signal is pending"
[ "$(s0 blocked)" -gt "$b0" ] || fail "no walk found the signal blocked"

e0=$(s0 expired) u0=$(s0 busy)
run silent 2
[ "$(val signals)" -ge 1 ] || fail "no request raised"
[ "$(s0 expired)" -gt "$e0" ] || fail "no request expired"
[ "$(s0 busy)" -gt "$u0" ] || fail "no walk waited for an outstanding request"

r0=$(s0 refused)
run forge 2
[ "$(val other)" = 0 ] || fail "unexpected errors"
[ "$(val ok)" -ge 1 ] || fail "no answer accepted"
for k in eperm e2big einval estale; do
	[ "$(val $k)" = "$(val ok)" ] || fail "$k refusals: $(val $k), accepted answers: $(val ok)"
done
[ "$(val eperm_other)" -ge 1 ] || fail "no other thread's cookie tried"
[ "$(s0 refused)" -gt "$r0" ] || fail "refusals not counted"

run fork 1
run exec 1
[ "$(val off_enoent)" = 1 ] || fail "the new image is still opted in"
[ "$(val answer_estale)" = 1 ] || fail "the old image's request outlived exec"
[ "$(val signals)" = 0 ] || fail "a request reached the new image"
# 64 threads on few CPUs: a signalled thread may wait long for its turn.
param_set coop_timeout_ms 5000
run threads 2
[ "$(val ok)" -ge 64 ] || fail "64 threads: only $(val ok) answers accepted"
[ "$(val other)" = 0 ] || fail "64 threads: $(val other) answers refused"
[ "$(s0 full)" = 0 ] || fail "no slot for a thread"
record_stop 1
grep '^coop_' /sys/kernel/debug/ustack/stats | tr '\n' ' '; echo
# Answers return through rt_sigreturn, and ticks land in it: a walk whose
# registers moved since is counted as such, not as a mismatch.
grep -E '^regs_' /sys/kernel/debug/ustack/stats | tr '\n' ' '; echo
[ "$(stat_of regs_mismatch)" = 0 ] || fail "register mismatches: $(stat_of regs_mismatch)"
# Every accepted answer is one interp record, in the contract's form.
interp_accounted /tmp/coopc.rec '^interp cookie=0x[0-9a-f]\{16\} pid=[0-9]* tid=[0-9]* frames=2 lang=test$' 64
grep -q '^    interp spin coop_c\.c:42$' /tmp/coopc.rec || fail "no interp frame line"
