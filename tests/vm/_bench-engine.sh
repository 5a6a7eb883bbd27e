# Benchmark (make bench): the deferred engine under a request storm, as in
# engine-storm: 999 Hz sampling plus a traced getppid in a loop, 500 frames
# down (frame pointers, no SFrame), only that program (pid=).  From the
# engine's own counters: requests per walk, the fraction of requests
# coalesced into a walk already asked for, and the deferred walk's cost.
# debug: skip (a benchmark; timings under KASAN mean nothing)
# timeout: 300
. ./lib.sh
N=${BENCH_STORM:-2000}
rm -f /tmp/go && mkfifo /tmp/go || fail "mkfifo"
ustack_load sample_hz=999 syscalls=getppid max_frames=1024 buffer_kb=131072
# The shell opens the FIFO before exec: the pid is filtered before it runs.
./bin/hazard deep 500 $N </tmp/go &
P=$!
param_set pid $P
record_start /tmp/rec
echo go >/tmp/go
wait $P || fail "hazard deep"
record_stop 1
l=$(lost_lines /tmp/rec | head -3)
[ -z "$l" ] || fail "records lost: $l"
s=/sys/kernel/debug/ustack/stats
cat $s
awk '{ v[$1] = $2 } $1 ~ /^frames_/ { frames += $2 }
     END {
	if (!v["walks"] || !v["requests"] || !frames) { print "FAIL: no walks"; exit 1 }
	printf "bench engine_requests_per_walk %.3f x\n", v["requests"] / v["walks"]
	printf "bench engine_coalesced_fraction %.3f x\n", v["coalesced"] / v["requests"]
	printf "bench engine_frames_per_walk %.1f frames\n", frames / v["walks"]
	printf "bench engine_walk_ns_per_walk %.0f ns\n", v["walk_ns"] / v["walks"]
	printf "bench engine_walk_ns_per_frame %.1f ns\n", v["walk_ns"] / frames
     }' $s || fail "stats"
awk '/^sample / && / event=syscall:getppid / { n++ } END { print n + 0 " getppid samples" }' /tmp/rec
ustack_unload
