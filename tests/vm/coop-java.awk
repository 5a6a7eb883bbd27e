# coop-java: read a text stream (-v PID: the JVM).  Its Java thread is the
# one whose answers name CoopChain.main; a sample of it while CoopChain
# runs (from its first sample whose answer names CoopChain.main to its
# last: not the JVM's start-up and exit) is "in Java code" when its
# innermost user frame is in anonymous memory (the code cache: HotSpot's
# interpreter and JIT code) and no frame is under a signal frame (the
# shim's handler answering, counted apart).  A tick in the VM's own code
# called from Java (libjvm: a call resolved, a class loaded, a compile
# asked for) is counted apart too, as in_vm: its answer, if any, names
# the Java frame that called the VM.  A sample is answered when an
# interp record of its (tid, cookie) came, and in order when that
# answer's CoopChain frames, outermost first, are main, a, b, c or the
# first of them (an AsyncGetCallTrace stack: inlined frames included).
function field(name,   i) {
	for (i = 2; i <= NF; i++)
		if (index($i, name "=") == 1)
			return substr($i, length(name) + 2)
	return ""
}
BEGIN { split("CoopChain.main CoopChain.a CoopChain.b CoopChain.c", chain, " ") }
/^[a-z]/ { mode = "" }
/^sample / && field("pid") == PID {
	sampled[field("tid") " " field("cookie")] = field("time") + 0
}
/^user / && field("pid") == PID {
	ukey = field("tid") " " field("cookie")
	utid[ukey] = field("tid")
	mode = "user"
	next
}
mode == "user" && $1 == "user" {
	if (!nu[ukey] && index($4, "[anon]") == 1)
		topjava[ukey] = 1
	if (nu[ukey]++ < 4)
		ustk[ukey] = ustk[ukey] " " $3 ":" $4
	if (index($4, "[anon]") == 1)
		injava[ukey] = 1
	if ($3 == "signal")
		inhandler[ukey] = 1
	next
}
/^interp / && field("pid") == PID {
	ikey = field("tid") " " field("cookie")
	answered[ikey] = 1
	nanswers++
	if (field("lang") != "java")
		badlang++
	mode = "interp"
	n[ikey] = 0
	next
}
mode == "interp" && $1 == "interp" {
	if ($2 ~ /^CoopChain\./) {
		fr[ikey, ++n[ikey]] = $2
		if ($2 == "CoopChain.main")
			maintid[substr(ikey, 1, index(ikey, " ") - 1)] = 1
	}
	next
}
END {
	for (k in n) {
		if (!(k in sampled) || !n[k] || fr[k, n[k]] != "CoopChain.main")
			continue
		t = sampled[k]
		if (!tfirst || t < tfirst)
			tfirst = t
		if (t > tlast)
			tlast = t
	}
	for (k in injava) {
		if (!(k in sampled) || !(utid[k] in maintid) ||
		    sampled[k] < tfirst || sampled[k] > tlast)
			continue
		if (k in inhandler) {
			handler++
			continue
		}
		if (!(k in topjava)) {
			invm++
			invm_ok += k in answered
			continue
		}
		js++
		if (!(k in answered)) {
			if (nmiss++ < 3)
				print "unanswered: " k " at " sampled[k] ":" ustk[k]
			continue
		}
		ok++
		m = n[k]
		good = m > 0 && m <= 4
		for (i = 1; good && i <= m; i++)
			good = fr[k, m + 1 - i] == chain[i]
		if (good) {
			ordered++
			chain_len[m]++
			if (m < 4 && nshort[m]++ < 3)
				print "short chain " m ":" ustk[k]
			if (m == 4)
				full++
		} else if (nbad++ < 5) {
			s = ""
			for (i = m; i >= 1; i--)
				s = s " " fr[k, i]
			print "out of order:" s
		}
	}
	printf "chain_lengths main %d a %d b %d c %d\n", chain_len[1], chain_len[2], chain_len[3], chain_len[4]
	printf "java_samples %d answered %d in_order %d full_chain %d answers %d bad_lang %d in_handler %d in_vm %d in_vm_answered %d\n", js, ok, ordered, full, nanswers, badlang, handler, invm, invm_ok
}
