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
