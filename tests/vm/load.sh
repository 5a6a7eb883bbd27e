# ustack.ko installs like `make install`, loads with modprobe, creates its
# devices with the right modes, exposes its parameters, and unloads cleanly.
. ./lib.sh
ustack_unload	# whatever an earlier test left loaded
ustack_install
modprobe ustack || fail "modprobe"
[ -d /sys/module/ustack ] || fail "not loaded"
[ -c /dev/ustack ] || fail "/dev/ustack missing"
[ -c /dev/sframe ] || fail "/dev/sframe missing"
[ "$(mode_of /dev/ustack)" = "600 0" ] || fail "/dev/ustack mode $(mode_of /dev/ustack)"
[ "$(mode_of /dev/sframe)" = "666 0" ] || fail "/dev/sframe mode $(mode_of /dev/sframe)"
p=/sys/module/ustack/parameters
[ "$(cat $p/sample_hz)" = 99 ] || fail "sample_hz default $(cat $p/sample_hz)"
[ "$(cat $p/pid)" = 0 ] || fail "pid default"
[ "$(cat $p/offcpu)" = N ] || fail "offcpu default $(cat $p/offcpu)"
[ -z "$(cat $p/syscalls)" ] || fail "syscalls default"
for x in sample_hz pid syscalls offcpu; do
	[ "$(stat -c %a $p/$x)" = 644 ] || fail "$x not writable by root"
done
echo 999 >$p/sample_hz && [ "$(cat $p/sample_hz)" = 999 ] || fail "sample_hz write"
echo 99 >$p/sample_hz
modprobe -r ustack || fail "modprobe -r"
[ ! -e /dev/ustack ] || fail "/dev/ustack left after unload"
[ ! -d /sys/module/ustack ] || fail "still loaded"
echo ok
