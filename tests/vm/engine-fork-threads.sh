# Fork: the child starts clean (its own cookie, its own walk).  1000
# threads released at once: one sample, one cookie and one user record
# each, nothing lost or mixed up.
. ./lib.sh
ustack_load sample_hz=0 syscalls=getppid max_tasks=2048
record_start /tmp/rec
./bin/hazard fork || fail "fork"
./bin/hazard threads 1000 || fail "threads"
record_stop 1
awk '/^sample / && $8 == "comm=hazard" { n++; c[$2]++; tid[$2] = $4 }
     /^user / { u[$2] = $4 }
     END {
	for (k in c) {
		if (c[k] > 1) { print "cookie " k " on " c[k] " samples"; bad++ }
		if (!(k in u)) { print "no user record for " k; bad++ }
		else if (u[k] != tid[k]) { print "cookie " k " tid mismatch"; bad++ }
	}
	print n " samples"
	if (n < 1002) { print "want 1002 samples (2 fork + 1000 threads)"; bad++ }
	exit bad > 0 }' /tmp/rec || fail "fork/threads"
# The forked child's sample has its own pid.
pids=$(awk '/^sample / && $8 == "comm=hazard" { print $3 }' /tmp/rec | head -2 | sort -u | wc -l)
[ "$pids" = 2 ] || fail "fork: parent and child samples share a pid"
grep -q '^nomem 0' /sys/kernel/debug/ustack/stats || fail "pool exhausted"
ustack_unload
