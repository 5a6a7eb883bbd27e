# Helpers for the VM tests (sourced; busybox sh).
KREL=$(uname -r)
case $KREL in *-ustack-debug) DEBUG_KERNEL=1 ;; *) DEBUG_KERNEL=0 ;; esac

fail() { echo "FAIL: $*"; exit 1; }

# long N_LONG N_SHORT: a count for a test's long variant (make check-full
# boots with ustack_long=1) or for make check's, which proves the same in
# less time (fewer rounds, shorter runs).
long() { if grep -qw 'ustack_long=1' /proc/cmdline; then echo "$1"; else echo "$2"; fi; }

# Install ustack.ko the way `make install` does, then load it with modprobe.
ustack_install() {
	mkdir -p "/lib/modules/$KREL/updates"
	cp /opt/ustack/ustack.ko "/lib/modules/$KREL/updates/ustack.ko"
	depmod -a "$KREL" || fail "depmod"
}

# Unload, allowing a few seconds for readers and walks still finishing.
# PID 1 (busybox sh, waitpid(-1) for the test) also reaps the test's
# orphans: each wake-up there, sampled with offcpu=1 on its way back
# into wait(), leaves PID 1 owing a walk, and the walk's module reference
# refuses the unload until PID 1 next returns to user space (seen in CI:
# "walks pending in: 1 init S").  With the sources stopped, one more
# orphan lets it run that walk and sleep again owing nothing.
# TRIES (default 50, a tenth of a second apart): a test whose own
# processes may sleep owing a walk for seconds allows more; the tries
# refused are in UNLOAD_REFUSED.
ustack_unload() {
	i=0 UNLOAD_REFUSED=0
	while [ -d /sys/module/ustack ]; do
		modprobe -r ustack 2>/dev/null && return 0
		UNLOAD_REFUSED=$((UNLOAD_REFUSED + 1))
		grep -q '^1 init ' /sys/kernel/debug/ustack/pending 2>/dev/null &&
			sh -c 'sleep 0.05 &'
		i=$((i + 1)); [ $i -lt "${1:-50}" ] ||
			fail "modprobe -r ustack: $(modprobe -r ustack 2>&1); refcnt $(cat /sys/module/ustack/refcnt); walks pending in: $(tr '\n' ';' </sys/kernel/debug/ustack/pending)"
		sleep 0.1
	done
}

# On the debug kernel a sample costs so much (the kernel stack's unwind and
# the walk under KASAN and lockdep, in TCG) that 999 Hz takes most of a
# vCPU, and all of it once the host is busy: a test there ran five times
# longer beside one busy host thread.  There ustack_load's sample_hz= asks
# for at most DEBUG_HZ (tests of the rate itself set it with param_set),
# and per_hz N scales a count of samples a test wants at 999 Hz to it.
DEBUG_HZ=249
per_hz() {
	if [ $DEBUG_KERNEL = 1 ]; then echo $(($1 * DEBUG_HZ / 999)); else echo "$1"; fi
}

# The harness's shells (PID 1 and its watchdog, comm init: guest-init.sh)
# wait for the test in wait().  One sampled in the kernel on its way there
# would owe a walk until the test ends, and the module reference the walk
# holds would refuse the test's rmmod (seen on a loaded host: "walks
# pending in: 1 init S").  Sampling starts once they sleep there.
harness_asleep() {
	local p c n=0
	for p in /proc/[0-9]*; do
		c=
		read -r c 2>/dev/null <$p/comm
		[ "$c" = init ] || continue
		until [ "$(cat $p/wchan 2>/dev/null)" = do_wait ] || [ $n -ge 50 ]; do
			n=$((n + 1)); sleep 0.1
		done
	done
}

