# An unprivileged process clears the FDEs-sorted flag in its own
# copy-on-write copy of a program's PT_GNU_SFRAME (mprotect and a write to
# its MAP_PRIVATE mapping) and asks for its own stack first: the kernel's
# verdict on the file comes from the file, so a later run of the same
# program still finds every frame by SFrame (issue 14).
# kernels: 6.1 debug
. ./lib.sh
ustack_load
out=$(su -s /bin/sh nobody -c "bin/sframe_v3 poison" 2>&1) || fail "poison: $out"
echo "$out"
out=$(su -s /bin/sh nobody -c bin/sframe_v3 2>&1) ||
	fail "after another process's poisoned copy: $(echo "$out" | tail -n 8)"
echo "$out" | tail -n 3
case "$out" in
*"ok v3 discovery"*) ;;
*) fail "no verdict: $out" ;;
esac
echo ok
