# Off-CPU: a thread blocked in read() on a pipe shows the read path in the
# kernel stack and its caller in the user stack (a program without frame
# pointers, under the shim: frame pointers would lose read's caller).
. ./lib.sh
ustack_load sample_hz=0 offcpu=1
record_start /tmp/rec
sframe-register run ./bin/workload_sf block 300 || fail "workload"
record_stop
# The cookie of an off-CPU sample of the program whose kernel stack is in
# pipe_read (7.2: anon_pipe_read, for a pipe(2) pipe).
cookie=$(awk '/^sample .*event=offcpu comm=workload_sf/ { c = $2; next }
	/^[a-z]/ { c = "" }
	c != "" && /kernel .* (anon_)?pipe_read\+/ { print substr(c, 8); exit }' /tmp/rec)
[ -n "$cookie" ] || { grep -A12 'event=offcpu' /tmp/rec | head -30; fail "no off-CPU sample in pipe_read"; }
# Its user record, symbolized: block_read then block_thread.
frames=$(awk -v c="$cookie" -v syms=bin/workload_sf.syms '
	function hex(s,  i, n, d) { sub(/^0x/, "", s); n = 0
		for (i = 1; i <= length(s); i++) { d = index("0123456789abcdef", substr(s, i, 1)); if (!d) break; n = n * 16 + d - 1 }
		return n }
	BEGIN { while ((getline l < syms) > 0) { split(l, f, " "); if (f[2] ~ /^[tT]$/) { n++; a[n] = hex(f[1]); s[n] = f[3] } } }
	/^user / { u = ($2 == "cookie=" c); next }
	/^[a-z]/ { u = 0 }
	u && /workload_sf\+/ { split($4, o, "+"); x = hex(o[2]); best = "?"
		for (i = 1; i <= n; i++) if (a[i] <= x) best = s[i]
		printf "%s ", best }' /tmp/rec)
echo "user frames in the program: $frames"
case "$frames" in
*block_read*block_thread*) ;;
*) fail "off-CPU user stack lacks block_read > block_thread: $frames" ;;
esac
# Not unloaded: the parents of this test hold off-CPU walks until it ends.