# Load with exactly these parameters (reloading if a test left it loaded).
ustack_load() {
	ustack_unload
	harness_asleep
	[ -f "/lib/modules/$KREL/updates/ustack.ko" ] || ustack_install
	if [ $DEBUG_KERNEL = 1 ]; then
		_a=
		for _p; do
			case $_p in
			sample_hz=*) [ "${_p#*=}" -le $DEBUG_HZ ] || _p=sample_hz=$DEBUG_HZ ;;
			esac
			_a="$_a $_p"
		done
		# shellcheck disable=SC2086	# parameters hold no spaces
		set -- $_a
	fi
	modprobe ustack "$@" || fail "modprobe ustack"
	# Where its code is, for the host to name a stalled vCPU's place.
	echo "ustack: .text at $(cat /sys/module/ustack/sections/.text)" >/dev/kmsg
}


# unload_round I HZ: one round of hostile-unload's race (see there) on an
# unloaded module: uid 65534's 16 sleepers (bin/naps) sampled alone
# (pid=) with offcpu=1 at HZ, the ustack trace events on through tracefs
# (trace-cmd record in odd rounds, echo 1 > enable in even ones),
# `modprobe -r` started and the sleepers let go 0 to 200 ms after it
# began (I % 5), then retried until the module is gone.  Counts in busy
# the first tries that found the module in use.  NP, TC, U: its
# processes, for the caller's trap.
unload_round() {
	local i=$1 hz=$2 j T=/sys/kernel/tracing
	harness_asleep
	rm -f /tmp/go; mkfifo /tmp/go
	bin/as_nobody bin/naps 16 1 </tmp/go >/tmp/naps.out & NP=$!
	exec 7>/tmp/go
	modprobe ustack offcpu=1 sample_hz=$hz pid=$NP || fail "load $i"
	TC=
	if [ $((i % 2)) = 1 ]; then
		trace-cmd record -e ustack -o /tmp/tc.dat >/tmp/tc.out 2>&1 & TC=$!
	else
		echo 1 >$T/events/ustack/enable || fail "enable the events"
	fi
	j=0
	until grep -q '^sources_on 1' /sys/kernel/debug/ustack/stats 2>/dev/null; do
		j=$((j + 1)); [ $j -lt 200 ] || fail "round $i: the events did not start the sources"
		sleep 0.05
	done
	# the unload, and the sleepers let go a moment after it began
	modprobe -r ustack 2>/tmp/rmmod.err & U=$!
	case $((i % 5)) in
	0) ;;
	1) sleep 0.02 ;;
	2) sleep 0.05 ;;
	3) sleep 0.1 ;;
	4) sleep 0.2 ;;
	esac
	echo go >&7
	exec 7>&-
	wait $U || busy=$((busy + 1))
	U=
	# in use: a walk owed by a sleeper that asked before; retried
	j=0
	while [ -d /sys/module/ustack ]; do
		j=$((j + 1)); [ $j -lt 100 ] ||
			fail "round $i: modprobe -r: $(modprobe -r ustack 2>&1); refcnt $(cat /sys/module/ustack/refcnt)"
		modprobe -r ustack 2>/dev/null || sleep 0.1
	done
	wait $NP || fail "round $i: the sleepers: exit $? ($(cat /tmp/naps.out))"
	NP=
	grep -q '^naps=[1-9]' /tmp/naps.out || fail "round $i: the sleepers did not nap: $(cat /tmp/naps.out)"
	if [ -n "$TC" ]; then
		kill -INT $TC
		wait $TC
		TC=
	fi
}

# mode_of PATH: octal permission bits, owner uid.
mode_of() { stat -c '%a %u' "$1"; }

# Record /dev/ustack into FILE in the background: record_start FILE; ...; record_stop
record_start() {
	cat /dev/ustack >"$1" &
	RECORDER=$!
	i=0
	until grep -q '^active 1' /sys/kernel/debug/ustack/stats; do
		kill -0 "$RECORDER" 2>/dev/null || fail "cannot read /dev/ustack"
		i=$((i + 1)); [ $i -lt 200 ] || fail "the stream did not start"
		sleep 0.05
	done
}

