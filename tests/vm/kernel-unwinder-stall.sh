# kernel_unwinder where a user's own stack never answers: uid 65534's
# process spins with its frame pointer at a page that userfaultfd holds
# (the stand-in for a FUSE file that never answers), and the same user
# records it with perf --call-graph fp,defer --user-callchains (what
# perf_event_paranoid 2 lets a user record).
# The walk for the kernel's unwinder faults there and waits as long as
# the user likes.  Meanwhile root's `echo 0 > kernel_unwinder` and the
# parameter's read return at once (they waited for the walk before), and
# `modprobe -r ustack` is refused as in use, at once (it hung in D state);
# once the user lets go (killed), the module unloads.
# kernels: sid
# perf: sid
# timeout: 300
. ./lib.sh
PERF=perf-sid
command -v $PERF >/dev/null || fail "no perf of sid in the guest"
p=/sys/module/ustack/parameters/kernel_unwinder
ustack_load kernel_unwinder=1
echo 1 >/proc/sys/vm/unprivileged_userfaultfd || fail "vm.unprivileged_userfaultfd"
echo 2 >/proc/sys/kernel/perf_event_paranoid || fail "perf_event_paranoid"
S= P= O=
trap 'kill -9 $S $P $O 2>/dev/null' EXIT
bin/as_nobody bin/fault_stall >/tmp/stall.out 2>&1 & S=$!
i=0
until grep -q '^ready' /tmp/stall.out; do
	i=$((i + 1)); [ $i -lt 100 ] || fail "fault_stall: $(cat /tmp/stall.out)"
	sleep 0.1
done
bin/as_nobody $PERF record -q -N -e cpu-clock -F 99 --call-graph fp,defer --user-callchains \
	-p $S -o /tmp/stall.data >/tmp/perf.out 2>&1 & P=$!
# the walk waits in the user's fault
i=0
until grep -q handle_userfault /proc/$S/stack 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 300 ] || fail "the walk never reached the page (perf: $(cat /tmp/perf.out); stack: $(tr '\n' ' ' </proc/$S/stack))"
	sleep 0.1
done
echo "walk stalled: $(grep -m3 -e ustack -e unwind /proc/$S/stack | tr -s ' \n' ' ')"

# within LIMIT tenths of a second, CMD has ended: prints its status
ends_within() {
	lim=$1; shift
	rm -f /tmp/ends
	(sh -c "$*" >/tmp/ends.out 2>&1; echo $? >/tmp/ends) & O=$!
	i=0
	until [ -s /tmp/ends ]; do
		i=$((i + 1)); [ $i -lt "$lim" ] || return 1
		sleep 0.1
	done
	O=
	cat /tmp/ends
}
st=$(ends_within 50 "echo 0 >$p") || fail "echo 0 > kernel_unwinder waits for the user's fault"
[ "$st" = 0 ] || fail "echo 0 > kernel_unwinder: $(cat /tmp/ends.out)"
st=$(ends_within 50 "cat $p") || fail "reading kernel_unwinder waits for the user's fault"
[ "$(cat /tmp/ends.out)" = 0 ] || fail "kernel_unwinder reads $(cat /tmp/ends.out)"
grep -q handle_userfault /proc/$S/stack || fail "the walk ended before the unload was tried"
st=$(ends_within 50 "modprobe -r ustack") || fail "modprobe -r waits for the user's fault"
[ "$st" != 0 ] && [ -d /sys/module/ustack ] || fail "unloaded while a walk of ours still ran"
echo "with the walk stalled: kernel_unwinder off and read at once, modprobe -r refused: $(tr '\n' ' ' </tmp/ends.out)"
kill -9 $S
wait $S 2>/dev/null
S=
kill -INT $P
wait $P 2>/dev/null
P=
ustack_unload
echo 0 >/proc/sys/vm/unprivileged_userfaultfd
