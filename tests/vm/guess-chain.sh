# kernels: 6.1 6.12 debug
# The stack scan (guess=1) on a program with no unwind tables, no frame
# pointers and no .eh_frame (bin/guess_prog): of the samples in its
# innermost function g_leaf, at least 90% find its callers g_mid, g_top,
# main, in order, all labelled guess.  guess is writable at run time: with
# guess=0 no frame says guess (the walk ends at the interrupted IP).
. ./lib.sh
ustack_load sample_hz=999 guess=1
[ "$(cat /sys/module/ustack/parameters/guess)" = Y ] || fail "guess parameter"
record_start /tmp/rec
./bin/guess_prog chain 3 || fail "guess_prog"
record_stop
awk -f syms.awk -f guess-check.awk -v comm=guess_prog -v syms=bin/guess_prog.syms \
	-v obj=/tests/vm/bin/guess_prog -v hot=g_leaf -v chain=g_mid,g_top,main \
	-v min_pct=90 -v min_hot=$(per_hz 50) /tmp/rec || fail "guess=1 stacks"
grep -q '^frames_guess [1-9]' /sys/kernel/debug/ustack/stats || fail "no guess in stats"

param_set guess 0
record_start /tmp/rec0
./bin/guess_prog chain 1 || fail "guess_prog"
record_stop
grep -q '^sample .*comm=guess_prog' /tmp/rec0 || fail "no samples with guess=0"
! grep -q ' guess ' /tmp/rec0 || fail "a guess frame with guess=0: $(grep -m3 ' guess ' /tmp/rec0)"
! grep -q -e 'end=scan-end' -e 'end=scan-fault' /tmp/rec0 || fail "a scan end with guess=0"
cat /sys/kernel/debug/ustack/stats
ustack_unload
