# A request storm on a 500-frame stack: 999 Hz sampling plus a traced
# syscall in a loop (2000 calls; 1000 in make check), 500 frames down.  Forward progress (it finishes), one
# walk per stay, every walk complete to the recursion's root.
# debug: skip (2000 walks of 500 frames under 999 Hz sampling: too slow under KASAN; the other engine tests run there)
. ./lib.sh
ustack_load sample_hz=999 syscalls=getppid max_frames=1024 buffer_kb=131072
record_start /tmp/rec
calls=$(long 2000 1000)
./bin/hazard deep 500 $calls || fail "deep"
record_stop 1
l=$(lost_lines /tmp/rec | head -3)
[ -z "$l" ] || fail "records lost: $l"
s=/sys/kernel/debug/ustack/stats
walks=$(sed -n 's/^walks //p' $s); stays=$(sed -n 's/^stays //p' $s)
req=$(sed -n 's/^requests //p' $s); co=$(sed -n 's/^coalesced //p' $s)
echo "requests=$req coalesced=$co walks=$walks stays=$stays"
# Stays still open when the counters are read are not counted yet.
[ "$walks" -le $((stays + 4)) ] || fail "more walks ($walks) than stays ($stays)"
# Every getppid sample's walk reaches through the 500 recursive frames.
awk -v calls=$calls '/^sample / && $8 == "comm=hazard" && $7 == "event=syscall:getppid" { want[$2] = 1 }
     /^user / { cur = $2; split($5, f, "="); frames[cur] = f[2] }
     END { for (c in want) { n++; if (frames[c] < 500) { bad++; if (bad < 5) print c " has " frames[c] " frames" } }
	   print n " deep samples"; exit bad > 0 || n < calls }' /tmp/rec || fail "deep walks"
ustack_unload
