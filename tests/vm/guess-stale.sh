# kernels: 6.1 6.12 debug
# The stack scan's false positives are labelled as guesses: bin/guess_prog
# (no unwind tables, frame pointers or .eh_frame) spins in s_spin below
# s_leaf, whose dead local array holds real return addresses of s_decoy's
# calls of s_leaf, long returned from (as plausible as the live one).  With guess=1 the scan takes some of them for
# frames (s_decoy, which is not on the stack): every frame after the
# interrupted IP says guess, none sframe or fp.
. ./lib.sh
ustack_load sample_hz=999 guess=1
record_start /tmp/rec
./bin/guess_prog stale 3 || fail "guess_prog"
record_stop
awk -f syms.awk -f guess-check.awk -v comm=guess_prog -v syms=bin/guess_prog.syms \
	-v obj=/tests/vm/bin/guess_prog -v hot=s_spin -v decoy=s_decoy -v min_hot=$(per_hz 50) \
	/tmp/rec || fail "stale stacks"
ustack_unload
