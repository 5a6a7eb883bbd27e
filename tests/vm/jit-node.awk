# jit-node: read ustack-report's perf-script output (-v PID: node).  A
# sample of node's main thread is in JIT code when its innermost user
# frame is in anonymous memory; counted from the first sample that names
# a function of jit_prog.js (the script running).  It is good when its
# frames of jit_prog.js (fa, fb, fc, fd, named from node's perf map),
# outermost first, begin with fa and go down the chain in order, and
# node's native frames hold them: main or node::Start further out, and a
# native frame of node's between it and fa.  Prints the first good
# sample's stack and up to four bad ones.
function flush(   i, k, last, nat, ok, start) {
	if (!inblock)
		return
	inblock = 0
	if (tid != PID || !nu)
		return
	if (!t0 && nscript)
		t0 = time
	if (!t0 || time < t0 || uobj[1] != "[anon]")
		return
	jit++
	ok = nscript > 0 && sfn[nscript] == "fa"
	last = 0
	for (i = nscript; ok && i >= 1; i--) {
		k = index("abcd", substr(sfn[i], 2, 1))
		ok = k > last
		last = k
	}
	# node::Start (or main) outside the script's frames, native between
	start = 0
	for (i = nu; i >= 1; i--)
		if (uname[i] ~ /^(main|node::Start)(\(|\+|$)/) { start = i; break }
	nat = 0
	for (i = start - 1; ok && i > sidx[nscript]; i--)
		if (uobj[i] != "[anon]")
			nat++
	ok = ok && start > sidx[nscript] && nat > 0
	if (ok && good++)
		return
	if (!ok && nbad++ >= 4)
		return
	s = ""
	for (i = nu; i >= 1; i--)
		s = s ";" uname[i]
	print (ok ? "in order:" : "not in order:") s
}
/^[^\t]/ {
	flush()
	inblock = 1
	split($2, pt, "/")
	tid = pt[2]
	time = $4 + 0
	nu = nscript = 0
	next
}
/^\t/ && inblock {
	line = $0
	sub(/^\t */, "", line)
	ip = line
	sub(/ .*/, "", ip)
	rest = substr(line, length(ip) + 2)
	obj = rest
	sub(/.*\(/, "", obj)
	sub(/\)$/, "", obj)
	name = rest
	sub(/ \([^()]*\)$/, "", name)
	if (obj == "kernel.kallsyms" || obj ~ /^\[kernel/ || obj ~ /^\[[a-z0-9_]+\]$/ && obj != "[anon]" && obj != "[vdso]")
		next
	nu++
	uname[nu] = name
	uobj[nu] = obj
	if (name ~ /jit_prog\.js/ && match(name, /f[abcd] /)) {
		nscript++
		sfn[nscript] = substr(name, RSTART, 2)
		sidx[nscript] = nu
	}
}
END {
	flush()
	printf "jit_samples %d good %d\n", jit, good
}
