# Exec between request and walk: the new image's stack is never given the
# old stay's cookie (end=exec).  Exit with a walk pending: delivered with
# end=exit, and the dead mm is never touched.
. ./lib.sh
ustack_load sample_hz=0 syscalls=execve,exit_group
record_start /tmp/rec
./bin/hazard exec || fail "exec"
./bin/hazard exit || fail "exit"
record_stop
# The execve sample of comm=hazard and the user record of its cookie.
end_of() {	# end_of EVENT: the end reason of that event's walk for comm hazard
	c=$(awk -v e="$1" '/^sample / && $8 == "comm=hazard" && $7 == "event=" e { print $2; exit }' /tmp/rec)
	[ -n "$c" ] || fail "no $1 sample"
	awk -v c="$c" '/^user / && $2 == c { split($6, f, "="); print f[2]; exit }' /tmp/rec
}
e=$(end_of syscall:execve)
[ "$e" = exec ] || fail "execve's walk ended '$e', want exec"
e=$(end_of syscall:exit_group)
[ "$e" = exit ] || fail "exit_group's walk ended '$e', want exit"
grep -q '^end_exec [1-9]' /sys/kernel/debug/ustack/stats || fail "end_exec not counted"
ustack_unload
