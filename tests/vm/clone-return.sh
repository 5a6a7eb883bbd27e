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
# Its stacks (samples of comm thread_loop: not the shell's before exec):
# how many reach the outermost frame (of those the task lived to walk: a
# sample inside execve() or a thread's exit has no stack left), the
# creator's frames by the entry rule, and the new threads' stacks of one
# frame: the two cases the walk tells apart.  The first incomplete ones.
awk -v pid=$P '
NR == FNR { if ($1 == "sample" && $NF == "comm=thread_loop") mine[$2] = 1; next }
$1 != "user" { show = 0 }
$1 == "user" && $2 ~ /^cookie=/ {
	cur = $2 in mine; shown = 0; show = 0
	if (!cur) next
	if ($6 == "end=exec" || $6 == "end=exit") { gone++; cur = 0; next }
	tot++
	if ($6 == "end=outermost") ok++
	else if (nbad++ < 4) show = 1
	if ($4 != "tid=" pid && $5 == "frames=1" && $6 == "end=outermost") child++
}
cur && $1 == "user" && $3 == "entry" { entry++ }
show && shown++ < 4 { print }
END { printf "stacks %d complete %d gone %d entry %d child %d\n", tot, ok, gone, entry, child }' /tmp/rec /tmp/rec >/tmp/clone
cat /tmp/clone
tail -n 1 /tmp/clone >/tmp/clone.n
read -r _ tot _ ok _ gone _ entry _ child </tmp/clone.n
[ "$tot" -ge 200 ] || fail "only $tot stacks of thread_loop"
[ $((ok * 100)) -ge $((tot * 99)) ] || fail "$ok of $tot stacks complete (< 99%)"
[ "$entry" -ge 5 ] || fail "only $entry stacks on the return from clone3 in the creator (want >= 5)"
[ "$child" -ge 1 ] || fail "no new thread sampled on its first return"
kill $UD; wait $UD
ustack_unload
