# The vDSO stacks of one program in a text recording of /dev/ustack
# (sframe-store-vdso.sh).
#   awk -f syms.awk -f vdso-check.awk -v pid=PID -v obj=PATH -v syms=FILE \
#       -v base=VDSO_START RECORDING
# Prints "N OK REACH BAD": the program's user records whose first frame is
# in [vdso]; REACH of them have the chain vdso_calls .. main in the program
# and end outermost, OK of those also the frame above the vDSO's by
# sframe; BAD [vdso] frames whose address is not the vDSO's start plus
# their offset.  The first three incomplete ones go to stderr.
function done(    i, j) {
	if (!cur || first != "[vdso]") { cur = 0; return }
	n++
	j = 1
	for (i = 1; i <= nf && j <= nchain; i++) if (fr[i] == want[j]) j++
	if (j > nchain && end == "outermost") reach++
	if (j > nchain && end == "outermost" && m2 == "sframe") ok++
	else if (nshow++ < 3) print "incomplete: end=" end " method above [vdso]=" m2 ":" list >"/dev/stderr"
	cur = 0
}
BEGIN {
	while ((getline line < syms) > 0) {
		split(line, f, " ")
		if (f[2] ~ /^[tT]$/) { nsyms++; saddr[nsyms] = hex(f[1]); sname[nsyms] = f[3] }
	}
	nchain = split("vdso_calls,level3,level2,level1,main", want, ",")
	base = hex(base)
}
/^user / { done(); cur = (kv("pid") == pid); end = kv("end"); nf = 0; first = ""; m2 = ""; list = ""; next }
/^[a-z]/ { done(); next }
/^[ \t]+user / && cur {
	split($4, o, "+")
	if (o[1] == "[vdso]" && hex($2) != base + hex(o[2])) bad++
	if (!nf) first = o[1]
	if (nf == 1) m2 = $3
	fr[++nf] = o[1] == obj ? sym_of(hex(o[2])) : o[1]
	list = list " " fr[nf]
}
END { done(); print n + 0, ok + 0, reach + 0, bad + 0 }
