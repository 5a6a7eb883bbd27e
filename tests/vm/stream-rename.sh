# A frame names its file as the file is named when the sample is taken,
# whatever an earlier record of the task named it (issue 28: records keep
# their tasks' file names from one record to the next).  A program spins,
# renames its own file and spins again; another deletes its own file.  The
# samples in the second loop must name the new name, and " (deleted)";
# those in the first, the old name.
# kernels: debug
. ./lib.sh
d=/tmp/rn
rm -rf $d && mkdir -p $d || fail "mkdir"
cp ./bin/rename_self $d/old && cp ./bin/rename_self $d/gone || fail "cp"
ustack_load sample_hz=999
record_start /tmp/rn.rec
$d/old 1 $d/old $d/new || fail "rename_self (rename)"
$d/gone 1 $d/gone - || fail "rename_self (delete)"
record_stop
ustack_unload
# "OBJECT FUNCTION COUNT" of each user record's first frame in $d.
awk -v syms=bin/rename_self.syms '
	function hex(s,  i, n, c) { sub(/^0x/, "", s); n = 0
		for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)); if (!c) break; n = n * 16 + c - 1 }
		return n }
	BEGIN { while ((getline l < syms) > 0) { split(l, f, " "); if (f[2] ~ /^[tT]$/) { n++; a[n] = hex(f[1]); s[n] = f[3] } } }
	/^user / { first = 1; next }
	/^    user / && first { first = 0
		o = $4; off = $4; sub(/\+0x[0-9a-f]+$/, "", o); sub(/.*\+/, "", off)
		if (index(o, "/tmp/rn/") != 1) next
		x = hex(off); best = "?"
		for (i = 1; i <= n; i++) if (a[i] <= x) best = s[i]
		c[o " " best]++; next }
	/^[a-z]/ { first = 0 }
	END { for (k in c) print k, c[k] }' /tmp/rn.rec | sort >/tmp/rn.counts
cat /tmp/rn.counts
# (The names by the environment: awk -v would read \040 as a space.)
count() { O=$1 F=$2 awk '$1 == ENVIRON["O"] && $2 == ENVIRON["F"] { n += $3 } END { print n + 0 }' /tmp/rn.counts; }
[ "$(count $d/old spin_before)" -gt 0 ] || fail "no sample named $d/old before the rename"
[ "$(count $d/new spin_after)" -gt 0 ] || fail "no sample named $d/new after the rename"
[ "$(count $d/old spin_after)" -eq 0 ] || fail "samples after the rename named the old name"
[ "$(count $d/gone spin_before)" -gt 0 ] || fail "no sample named $d/gone before the delete"
[ "$(count "$d/gone\\040(deleted)" spin_after)" -gt 0 ] || fail "no sample named deleted after the delete"
[ "$(count $d/gone spin_after)" -eq 0 ] || fail "samples after the delete named the file undeleted"
rm -rf $d
