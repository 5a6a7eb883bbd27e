# Cooperative unwinding and io_uring: an opted-in C program (its handler
# without SA_RESTART) does io_uring reads, waiting for their completions
# in io_uring_enter(), which runs the task's task_work while it waits: the
# engine's walk, and with it the request, comes in the middle of the
# system call.  Sampled at 999 Hz, every result is whole and right (no
# EINTR, no short count, no wait cut short: src/coop_iouring.c); the
# requests walked there were raised at the real return instead (counted
# as deferred) and answers still arrive, one interp record each.
# kernels: 6.1 6.12 debug
. ./lib.sh
ustack_load sample_hz=999 coop_timeout_ms=1000
d0=$(stat_of coop_deferred)
record_start /tmp/coopio.rec
./bin/coop_iouring 4 >/tmp/coopio.out 2>&1 || { cat /tmp/coopio.out; fail "coop_iouring exit $?"; }
record_stop 1
cat /tmp/coopio.out
grep '^coop_' /sys/kernel/debug/ustack/stats | tr '\n' ' '; echo
val() { tr ' ' '\n' </tmp/coopio.out | sed -n "s/^$1=//p"; }
[ "$(val rounds)" -ge 1 ] || fail "no round completed"
[ "$(val bad)" = 0 ] || fail "$(val bad) results changed ($(val eintr) EINTR, $(val early) waits cut short)"
[ "$(val answered)" -ge 5 ] || fail "only $(val answered) answers accepted"
[ "$(val refused)" = 0 ] || fail "$(val refused) answers refused"
[ "$(stat_of coop_deferred)" -gt "$d0" ] || fail "no request came inside a system call"
interp_accounted /tmp/coopio.rec '^interp cookie=0x[0-9a-f]\{16\} pid=[0-9]* tid=[0-9]* frames=1 lang=test$' 5
echo "coop-iouring: $(val rounds) rounds, $(val answered) answers, $(( $(stat_of coop_deferred) - d0 )) requests raised at the real return"
ustack_unload
