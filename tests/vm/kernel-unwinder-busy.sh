# kernel_unwinder (issue 27) where someone else redirects unwind_user()
# already (a livepatch, another module's IPMODIFY ftrace_ops; here the
# test hook ku_squat): writing 1 is refused with EOPNOTSUPP and one log
# line saying so, the parameter stays 0; once the other one is gone, 1
# works, and the other one is refused while ours is on.
# kernels: sid
. ./lib.sh
why='kernel_unwinder: unwind_user() is redirected already'
ustack_load
p=/sys/module/ustack/parameters/kernel_unwinder
sq=/sys/kernel/debug/ustack/ku_squat
echo 1 >$sq || fail "ku_squat: cannot redirect unwind_user()"
refused_eopnotsupp kernel_unwinder "$why"
echo 0 >$sq || fail "ku_squat=0"
echo 1 >$p || fail "kernel_unwinder=1 refused once the other redirect is gone"
if echo 1 >$sq 2>/dev/null; then
	fail "another redirect accepted over ours"
fi
echo 0 >$p || fail "kernel_unwinder=0"
ustack_unload
echo ok
