# vcpu-places.awk: name where each vCPU is, from QEMU's "info registers -a".
#   -v kmap=FILE     the kernel's text symbols ("ADDR t NAME", /proc/kallsyms
#                    of a nokaslr boot), sorted by address
#   -v modmap=FILE   ustack.ko's .text symbols ("OFFSET NAME"), and
#   -v modbase=ADDR  where that .text was loaded
# Prints "vCPU0 SYMBOL+0xOFF, vCPU1 ..." on one line; a vCPU in HLT is
# marked "(halted)"; an address no table covers stays a number.
function low32(h,   i, v) {	# the low 32 bits of a hex address
	sub(/^0x/, "", h)
	v = 0
	h = tolower(substr(h, length(h) - 7))
	for (i = 1; i <= length(h); i++)
		v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	return v
}
BEGIN {
	n = 0
	if (kmap != "")
		while ((getline l < kmap) > 0) {
			split(l, f, " ")
			if (f[2] ~ /^[tT]$/) { a[n] = f[1]; s[n++] = f[3] }
		}
	m = 0
	if (modmap != "")
		while ((getline l < modmap) > 0) {
			split(l, f, " ")
			mo[m] = low32(f[1]); ms[m++] = f[2]
		}
}
/^CPU#/ { cpu = substr($1, 5) }
/^RIP=/ {
	rip = tolower(substr($1, 5))
	where = rip
	if (rip ~ /^ffffffffc/ && modbase != "") {	# module space
		off = low32(rip) - low32(modbase); best = -1
		for (i = 0; i < m; i++)
			if (mo[i] <= off && (best < 0 || mo[i] > mo[best]))
				best = i
		if (off >= 0 && best >= 0)
			where = sprintf("%s+0x%x [ustack]", ms[best], off - mo[best])
	} else {	# the kernel: equal-length hex compares as text
		lo = 0; hi = n - 1; best = -1
		while (lo <= hi) {
			mid = int((lo + hi) / 2)
			if (a[mid] <= rip) { best = mid; lo = mid + 1 } else hi = mid - 1
		}
		off = best < 0 ? -1 : low32(rip) - low32(a[best])
		if (off >= 0 && off < 1048576)
			where = sprintf("%s+0x%x", s[best], off)
	}
	printf "%svCPU%s %s%s", sep, cpu, where, ($0 ~ /HLT=1/) ? " (halted)" : ""
	sep = ", "
}
END { if (sep != "") print "" }
