#!/bin/busybox sh
# /init of the test guest: mount the basics, run the VM tests named on the
# kernel command line (ustack_tests=a,b,c), report one result line each,
# dump the kernel log and the taint flags, then end the VM.
/bin/busybox --install -s /bin
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mkdir -p /dev/pts /dev/shm && mount -t devpts devpts /dev/pts
hostname ustack-vm

param() { sed -n "s/.*\<$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
tests=$(param ustack_tests | tr , ' ')
per_test_timeout=$(param ustack_timeout)
: "${per_test_timeout:=300}"
export USTACK_KREL=$(uname -r)

echo "USTACK-BOOTED $(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo)"
# The host keeps the kernel's text symbols (nokaslr) to name where the vCPUs
# of a stalled guest are: the first boot of an image sends them.
[ "$(param ustack_kallsyms)" = 1 ] && grep ' [tT] ' /proc/kallsyms >/dev/ttyS1
# Debug kernels: forget what boot itself left unreferenced, so that the
# final scan reports only what the tests did.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	echo clear >/sys/kernel/debug/kmemleak
fi
finish() {	# the kernel log, taint flags and the end of the VM
	if [ -w /sys/kernel/debug/kmemleak ]; then
		echo scan >/sys/kernel/debug/kmemleak; sleep 5
		echo scan >/sys/kernel/debug/kmemleak
		# Only leaks with a module in their backtrace count: 6.1 itself leaks a
		# few ACPI objects at boot (tests/debugkernel/NOTES.md).
		echo "USTACK-KMEMLEAK-BEGIN"
		if [ -f /opt/ustack/kmemleak-filter.awk ]; then
			awk -f /opt/ustack/kmemleak-filter.awk /sys/kernel/debug/kmemleak
		else
			cat /sys/kernel/debug/kmemleak
		fi
		echo "USTACK-KMEMLEAK-END"
	fi
	echo "USTACK-TAINTED $(cat /proc/sys/kernel/tainted)"
	echo "USTACK-DMESG-BEGIN"
	dmesg
	echo "USTACK-DMESG-END"
	echo "USTACK-DONE"
	sync
	reboot -f
}

cd /tests/vm || exit 1
for t in $tests; do
	echo "USTACK-TEST-BEGIN $t at $(cut -d" " -f1 /proc/uptime)s"
	# A test may ask for more time with a line "# timeout: SECONDS"; never
	# less than the kernel's own limit (longer on the debug kernel).
	tmo=$(sed -n 's/^# timeout: \([0-9]*\)$/\1/p' "./$t.sh" | head -n1)
	[ "${tmo:-0}" -gt "$per_test_timeout" ] || tmo=$per_test_timeout
	# A test stuck in the kernel outlives even SIGKILL (and timeout waits
	# for it): then the blocked tasks and every CPU's stack go to the
	# kernel log, and the boot ends here.
	( sleep $((tmo + 30))
	  echo "USTACK-RESULT FAIL $t: still there 30 s after its ${tmo}s limit (stuck in the kernel; blocked tasks and CPUs in the kernel log)"
	  for p in /proc/[0-9]*; do	# each user task's state and kernel stack
		[ -n "$(tr -d '\0' 2>/dev/null <$p/cmdline)" ] || continue
		echo "    ${p#/proc/} $(cat $p/comm 2>/dev/null): $(sed -n 's/^State:\t//p' $p/status 2>/dev/null)"
		sed 's/^/        /' $p/stack 2>/dev/null
	  done
	  echo w >/proc/sysrq-trigger; echo l >/proc/sysrq-trigger
	  finish ) &
	watchdog=$!
	timeout -s KILL "$tmo" sh "./$t.sh" >/tmp/test.out 2>&1
	rc=$?
	kill $watchdog
	# Nothing a test started may outlive it: a failed or timed-out test's
	# children would write into the next test's output, or hold
	# /dev/ustack open (and the module) into the next test.  Kernel
	# threads have an empty cmdline (procfs sizes are 0: read it, with
	# the shell's own read: a command per task cost seconds per test).
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[ "$p" -gt 1 ] && [ "$p" != $$ ] || continue
		c=
		IFS= read -r c 2>/dev/null </proc/$p/cmdline
		[ -n "$c" ] && kill -9 "$p" 2>/dev/null
	done
	sleep 0.2
	sed 's/^/    /' /tmp/test.out
	if [ $rc -eq 0 ]; then
		echo "USTACK-RESULT PASS $t"
	elif [ $rc -eq 137 ]; then
		echo "USTACK-RESULT FAIL $t: timeout after ${tmo}s"
	else
		echo "USTACK-RESULT FAIL $t: exit $rc: $(grep -v '^USTACK-RESULT' /tmp/test.out | tail -n1)"
	fi
done

finish
