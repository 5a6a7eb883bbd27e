# 4 vCPUs.  Migration inside a system call: sched_setaffinity moves the task
# to another CPU between the request (at syscall entry) and the return to
# user space; the stay must still end there, so the next syscall gets a new
# cookie and its own walk.
. ./lib.sh
[ "$(grep -c ^processor /proc/cpuinfo)" -ge 4 ] || fail "needs 4 CPUs"
ustack_load sample_hz=0 syscalls=sched_setaffinity,getppid
record_start /tmp/rec
./bin/hazard migrate 2000 || fail "migrate"
record_stop 1
awk '/^sample / && $8 == "comm=hazard" { n++; if (seen[$2]++) dup++; cpu[$5] = 1 }
     END { nc = 0; for (c in cpu) nc++
	   print n " samples on " nc " CPUs, " dup + 0 " reused cookies"
	   exit (dup > 0) || n < 4000 || nc < 4 }' /tmp/rec ||
	fail "cookie reused across stays after migration, or samples missing ($(grep '^lost' /tmp/rec | tr '\n' ' '))"
ustack_unload
