# SFrame v3 as Debian sid's binutils write it, found by ELF discovery alone
# (no shim, no registration): a program without frame pointers, built by
# sid's as and ld on the host (tests/vm/Makefile), asks for its own stack;
# every frame through its functions, one of them a DRAP function (a v3 flex
# FDE), must be found by SFrame and equal the return addresses it recorded.
# The same program built by the host's binutils, without a .sframe, run
# by sframe-register: the generator's section (from .eh_frame) must say
# the DRAP function's rules as well.
# kernels: 6.1 6.12 sid debug
. ./lib.sh
ustack_load
for p in "bin/sframe_v3" "sframe-register run bin/sframe_v3_gen"; do
	out=$($p 2>&1) || fail "$p: $(echo "$out" | tail -n 8)"
	echo "$out"
	case "$out" in
	*"ok v3 discovery"*) ;;
	*) fail "$p: no verdict: $out" ;;
	esac
done
echo "ok"
