# Check the stack scan's stacks of one program in a text recording of
# /dev/ustack (guess-*.sh).
#   awk -f syms.awk -f guess-check.awk -v comm=NAME -v syms=FILE -v obj=PATH -v hot=FUNC \
#       [-v chain=f1,f2,...] [-v min_pct=90] [-v decoy=FUNC] [-v min_hot=50] \
#       RECORDING
# Stacks are the user records joined by (tid, cookie) to samples of comm,
# in either order; a hot stack's first frame is in hot (symbolized by file
# offset with syms, `nm -n`).  Fails when: fewer than min_hot hot stacks;
# any frame of a hot stack but the first has a method other than guess
# (no rule covers the program's code and its rbp is 0: sframe or fp would
# be a guess passed off as a fact; its start-up in libc and ld.so, with
# rbp in use, may walk by frame pointers); with chain, fewer than min_pct% of hot stacks have
# exactly chain as their next frames in obj, in order; with decoy, no hot
# stack has a frame in decoy (the false positive the stale return
# addresses must produce, labelled guess).
BEGIN {
	if (min_pct == "") min_pct = 90
	if (min_hot == "") min_hot = 50
	while ((getline line < syms) > 0) {
		split(line, f, " ")
		if (f[2] !~ /^[tTwW]$/) continue
		nsyms++; saddr[nsyms] = hex(f[1]); sname[nsyms] = f[3]
	}
	nchain = chain == "" ? 0 : split(chain, want, ",")
}
/^sample / { cur = ""; if (kv("comm") == comm) ours[kv("tid") "/" kv("cookie")] = 1; next }
/^user / { cur = kv("tid") "/" kv("cookie"); n[cur] = 0; ends[cur] = kv("end"); next }
/^[ \t]+user / {
	if (cur == "") next
	k = ++n[cur]
	meth[cur, k] = $3
	o = $4; p = 0
	while ((i = index(substr(o, p + 1), "+0x")) > 0) p += i
	fn[cur, k] = (p && substr(o, 1, p - 1) == obj) ? sym_of(hex(substr(o, p + 1))) : "-"
	next
}
/^[a-z]/ { cur = "" }
END {
	for (key in ours) {
		if (!(key in n)) continue
		stacks++
		if (fn[key, 1] != hot) continue
		hot_n++
		for (k = 2; k <= n[key]; k++)
			if (meth[key, k] != "guess") {
				bad++
				if (bad <= 5) printf "not a guess: %s frame %d %s %s\n", key, k, meth[key, k], fn[key, k]
			}
		endc[ends[key]]++
		for (k = 2; k <= n[key]; k++)
			if (fn[key, k] == decoy) { decoys++; break }
		m = 0; ok = nchain > 0
		for (k = 2; k <= n[key] && m < nchain; k++) {
			if (fn[key, k] == "-") continue
			if (fn[key, k] != want[++m]) ok = 0
		}
		if (m < nchain) ok = 0
		if (ok) good++
		else if (nchain && shown++ < 3) {
			printf "chain missed in %s:", key
			for (k = 1; k <= n[key]; k++) printf " %s/%s", fn[key, k], meth[key, k]
			printf "\n"
		}
	}
	printf "stacks %d hot %d chain %d decoys %d not-guess %d ends", stacks, hot_n, good, decoys, bad
	for (e in endc) printf " %s:%d", e, endc[e]
	printf "\n"
	if (hot_n < min_hot) { print "FAIL: " hot_n " hot stacks, want " min_hot; exit 1 }
	if (bad) { print "FAIL: frames not labelled guess"; exit 1 }
	if (nchain && good * 100 < min_pct * hot_n) {
		print "FAIL: chain " chain " in " good " of " hot_n " hot stacks"; exit 1
	}
	if (decoy != "" && !decoys) { print "FAIL: no false positive in " decoy; exit 1 }
}
