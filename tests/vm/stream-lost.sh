# A slow reader overflows a small buffer: "lost" records count exactly what
# was dropped (the module's own counter), and what did arrive is whole.
. ./lib.sh
ustack_load sample_hz=0 syscalls=write buffer_kb=64
exec 3</dev/ustack		# a reader that does not read yet
./bin/workload_fp write 20000 || fail "workload"
param_set syscalls ""
dropped=$(sed -n 's/^dropped //p' /sys/kernel/debug/ustack/stats)
[ "$dropped" -gt 0 ] || fail "nothing was dropped"
timeout 10 cat <&3 >/tmp/rec
exec 3<&-
lost=$(awk '/^lost / { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] != "time") n += kv[2] } } END { print n + 0 }' /tmp/rec)
echo "dropped=$dropped lost=$lost"
[ "$lost" = "$dropped" ] || fail "lost records count $lost, the module dropped $dropped"
# Every record that arrived is whole: samples have a kernel stack line or
# none, user records have exactly frames= frame lines.
awk '/^user / { if (want > 0 || got != want) bad++; split($5, f, "="); want = f[2]; got = 0; next }
     /^    user / { got++; next }
     /^[a-z]/ { if (got != want) bad++; want = 0; got = 0 }
     END { if (got != want) bad++; print "torn", bad + 0; exit bad > 0 }' /tmp/rec || fail "torn records"
ustack_unload
