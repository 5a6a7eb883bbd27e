# Helpers of the VM tests' recording checkers (stream-check.awk,
# guess-check.awk): awk -f syms.awk -f CHECKER.awk ...
# sym_of(off): the function at file offset off, from the arrays saddr[] and
# sname[] (nsyms entries, ascending), which the checker fills from its syms
# file (`nm -n`); hex(s): a hex string's value; kv(key): the value of the
# record's field key=VALUE, "" if it has none.
function sym_of(off,    lo, hi, mid) {
	lo = 1; hi = nsyms
	if (nsyms == 0 || off < saddr[1]) return "?"
	while (lo < hi) {
		mid = int((lo + hi + 1) / 2)
		if (saddr[mid] <= off) lo = mid; else hi = mid - 1
	}
	return sname[lo]
}
function hex(s,    i, n, c) {
	sub(/^0x/, "", s); n = 0
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", tolower(substr(s, i, 1)))
		if (c == 0) break
		n = n * 16 + c - 1
	}
	return n
}
function kv(key,    i) {
	for (i = 2; i <= NF; i++)
		if (index($i, key "=") == 1)
			return substr($i, length(key) + 2)
	return ""
}
