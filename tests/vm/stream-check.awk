# Check a text recording of /dev/ustack against a workload's expectations.
#   awk -f syms.awk -f stream-check.awk -v comm=NAME -v syms=FILE -v obj=PATH \
#       -v chain=f1,f2,f3 [-v event=cpu-clock] [-v min_samples=N] \
#       [-v exact_samples=N] [-v kchain=sym] [-v ends=outermost] \
#       [-v hot=f,g [-v min_hot_pct=50]] [-v names=bin/names] RECORDING
# comm's samples (of `event`, if set) must each have a user record with the
# same cookie and tid, before or after them (or as many as are missing must
# be counted in lost records' users); the user record of each such
# sample ends with one of `ends`; user frames in `obj`, symbolized with `syms` (nm -n), contain
# `chain` (innermost first) in order; user-record cookies are unique;
# `kchain`, if set, must appear in each sample's kernel stack.  With `hot`,
# the end and chain checks apply only to stacks whose first frame is in one
# of the `hot` functions (time spent in the program's own loop, not in its
# start-up), and at least min_hot_pct% of the sampled stacks must be such.
# Every event, end reason and method, in the recording and in `event` and
# `ends`, must be a name of include/ustack_names.h (`names`: "KIND NAME
# CODE" lines, made by scripts/ustack_names.py), so that a renamed or new
# name cannot slip past the checks that compare names.
function fail(msg) {
	if (nfail < 10) print "FAIL: " msg
	nfail++
}
function known(kind, name,    base) {
	base = name
	# syscall:<name>, tp:<system>:<name>, kprobe:<function>: the event
	# is "syscall", "tp", "kprobe", never alone
	if (kind == "event" && (name ~ /^(syscall|tp|kprobe)$/ ||
	    (sub(/:.*/, "", base) && base !~ /^(syscall|tp|kprobe)$/))) base = ""
	if ((kind, base) in vocab) return 1
	if (!((kind, name) in unknown)) fail(kind " '" name "' is not in ustack_names.h")
	unknown[kind, name] = 1
	return 0
}
BEGIN {
	if (names == "") names = "bin/names"
	while ((getline line < names) > 0) {
		split(line, f, " ")
		vocab[f[1], f[2]] = 1; nvocab++
	}
	if (!nvocab) fail("no names in " names)
	if (event != "") known("event", event)
	while ((getline line < syms) > 0) {
		split(line, f, " ")
		if (f[2] !~ /^[tTwW]$/) continue
		nsyms++; saddr[nsyms] = hex(f[1]); sname[nsyms] = f[3]
	}
	nchain = split(chain, want, ",")
	nhot = split(hot, hotf, ",")
	if (min_hot_pct == "") min_hot_pct = 50
	if (ends == "") ends = "outermost"
	nends = split(ends, endok, ",")
	for (i = 1; i <= nends; i++) known("end", endok[i])
	mode = ""
}
/^sample / {
	mode = "sample"; in_comm = (kv("comm") == comm)
	known("event", kv("event"))
	if (in_comm && (event == "" || kv("event") == event)) {
		c = kv("cookie"); tid = kv("tid")
		nsamples++
		if (c == "0x0000000000000000") { nkonly++; next }	# exiting: kernel only
		if (c in sample_tid && sample_tid[c] != tid)
			fail("cookie " c " shared by tids " sample_tid[c] " and " tid)
		sample_tid[c] = tid; comm_pid = kv("pid")
		cur_sample = c; kfound[c] = (kchain == "")
	} else cur_sample = ""
	next
}
/^user / {
	mode = "user"; c = kv("cookie")
	cur_user = ""
	if (c in user_seen) { fail("two user records for cookie " c); next }
	user_seen[c] = 1
	# kept whether or not its samples came yet: a sample taken on the
	# way back to user space after the walk follows the user record
	cur_user = c; user_tid[c] = kv("tid")
	user_end[c] = kv("end")
	known("end", user_end[c])
	frames[c] = ""
	next
}
/^lost / { mode = ""; nlost++; lost_users += kv("users"); next }
/^[a-z]/ { mode = ""; next }
/^[ \t]+kernel / {
	if (mode == "sample" && cur_sample != "" && kchain != "" && index($0, kchain)) kfound[cur_sample] = 1
	next
}
/^[ \t]+user / {
	if (mode == "user") known("method", $3)
	if (mode != "user" || cur_user == "") next
	split($4, o, "+")
	name = "[" o[1] "]"
	if (o[1] == obj) name = sym_of(hex(o[2]))
	frames[cur_user] = frames[cur_user] " " name
	next
}
END {
	for (c in sample_tid) {
		ncookies++
		if (!(c in user_tid)) { nmissing++; continue }
		nuser++
		if (user_tid[c] != sample_tid[c]) fail("cookie " c ": sample tid " sample_tid[c] ", user tid " user_tid[c])
		if (!kfound[c]) fail("sample " c ": no " kchain " in its kernel stack")
		n = split(frames[c], fr, " ")
		if (nhot) {
			ishot = 0
			for (i = 1; i <= nhot; i++) if (fr[1] == hotf[i]) ishot = 1
			if (!ishot) continue
			nhotseen++
		}
		ok = 0
		for (i = 1; i <= nends; i++) if (user_end[c] == endok[i]) ok = 1
		if (!ok) { fail("user record " c " ends " user_end[c] ":" frames[c]); nbadend++ }
		j = 1
		for (i = 1; i <= n && j <= nchain; i++) if (fr[i] == want[j]) j++
		if (j <= nchain) { fail("cookie " c ": frames" frames[c] " lack " chain); nbadchain++ }
	}
	# a user record the ring had no room for is counted in a lost record
	if (nmissing > lost_users)
		fail(nmissing " samples without their user record, " (lost_users + 0) " user records lost")
	if (min_samples != "" && nsamples < min_samples) fail(nsamples " samples < " min_samples)
	if (nkonly * 20 > nsamples) fail(nkonly " of " nsamples " samples without a cookie")
	if (nhot && nhotseen * 100 < ncookies * min_hot_pct) fail("only " nhotseen " of " ncookies " stacks in " hot)
	if (exact_samples != "" && nsamples != exact_samples) fail(nsamples " samples != " exact_samples)
	printf "samples=%d kernel-only=%d hot=%d users=%d missing=%d badend=%d badchain=%d lost=%d\n",
		nsamples, nkonly, nhotseen, nuser, nmissing, nbadend, nbadchain, nlost
	exit nfail > 0
}
