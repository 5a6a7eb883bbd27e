# A program that creates and joins threads in a loop, sampled at 999 Hz
# with ustackd covering libc: >= 99% of its stacks reach the outermost
# frame.  Many of its ticks come inside clone3, and the walk starts on the
# return from it, where glibc's clone3.S has ended its CFI (for parent and
# child alike): there the creator's frame returns by the entry rule (RA at
# SP) and the new thread's is its first.  Without that, those stacks end
# no-info or bad-frame at libc's clone3.
# kernels: 6.1 sid
# timeout: 900
. ./lib.sh
[ -x /usr/sbin/ustackd ] || fail "ustackd not built"
ustack_unload
rm -rf /var/cache/ustack
ustack_load sample_hz=999 buffer_kb=16384
: >/tmp/ud.log
ustackd 2>/tmp/ud.log & UD=$!
trap 'kill $UD 2>/dev/null' EXIT
wait_ready /tmp/ud.log
ustackd --status | grep -q "^covered [0-9:]* /usr/lib/x86_64-linux-gnu/libc.so.6 " ||
	fail "libc not covered: $(ustackd --status | grep libc)"

record_start /tmp/rec
./bin/thread_loop 3 & P=$!
wait $P || fail "thread_loop"
record_stop
# The creator's frames by the entry rule, and the new threads' stacks of
# one frame that end outermost: the two cases the walk tells apart.
awk -v pid=$P '
$1 == "user" && $2 ~ /^cookie=/ {
	mine = $3 == "pid=" pid
	one = mine && $4 != "tid=" pid && $5 == "frames=1" && $6 == "end=outermost"
	child += one
	next
}
mine && $1 == "user" && $3 == "entry" { entry++ }
END { printf "entry %d child %d\n", entry, child }' /tmp/rec | tee /tmp/clone
read -r _ entry _ child </tmp/clone
check_complete "threads" /tmp/rec "$P"
[ "$entry" -ge 5 ] || fail "only $entry stacks on the return from clone3 in the creator (want >= 5)"
kill $UD; wait $UD
ustack_unload
