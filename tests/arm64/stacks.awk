# stacks.awk: the user stacks of one process in the ustack:user_stack
# trace events, against its symbols (busybox awk, in the arm64 guest).
#   awk -v pid=P -v name=N -f stacks.awk SYMS TRACE
# SYMS: `nm -S` of the static program (address, size, type, name): the
# functions to name, others are "?".
# Counts the stacks of pid P whose tick landed in the workload's loop
# (cpu_inner, cpu_outer, run_cpu) and, of those, the ones that hold the
# loop's callers up to main in order (cpu_inner > cpu_outer > run_cpu >
# main); ticks elsewhere (libc's start, the exit) are counted apart.
# Prints a PASS or FAIL line (at least 99% whole) and the ends and walk
# methods seen.
FNR == NR {
	if (NF == 4 && $3 ~ /^[tT]$/) {
		n++; lo[n] = ("0x" $1) + 0; hi[n] = lo[n] + ("0x" $2); fn[n] = $4
	}
	next
}
function name_of(ip,	i) {
	for (i = 1; i <= n; i++)
		if (ip >= lo[i] && ip < hi[i])
			return fn[i]
	return "?"
}
/ user_stack: / && index($0, " pid=" pid " ") {
	total++
	s = $0; sub(/.* end=/, "", s); sub(/ .*/, "", s); ends[s]++
	s = $0; sub(/.* methods=\{/, "", s); sub(/\}.*/, "", s)
	k = split(s, m, ","); for (i = 1; i <= k; i++) methods[m[i]]++
	s = $0; sub(/.* ips=\{/, "", s); sub(/\}.*/, "", s)
	k = split(s, ip, ",")
	chain = ""
	for (i = 1; i <= k; i++)
		chain = chain " " name_of(ip[i] - (i > 1))
	if (chain !~ /^ (cpu_inner|cpu_outer|run_cpu) /) {
		elsewhere++
		next
	}
	loop++
	if (chain ~ / main( |$)/)
		mains++
	if (chain ~ /^ (cpu_inner cpu_outer |cpu_outer )?run_cpu main( |$)/)
		whole++
	else if (bad++ < 3)
		print "arm64-vm: " name ": not whole:" chain
}
END {
	e = ""; for (s in ends) e = e " " s "=" ends[s]
	mm = ""; for (s in methods) mm = mm " " s "=" methods[s]
	v = loop >= 50 && whole * 100 >= loop * 99 ? "PASS" : "FAIL"
	printf "%s: arm64/stacks-%s (%d of %d stacks in the loop whole, %d reach main, %d elsewhere; end:%s; methods:%s)\n",
		v, name, whole, loop, mains, elsewhere + 0, e, mm
}
