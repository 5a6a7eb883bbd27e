# stays.awk: the stays of one process in the ustack trace events (busybox
# awk, in the arm64 guest), where the stay ends at the return probe on
# the exit work (module/stay_exitprobe.c).
#   awk -v pid=P -v name=N -f stays.awk TRACE
# Every ustack:sample of pid P names its stay's cookie; each cookie must
# have exactly one ustack:user_stack (one walk per stay, delivered once).
# A tick that lands in user mode (an empty kernel stack) follows a return
# to user space, so it nearly always begins a stay of its own.  Not
# always: the interrupt controller's handler takes every interrupt
# pending before it returns, and a PMU overflow that comes while the
# first is handled (under TCG, often while the host is loaded: 2-4% of
# the ticks in make check, 0.03% on an idle host) is a second sample of
# the same kernel entry, with the same user registers, rightly of the
# same stay.  A stay whose end is never seen gathers every later tick
# under its cookie.  PASS when no walk is repeated, no cookie has more
# than 8 user-mode ticks, at most 10% of them share one, and at most 1%
# of the samples have no walk (a tick at the program's exit, once
# task_work is closed, goes out with its kernel stack alone).
!index($0, " pid=" pid " ") { next }
/ sample: / {
	c = $0; sub(/.*cookie=/, "", c); sub(/ .*/, "", c)
	samples++
	seen[c]++
	if (/ kstack=\{\}/ && user[c]++) {
		if (shared++ < 3)
			print "arm64-vm: " name ": user-mode ticks share: " first[c] " / " $0
		if (user[c] > most)
			most = user[c]
	}
	first[c] = $0
}
/ user_stack: / {
	c = $0; sub(/.*cookie=/, "", c); sub(/ .*/, "", c)
	if (walks[c]++)
		repeated++
}
END {
	for (c in seen)
		if (!(c in walks))
			unwalked++
	v = samples >= 50 && !repeated && most <= 8 && shared * 10 <= samples &&
	    unwalked * 100 <= samples ? "PASS" : "FAIL"
	printf "%s: arm64/stays-%s (%d samples, %d user-mode ticks sharing an earlier one's cookie, at most %d on one, %d cookies without a walk, %d walks repeated)\n",
		v, name, samples, shared, most ? most : 1, unwalked + 0, repeated + 0
}
