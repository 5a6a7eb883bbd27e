# stays.awk: the stays of one process in the ustack trace events (busybox
# awk, in the arm64 guest), where the stay ends at the return probe on
# the exit work (module/stay_exitprobe.c).
#   awk -v pid=P -v name=N -f stays.awk TRACE
# Every ustack:sample of pid P names its stay's cookie; each cookie must
# have exactly one ustack:user_stack (one walk per stay, delivered once).
# A CPU-bound program is interrupted in user mode at each tick, so each
# tick is a stay of its own: a stay that never ended would gather the
# ticks after it under its cookie.  PASS when no walk is repeated, at
# most 1% of the samples share a cookie with an earlier one and at most
# 1% have no walk (a tick at the program's exit, once task_work is
# closed, goes out with its kernel stack alone).
!index($0, " pid=" pid " ") { next }
/ sample: / {
	c = $0; sub(/.*cookie=/, "", c); sub(/ .*/, "", c)
	samples++
	if (seen[c]++)
		shared++
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
	v = samples >= 100 && !repeated && shared * 100 <= samples &&
	    unwalked * 100 <= samples ? "PASS" : "FAIL"
	printf "%s: arm64/stays-%s (%d samples, %d sharing an earlier one's cookie, %d cookies without a walk, %d walks repeated)\n",
		v, name, samples, shared, unwalked + 0, repeated + 0
}
