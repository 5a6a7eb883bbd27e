# 100 load/unload cycles in a row, each with the devices appearing and going.
. ./lib.sh
ustack_install
i=0
while [ $i -lt 100 ]; do
	modprobe ustack || fail "load $i"
	[ -c /dev/ustack ] || fail "no /dev/ustack at cycle $i"
	modprobe -r ustack || fail "unload $i"
	i=$((i + 1))
done
[ ! -d /sys/module/ustack ] || fail "still loaded"
echo "$i cycles"
