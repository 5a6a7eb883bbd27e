# 40 load/unload cycles in a row, each with the devices appearing and going
# (20 on the debug kernel, where each takes seconds; half in make check).
. ./lib.sh
ustack_unload	# whatever an earlier test left loaded
ustack_install
n=$(long 40 20)
case $KREL in *debug*) n=$((n / 2)) ;; esac
i=0
while [ $i -lt $n ]; do
	modprobe ustack || fail "load $i"
	[ -c /dev/ustack ] || fail "no /dev/ustack at cycle $i"
	modprobe -r ustack || fail "unload $i"
	i=$((i + 1))
done
[ ! -d /sys/module/ustack ] || fail "still loaded"
echo "$i cycles"

# The harness's own unload when PID 1 owes a walk: sampled system-wide
# with offcpu=1, PID 1 reaps an orphan of the test and goes back into
# wait() owing one, which holds the module until PID 1 next returns to
# user space (CI's "walks pending in: 1 init S" in hostile-random).
# ustack_unload must still unload, once the sources have stopped.
ustack_load offcpu=1 sample_hz=999
record_start /tmp/lc.rec
j=0
until grep -q '^1 init ' /sys/kernel/debug/ustack/pending; do
	j=$((j + 1)); [ $j -lt 100 ] || fail "PID 1 never owed a walk"
	sh -c 'sleep 0.01 &'
	sleep 0.1
done
record_stop
grep -q '^1 init ' /sys/kernel/debug/ustack/pending || fail "PID 1 no longer owes its walk"
ustack_unload
echo "unloaded while PID 1 owed a walk"
