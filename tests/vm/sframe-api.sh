# /dev/sframe: argument checks, bad input (garbage, truncated and
# inconsistent sections, unmapped/non-executable/kernel/foreign ranges,
# overlaps, duplicates, caps), unmap semantics (munmap of text or SFrame,
# mremap, MAP_FIXED, dlclose then a new mapping at the same address; not
# mprotect/madvise), fork (inherits, own copy), exec (starts empty), and
# 10^4 random mutations of a valid section, registered and walked.
# kernels: 6.1 6.12 sid
. ./lib.sh
ustack_load
[ "$(mode_of /dev/sframe)" = "666 0" ] || fail "/dev/sframe mode $(mode_of /dev/sframe)"
for c in args bad cap fork exec "unmap /tests/vm/bin/sframe_lib" "mutate 10000 12345"; do
	out=$(bin/sframe_api $c 2>&1) || fail "$c: $out"
	echo "$out"
done
# Unprivileged users get the same (their own address space only).
out=$(su -s /bin/sh nobody -c "bin/sframe_api bad" 2>&1) || fail "as nobody: $out"
echo "nobody: $out"
# The module unloads with registrations alive in running processes (and
# a forked child that inherited them); they exit after the unload.
mkfifo /tmp/hold.in
bin/sframe_api hold </tmp/hold.in >/tmp/hold.out 2>&1 &
exec 3>/tmp/hold.in
i=0
while ! grep -q ready /tmp/hold.out; do
	i=$((i + 1)); [ $i -lt 100 ] || fail "hold: $(cat /tmp/hold.out)"; sleep 0.1
done
modprobe -r ustack || fail "unload with a live registration"
exec 3>&-
wait
ustack_load
out=$(bin/sframe_api fork 2>&1) || fail "after reload: $out"
echo "after reload: $out"
echo ok
