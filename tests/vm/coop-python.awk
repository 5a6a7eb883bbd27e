# coop-python: read a text stream (_coop-python.sh gives -v EVAL="lo hi
# [lo hi]", the interpreter's evaluator, -v LANG, the answers' lang, and
# -v PID).  A sample of PID is "in Python
# code" when its user stack has an evaluator frame; it is answered when an
# interp record of its (tid, cookie) came; samples taken under a signal
# frame (the shim's handler answering) are counted apart.  An answer is in call order when,
# outermost first, its frames of coop_prog.py start with <module> main or
# worker, and each function is called by one that can call it (3.11's
# comprehensions run in frames of their own, 3.12's on are inlined).
function hex(s,   i, c, v) {
	v = 0
	s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1)) - 1
		v = v * 16 + c
	}
	return v
}
function field(name,   i) {
	for (i = 2; i <= NF; i++)
		if (index($i, name "=") == 1)
			return substr($i, length(name) + 2)
	return ""
}
BEGIN {
	ne = split(EVAL, e, " ")
	callers["main"] = "<module>"
	callers["worker"] = "Thread.run"
	callers["fib"] = "fib main worker"
	callers["Tree.__init__"] = "Tree.__init__.<locals>.<listcomp> Tree.__init__ main worker"
	callers["Tree.__init__.<locals>.<listcomp>"] = "Tree.__init__"
	callers["Tree.count"] = "Tree.count.<locals>.<genexpr> main worker"
	callers["Tree.count.<locals>.<genexpr>"] = "Tree.count"
	callers["squares"] = "main"
	callers["main.<locals>.<listcomp>"] = "main"
	callers["digit_sum"] = "main"
}
/^[a-z]/ { mode = "" }
/^sample / && field("pid") == PID {
	key = field("tid") " " field("cookie")
	sampled[key] = 1
	mode = ""
}
/^user / && field("pid") == PID {
	ukey = field("tid") " " field("cookie")
	mode = "user"
	next
}
mode == "user" && $1 == "user" {
	ip = hex($2)
	stack[ukey] = stack[ukey] " " $3 ":" $4
	for (i = 1; i < ne; i += 2)
		if (ip >= e[i] && ip < e[i + 1])
			inpy[ukey] = 1
	# Under a signal frame: in the shim's handler, answering.
	if ($3 == "signal")
		inhandler[ukey] = 1
	next
}
/^interp / && field("pid") == PID {
	ikey = field("tid") " " field("cookie")
	answered[ikey] = 1
	nanswers++
	if (field("lang") != LANG)
		badlang++
	mode = "interp"
	n = 0
	next
}
mode == "interp" && $1 == "interp" {
	# $2 function, $3 file:line (innermost first); keep the program's
	if ($3 ~ /coop_prog\.py:[0-9]+$/ || $2 == "Thread.run")
		fr[ikey, ++n] = $2
	nfr[ikey] = n
	next
}
END {
	for (k in inpy) {
		if (!(k in sampled))
			continue
		if (k in inhandler) {
			handler++
			continue
		}
		py++
		if (k in answered)
			ok++
		else {
			# a native walk with no SFrame: the object was not covered yet
			if (stack[k] !~ / sframe:/)
				uncovered++
			if (nmiss++ < 3)
				print "unanswered: " k " " stack[k]
		}
	}
	for (k in nfr) {
		n = nfr[k]
		if (!n)
			continue	# no frame of the program: nothing to order
		judged++
		good = 1
		for (i = n; good && i >= 1; i--) {
			f = fr[k, i]
			if (i == n) {
				good = f == "<module>" || f == "Thread.run"
				continue
			}
			c = fr[k, i + 1]
			if (f == "Thread.run")
				good = 0
			else if (!(f in callers) || index(" " callers[f] " ", " " c " ") == 0)
				good = 0
		}
		if (good)
			ordered++
		else if (nbad++ < 5) {
			s = ""
			for (i = n; i >= 1; i--)
				s = s " " fr[k, i]
			print "out of order:" s
		}
		seen[fr[k, 1]] = 1
	}
	printf "python_samples %d answered %d answers %d in_order %d bad_lang %d judged %d in_handler %d uncovered %d\n", py, ok, nanswers, ordered, badlang, judged, handler, uncovered
	for (f in seen)
		names = names " " f
	print "innermost:" names
}
