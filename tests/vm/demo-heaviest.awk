# make demo: the heaviest user stacks of each program.  Reads ustack-report's
# perf-style output; samples of a program whose user frames name the same
# functions count as one stack (kernel frames, addresses and offsets are
# left out: they split one code path into many).  Prints, for each program
# of PROGS, its TOP stacks by samples, leaf first, at most MAXF frames each.
# Runs in the guest's busybox awk.
function flush() {
	if (comm != "" && (comm in want)) {
		if (!((comm, st) in cnt))
			keys[comm, ++nk[comm]] = st
		cnt[comm, st]++
		tot[comm]++
	}
	comm = ""
	st = ""
}
BEGIN {
	np = split(PROGS, prog, " ")
	for (i = 1; i <= np; i++)
		want[prog[i]] = 1
}
/^[^ \t]/ {
	flush()
	comm = $0
	sub(/ [0-9]+\/[0-9]+ \[.*$/, "", comm)
	next
}
/^[ \t]/ {
	if ($0 ~ /\(\[kernel\.kallsyms\]\)$/)
		next
	line = $0
	sub(/^[ \t]*[0-9a-f]+ /, "", line)
	sub(/\+0x[0-9a-f]+ \(/, " (", line)
	st = st "|" line
	next
}
{ flush() }
END {
	flush()
	for (i = 1; i <= np; i++) {
		c = prog[i]
		if (!tot[c])
			continue
		print ""
		printf "%s, %d sample%s:\n", c, tot[c], tot[c] == 1 ? "" : "s"
		for (t = 1; t <= TOP; t++) {
			best = ""
			bc = 0
			for (j = 1; j <= nk[c]; j++) {
				s = keys[c, j]
				if (!((c, s) in used) && cnt[c, s] > bc) {
					bc = cnt[c, s]
					best = s
				}
			}
			if (!bc)
				break
			used[c, best] = 1
			printf "  %d sample%s (%.1f%%):\n", bc, bc == 1 ? "" : "s", 100 * bc / tot[c]
			nf = split(substr(best, 2), f, "|")
			if (nf == 0)
				print "      [no user stack]"
			for (k = 1; k <= nf && k <= MAXF; k++) {
				l = "      " f[k]
				if (length(l) > 80)
					l = substr(l, 1, 77) "..."
				print l
			}
			if (nf > MAXF)
				printf "      ... %d more\n", nf - MAXF
		}
	}
}
