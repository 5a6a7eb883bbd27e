# trace-join.awk: the syscall:write samples of pid W in a text of
# ustack:sample and ustack:user_stack events (trace_pipe, trace-cmd
# report): each has exactly one user_stack of its cookie, and at least 100
# end outermost with 4 frames or more.  Usage: awk -v w=PID -f trace-join.awk FILE
/ sample: / && / event=syscall:write / && $0 ~ (" pid=" w " ") {
	match($0, /cookie=0x[0-9a-f]+/); c = substr($0, RSTART + 7, RLENGTH - 7)
	if (c == "0x0000000000000000") zero++
	s[c]++; ns++ }
/ user_stack: / {
	match($0, /cookie=0x[0-9a-f]+/); c = substr($0, RSTART + 7, RLENGTH - 7)
	u[c]++; line[c] = $0 }
END {
	for (c in s) {
		if (!(c in u)) { miss++; if (miss < 3) print "no user_stack for " c; continue }
		if (u[c] != 1) dup++
		l = line[c]; match(l, /frames=[0-9]+/); f = substr(l, RSTART + 7, RLENGTH - 7)
		if (l ~ / end=outermost / && f + 0 >= 4) good++
		else if (++other < 3) print "other: " l }
	print ns + 0 " samples, " good + 0 " whole, " zero + 0 " cookie 0, " miss + 0 " without user stack, " dup + 0 " twice"
	exit good < 100 || zero || miss || dup || other > 2 }
