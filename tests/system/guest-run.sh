#!/bin/bash
# The whole-system guest's test runner: the image's ustack-test.service runs
# it at every boot, from the test disk (LABEL=USTACKTEST, mounted read-only
# at /run/ustack-test), once the services are up; its output goes to the
# second serial port, which scripts/system-test.sh keeps and reads with
# scripts/vm/verdict.sh.  It runs the tests named on the kernel command
# line (ustack_test=a,b), one result line each, in order; a test that needs
# a reboot says so with exit 100, or 101 for a reboot into the kernel it
# loaded with kexec (it is run again after the boot, and knows where it
# was from its own state in /var/lib/ustack-test).  At the end: the taint
# flags of every boot, then power off.  A read-only root (a test's) keeps
# the state of the boots before it.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C.UTF-8
cd /run/ustack-test || exit 1
state=/var/lib/ustack-test
mkdir -p "$state"
param() { sed -n "s/.*\<$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
tests=$(param ustack_test | tr , ' ')
boot=$(( $(cat "$state/boots" 2>/dev/null || echo 0) + 1 ))
echo $boot 2>/dev/null >"$state/boots"
echo "USTACK-BOOTED $(uname -r) boot=$boot at $(cut -d' ' -f1 /proc/uptime)s, $(systemctl is-system-running)"

# The taint flags of every boot so far, or-ed (a reboot resets them).
taint() { echo $(( $(cat "$state/taint" 2>/dev/null || echo 0) | $(cat /proc/sys/kernel/tainted) )); }
finish() {
	echo "USTACK-TAINTED $(taint)"
	echo "USTACK-DONE"
	sync
	systemctl poweroff --no-block
	exit 0
}

for t in $tests; do
	[ -f "$state/done.$t" ] && continue
	if [ ! -f "./$t.sh" ]; then
		echo "USTACK-RESULT FAIL $t: no such test"
		touch "$state/done.$t"
		continue
	fi
	echo "USTACK-TEST-BEGIN $t at $(cut -d' ' -f1 /proc/uptime)s (boot $boot)"
	tmo=$(sed -n 's/^# timeout: \([0-9]*\)$/\1/p' "./$t.sh" | head -n1)
	# Indented: the host's kernel-log check skips the tests' own words.
	timeout -s KILL "${tmo:-900}" bash "./$t.sh" 2>&1 | sed -u 's/^/    /'
	rc=${PIPESTATUS[0]}
	case $rc in
	0)   echo "USTACK-RESULT PASS $t" ;;
	100|101)
	     echo "USTACK-REBOOT $t$([ $rc = 101 ] && echo ' (kexec)')"
	     echo "$(taint)" >"$state/taint"
	     sync
	     if [ $rc = 101 ]; then systemctl kexec --no-block; else systemctl reboot --no-block; fi
	     exit 0 ;;
	137) echo "USTACK-RESULT FAIL $t: timeout after ${tmo:-900}s" ;;
	*)   echo "USTACK-RESULT FAIL $t: exit $rc: $(cat "$state/why.$t" "/run/why.$t" 2>/dev/null | head -n1)" ;;
	esac
	touch "$state/done.$t" 2>/dev/null
done
finish