# Wait (at most ~60 s) until the readers have read all that was written
# before the call.  Not "queued 0": a woken reader finds the records of the
# last 10 ms, and this loop's own processes make new ones meanwhile.
stream_drain() {
	w=$(stat_of written_bytes)
	i=0
	while [ "$(stat_of read_bytes)" -lt "$w" ] && [ $i -lt 600 ]; do
		sleep 0.1; i=$((i + 1))
	done
}

record_stop() {
	sleep ${1:-0.5}
	stream_drain
	# The reader has read them; let it write them out too.
	sleep 0.2
	kill "$RECORDER" 2>/dev/null
	wait "$RECORDER" 2>/dev/null
}

# stat_of NAME: a counter of /sys/kernel/debug/ustack/stats.
stat_of() { sed -n "s/^$1 //p" /sys/kernel/debug/ustack/stats; }

# interp_accounted REC PATTERN MIN: every accepted cooperative answer is
# one interp record of REC matching PATTERN, or one the ring had no room
# for, counted in a lost record's samples (a slow guest's reader falls
# behind a program sampled at 999 Hz); at least MIN are records.
interp_accounted() {
	_a=$(grep -c "$2" "$1")
	_l=$(sed -n 's/^lost samples=\([0-9]*\) .*/\1/p' "$1" | awk '{ n += $1 } END { print n + 0 }')
	_n=$(stat_of coop_answered)
	echo "$_a interp records, $_l records lost, $_n answers accepted"
	[ "$_a" -ge "$3" ] && [ "$_a" -le "$_n" ] && [ "$_n" -le $((_a + _l)) ] ||
		fail "$_a interp records, $_l records lost, $_n answers accepted"
}

param_set() { echo "$2" >"/sys/module/ustack/parameters/$1" || fail "set $1=$2"; }

# While a reader is open: every online CPU samples, with hardware cycles
# where the PMU has them, else cpu-clock.  Prints the event name to expect.
sampling_event() {
	_c=$(sed -n 's/^sampling_cycles_cpus //p' /sys/kernel/debug/ustack/stats)
	_k=$(sed -n 's/^sampling_cpu_clock_cpus //p' /sys/kernel/debug/ustack/stats)
	[ $((_c + _k)) = "$(grep -c '^processor' /proc/cpuinfo)" ] ||
		fail "sampling on $_c + $_k CPUs, $(grep -c '^processor' /proc/cpuinfo) online"
	if [ "$_c" -gt 0 ]; then echo cycles; else echo cpu-clock; fi
}

# nofp_sframe_check REC OBJ LIBC: workload_nofp's stacks in REC pass the
# stream check, with frames of the program (OBJ) and of LIBC found by
# SFrame.
nofp_sframe_check() {
	if ! awk -f syms.awk -f stream-check.awk -v comm=workload_nofp -v syms=bin/workload_nofp.syms \
		-v obj="$2" -v hot=cpu_inner,cpu_outer -v chain=cpu_outer,run_cpu,main \
		-v min_samples=200 "$1"; then
		grep -A12 '^user.*end=' "$1" | head -40
		fail "stream check"
	fi
	grep -q "user 0x[0-9a-f]* sframe $3+" "$1" || fail "no libc frame by sframe"
	grep -q "user 0x[0-9a-f]* sframe $2+" "$1" || fail "no program frame by sframe"
}

# ustackd (tests/vm/ustackd-*.sh)

