# The kernel's self-stack (SFRAME_IOC_SELF_STACK) equals glibc backtrace()
# frame for frame on a generated program (random depths and frame sizes,
# -O0..-Os, with and without frame pointers), through a dlopen'ed library
# and signal handlers (also on an alternate stack): with a registered
# section, with ELF discovery only, and by frame pointers without SFrame.
# kernels: 6.1 6.12 sid debug
. ./lib.sh
ustack_load
lib=/tests/vm/bin/sframe_lib
n=0
for b in bin/sframe_walk_O*_fp bin/sframe_walk_O*_nofp; do
	for mode in reg disc; do
		n=$((n + 1))
		out=$("$b" $mode 40 $n $lib 2>&1) || fail "$b $mode: $(echo "$out" | tail -n 30)"
		echo "$b $mode: $out"
		case "$out" in
		*" fp=0 "*) ;;
		*) fail "$b $mode: frames by frame pointer where SFrame exists: $out" ;;
		esac
		case "$out" in
		*" signal=0"*) fail "$b $mode: no signal frame seen" ;;
		esac
	done
done
out=$(bin/sframe_walk_O2_fponly none 40 7 2>&1) || fail "fponly: $out"
echo "fponly none: $out"
case "$out" in
*" sframe=0 "*) ;;
*) fail "fponly: SFrame used without any: $out" ;;
esac
# Without PT_GNU_SFRAME (no discovery): the registration alone does it,
# also in a forked child (inherited); without it the walk cannot match.
bin/sframe_api nodisc bin/sframe_walk_O2_nofp /tmp/nodisc >/dev/null || fail "nodisc copy"
for mode in reg regfork; do
	out=$(/tmp/nodisc $mode 40 9 2>&1) || fail "nodisc $mode: $(echo "$out" | tail -n 30)"
	echo "nodisc $mode: $out"
	case "$out" in
	*" fp=0 "*) ;;
	*) fail "nodisc $mode: frame pointers used: $out" ;;
	esac
done
if out=$(/tmp/nodisc none 40 9 2>&1); then
	fail "nodisc none: matched without any SFrame: $out"
fi
echo "nodisc none: fails as it must"
echo "ok $n runs"
