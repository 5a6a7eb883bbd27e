# A tick inside rt_sigreturn, the system call that ends every signal
# handler (src/sig_return.c signals itself in a loop, under the shim:
# libc covered): the request's registers are the trampoline's, past its
# system call, SP at the signal frame's ucontext, and no rule covers that
# PC.  The walk steps through the signal frame first
# (SFRAME_WALK_IN_SIGRETURN), so at least 95% of those stacks reach the
# outermost frame through the program's level1 and main (before: none,
# bad frames: cfa-not-above-sp).
# kernels: 6.1 sid
. ./lib.sh
ustack_load sample_hz=999
record_start /tmp/sig.rec
sframe-register run bin/sig_return 4 >/tmp/sig.out 2>&1 &
P=$!
wait $P || fail "sig_return: exit $?: $(head -3 /tmp/sig.out)"
record_stop 1
cat /tmp/sig.out
ustack-report --perf -v --pid $P /tmp/sig.rec >/tmp/sig.perf || fail "ustack-report"
# "sigreturn N GOOD others N OUTERMOST": a stack in rt_sigreturn is good
# when it reaches the outermost frame through level1 and main; the first
# three that are not, whole.
awk '
function flush() {
	if (hdr == "")
		return
	if (!ins) {
		m++; mok += hdr ~ / end=outermost /
	} else if (hdr ~ / end=outermost / && blk ~ / level1\+/ && blk ~ / main\+/) {
		ok++
	} else if (n - ok < 3) {
		printf "not outermost:\n%s", blk
	}
	n += ins; hdr = ""
}
/^[^\t]/ { flush(); hdr = $0; blk = $0 "\n"; ins = 0; next }
{ blk = blk $0 "\n" }
/rt_sigreturn/ { ins = 1 }
END { flush(); print "sigreturn", n + 0, ok + 0, "others", m + 0, mok + 0 }' /tmp/sig.perf >/tmp/sig.res
cat /tmp/sig.res
set -- $(sed -n 's/^sigreturn //p' /tmp/sig.res)
[ "$1" -ge 20 ] || fail "only $1 samples in rt_sigreturn"
[ $(($2 * 100)) -ge $(($1 * 95)) ] || fail "$2 of $1 stacks in rt_sigreturn reach the outermost frame (< 95%)"
echo "sigreturn: $2 of $1 stacks in rt_sigreturn and $5 of $4 others reach the outermost frame"