# wait_ready LOG: until ustackd (pid $UD) writing LOG says ready (or exits)
wait_ready() {
	i=0
	until grep -q '^ustackd: ready$' "$1"; do
		kill -0 $UD 2>/dev/null || fail "ustackd exited: $(tail -n 5 "$1")"
		i=$((i + 1)); [ $i -lt 3000 ] || fail "ustackd not ready in 300 s: $(tail -n 5 "$1")"
		sleep 0.1
	done
}
# ustackd_start LOG: ustackd -v on its store as it is (the caller empties
# it first where a test needs none), logging to LOG, killed at the
# test's exit; until it is ready.  Sets UD.
ustackd_start() {
	ustackd -v 2>"$1" &
	UD=$!
	# shellcheck disable=SC2064	# the pid now
	trap "kill $UD 2>/dev/null" EXIT
	wait_ready "$1"
}
# wait_system_pass LOG: until ustackd ($UD, logging to LOG) says its pass
# over the system's programs and libraries ended (at most 300 s); prints
# that line
wait_system_pass() {
	i=0
	until grep -q '^ustackd: system objects:' "$1"; do
		kill -0 $UD 2>/dev/null || fail "ustackd exited: $(tail -n 5 "$1")"
		i=$((i + 1)); [ $i -lt 3000 ] || fail "ustackd's pass over the system did not end in 300 s"
		sleep 0.1
	done
	grep '^ustackd: system objects:' "$1"
}
# first_fresh DIR SALT: first_prog and libfirst.so (first-sample's program
# and library), new files in DIR with new build-ids: no store entry, no
# inode anyone covered
first_fresh() {
	mkdir -p "$1"
	cp bin/first_prog "$1/first_prog" && cp bin/first_lib "$1/libfirst.so" ||
		fail "copy into $1"
	bin/first_rebid "$1/first_prog" "$2" >/dev/null && bin/first_rebid "$1/libfirst.so" "$2" >/dev/null ||
		fail "first_rebid"
	! ustackd --status | grep -q " $1/" || fail "ustackd knows $1 already"
}
# first_stacks PID REC: "ok apart total" of PID's user records of samples
# taken while it was first_prog (not those of the shell's fork that execs
# it, busybox's): apart, a walk the exec ended or that stopped in the
# loader (its start-up, whose outermost frame SFrame does not mark, and
# its lazy binding, README's limits).  (A walk stopped by an object it met
# first stops in that object, the program or its library.)
first_stacks() {
	awk -v pid="$1" '
	function val(k,   i, kv) {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) return kv[2] }
		return ""
	}
	function flush() {
		if (!on) return
		tot++
		if (end == "outermost") ok++
		else if (end == "exec" || last ~ /\/ld-linux[^\/]*$/) apart++
		on = 0
	}
	/^[a-z]/ { flush() }
	/^sample / && val("comm") == "first_prog" { mine[val("cookie")] = 1 }
	/^user / && val("pid") == pid && (val("cookie") in mine) { on = 1; end = val("end"); last = ""; next }
	/^[ \t]+user / && on { last = $4; sub(/\+0x[0-9a-f]*$/, "", last) }
	END { flush(); print ok + 0, apart + 0, tot + 0 }' "$2"
}
# ustackd_sound LOG: ustackd ($UD, logging to LOG) is alive, answers
# --status (in /tmp/ud-status) within 60 s, and has not grown past 128
# MiB (its peak RSS in UD_HWM, kB): what it must be after a hostile user
ustackd_sound() {
	kill -0 $UD 2>/dev/null || fail "ustackd died: $(tail -n 5 "$1")"
	timeout 60 ustackd --status >/tmp/ud-status || fail "ustackd --status did not answer"
	UD_HWM=$(awk '/^VmHWM:/ { print $2 }' /proc/$UD/status)
	[ "$UD_HWM" -lt 131072 ] || fail "ustackd grew to $UD_HWM kB"
}
# random_ops_ran OUT WHAT: hostile_random's output OUT (one run's or
# several's) shows every kind of operation, and a registration that
# was valid (the walks met it); WHAT names the run in a failure
random_ops_ran() {
	local op
	for op in mmap munmap mprotect scribble register unregister self coop store ioctl fork exec thread file elf kill; do
		grep -q "^$op=[1-9]" "$1" || fail "$2: no $op operation ran"
	done
	grep -q '^register=[0-9]* ok:[1-9]' "$1" || fail "$2: no registration succeeded"
}
# complete PIDS REC: "pid ok total" per process, ok = user records ending
# outermost.
complete() {
	awk -v pids="$1" '
	BEGIN { n = split(pids, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
	/^user / {
		pid = ""; end = ""
		for (i = 2; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "pid") pid = kv[2]
			if (kv[1] == "end") end = kv[2]
		}
		if (pid in want) { tot[pid]++; if (end == "outermost") ok[pid]++ }
	}
	END { for (p in want) printf "pid %s %d %d\n", p, ok[p] + 0, tot[p] + 0 }' "$2"
}
# lost_lines REC: the lost records of recording REC (a fixed string: a
# regex grep of a recording of a storm takes half a minute under TCG)
lost_lines() { grep -F 'lost samples=' "$1"; }
# check_incomplete REC PIDS: each program < 90% complete, some stacks: what
# a test sees before ustackd gives them unwind info
check_incomplete() {
	complete "$2" "$1" >/tmp/complete
	while read -r _ pid ok tot; do
		echo "before ustackd: pid $pid ($(cat /proc/$pid/comm)): $ok of $tot stacks outermost"
		[ "$tot" -gt 0 ] && [ $((ok * 100)) -lt $((tot * 90)) ] ||
			fail "before ustackd: pid $pid: $ok of $tot complete already"
	done </tmp/complete
}
# check_complete WHAT REC PIDS: each program >= 99% complete, >= 50 stacks
check_complete() {
	complete "$3" "$2" >/tmp/complete
	while read -r _ pid ok tot; do
		echo "$1: pid $pid ($(cat /proc/$pid/comm)): $ok of $tot stacks outermost"
		[ "$tot" -ge 50 ] || fail "$1: only $tot stacks of pid $pid"
		[ $((ok * 100)) -ge $((tot * 99)) ] || {
			awk -v p=$pid '$1 == "user" && $0 ~ "pid=" p " " && $0 !~ /end=outermost/ { n = 6 } n > 0 { print; n-- }' "$2" | head -n 30
			fail "$1: pid $pid: $ok of $tot stacks complete (< 99%)"
		}
	done </tmp/complete
}
# pool_attack REC [held]: the pool attack of issue 14 on a loaded module
# whose recording REC runs: an unprivileged user's 200 threads each ask
# once and sleep, while root's program samples for 1 s.  Stops the
# recording, unloads, and fails unless root's program got a cookie and a
# user stack per sample; with "held", also unless the attacker was held to
# its share (its requests park in their stays only with offcpu=1: without
# it a sleeping thread gives its entry back, and the cap need not be met).
pool_attack() {
	local hp i total zero nomem refused

	./bin/hostile pool 200 8 >/tmp/pool.out &
	hp=$!
	i=0
	until grep -q holding /tmp/pool.out; do
		i=$((i + 1)); [ $i -lt 300 ] || fail "the threads never all asked: $(cat /tmp/pool.out)"
		kill -0 $hp 2>/dev/null || fail "hostile: $(cat /tmp/pool.out)"
		sleep 0.1
	done
	./bin/workload_fp cpu 1
	record_stop
	nomem=$(stat_of nomem)
	refused=$(stat_of share_refused)
	kill $hp 2>/dev/null
	wait $hp
	ustack_unload
	total=$(grep -c '^sample .* comm=workload_fp' "$1")
	zero=$(grep -c '^sample cookie=0x0000000000000000 .* comm=workload_fp' "$1")
	echo "root's program: $total samples, $zero without a cookie; nomem $nomem, share_refused $refused"
	[ "$total" -gt 20 ] || fail "too few samples: $total"
	[ "${2:-}" != held ] || [ "$refused" -gt 0 ] ||
		fail "the attacker was never held to its share (share_refused 0)"
	# A tick in the program's exit has no cookie by design (the task is
	# exiting): allow that one, not a pool that turned root away.
	[ "$nomem" -eq 0 ] || fail "the pool turned requests away: nomem $nomem"
	[ "$zero" -le 1 ] || fail "$zero of $total samples lost their user stack"
}
# refused_eopnotsupp PARAM WHY: writing 1 to PARAM fails with EOPNOTSUPP,
# leaves it 0 and logs the line WHY once
refused_eopnotsupp() {
	local p=/sys/module/ustack/parameters/$1 n0

	n0=$(dmesg | grep -cF "$2")
	if echo 1 >$p 2>/tmp/err; then
		fail "$1=1 accepted"
	fi
	grep -qi 'not supported' /tmp/err || fail "not EOPNOTSUPP: $(cat /tmp/err)"
	[ "$(cat $p)" = 0 ] || fail "$1 reads $(cat $p) after the refusal"
	[ $(($(dmesg | grep -cF "$2") - n0)) = 1 ] || fail "not one log line: $(dmesg | tail -n 3)"
}

# perf_share PERF DATA COMM: "complete own total" of COMM's samples in
# perf's recording DATA: complete, the callchain has main and, outermost,
# _start; own, the tick came while the task ran a deferred walk itself
# (kernel frames of the unwind's task work), where perf's tool attaches
# no user stack: the profiler's own cost, counted and shown apart.
perf_share() {
	$1 script --no-inline -i "$2" 2>/tmp/perf.err >/tmp/perf-share.txt ||
		fail "perf script: $(cat /tmp/perf.err)"
	awk -v want="$3" '
		/^[^ \t]/ { flush(); comm = $1; next }
		/^[ \t]/ {
			s = $2; sub(/\+0x[0-9a-f]*$/, "", s); last = s
			if (s == "main") m = 1
			if (s ~ /^(process_unwind_deferred|unwind_deferred_task_work|ustack_)/) o = 1
			next
		}
		{ flush() }
		function flush() {
			if (comm == want) { tot++; if (m && last == "_start") ok++; else if (o) own++ }
			comm = ""; m = 0; o = 0; last = ""
		}
		END { flush(); print ok + 0, own + 0, tot + 0 }' /tmp/perf-share.txt
}

# best_rounds ROUNDS HOOK CONFIG...: a benchmark's rounds, every CONFIG in
# turn in each, the best (least) elapsed_ns of each into best_CONFIG:
# `HOOK CONFIG` (: for none) then `one CONFIG`, the benchmark's, which
# prints one timed run's elapsed_ns.  A trend in the host's load during
# the run biases no configuration against another.
best_rounds() {
	local nr=$1 hook=$2 round=0 c e b
	shift 2
	while [ $round -lt $nr ]; do
		for c; do
			$hook $c
			e=$(one $c)
			[ -n "$e" ] || fail "$c: no elapsed_ns"
			echo "run $round $c $(awk -v n="$e" 'BEGIN { printf "%.1f", n / 1e6 }') ms"
			eval "b=\${best_$c:-}"
			[ -z "$b" ] || [ "$e" -lt "$b" ] && eval "best_$c=$e"
		done
		round=$((round + 1))
	done
}

# demo_svg TAG ARGS...: `ustack-report --svg ARGS` between the lines
# DEMO-SVG-TAG-BEGIN and DEMO-SVG-TAG-END, which scripts/demo.sh cuts out
# of the console.  Its warnings (an object mapped then removed, say) come
# after the end: on the console they would land inside the SVG.
demo_svg() {
	local tag=DEMO-SVG${1:+-$1}
	shift
	echo "$tag-BEGIN"
	ustack-report --svg "$@" 2>/tmp/svg.err || fail "ustack-report --svg: $(tail -n 1 /tmp/svg.err)"
	echo "$tag-END"
	[ ! -s /tmp/svg.err ] || sed 's/^/  (flame graph) /' /tmp/svg.err
}
