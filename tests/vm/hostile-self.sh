# Self requests without a reader (issue 14): an unprivileged user's
# SELF_STACK loop takes no per-task state and does not switch the engine's
# sched_switch probe on for the whole machine; the cookies still come.
. ./lib.sh
ustack_load
./bin/hostile flood 1 >/tmp/self.out || fail "hostile: $(cat /tmp/self.out)"
cat /tmp/self.out
grep -q 'self requests: [1-9]' /tmp/self.out || fail "no self request made"
[ "$(stat_of engine_on)" = 0 ] || fail "a self request switched the engine on"
[ "$(stat_of tasks)" = 0 ] || fail "self requests hold $(stat_of tasks) task states"
out=$(bin/sframe_api args 2>&1) || fail "sframe_api args: $out"
[ "$(stat_of engine_on)" = 0 ] || fail "SELF_STACK switched the engine on"
ustack_unload
