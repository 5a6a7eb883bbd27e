# The vDSO in the SFrame store: ustackd registers SFrame generated from the
# running kernel's vDSO (SFRAME_STORE_VDSO).  A program built without frame
# pointers that spends its time in the vDSO (clock_gettime, gettimeofday,
# getcpu, time at the end of a call chain) then has stacks whose first
# frame is the vDSO's, named [vdso] at its offset in the vDSO, that reach
# main and the outermost frame, the frame above the vDSO's found by SFrame.
# With the vDSO's entry dropped (the program and libc still covered) none
# is found by SFrame and some do not reach main: Debian's vDSO keeps frame
# pointers in some functions, not in its leaves (getcpu, time), and the
# program's rbp is no frame pointer.
# Dropped behind a running ustackd's back, the entry comes back within
# a few seconds.  A restart registers the stored entry again.  Bad input: garbage or
# another object's SFrame with the vDSO flag gets EBADMSG, an unprivileged
# caller EPERM; STORE_DEL (ENOENT the second time), STORE_FLUSH and rmmod
# drop the entry.
# kernels: 6.1 debug
# timeout: 900
. ./lib.sh
[ -x /usr/sbin/ustackd ] || fail "ustackd not built"
ustack_load sample_hz=999
rm -rf /var/cache/ustack
S=bin/sframe_store
obj=/tests/vm/bin/vdso_loop
$obj 600 & P=$!
UD=
trap 'kill $P $UD 2>/dev/null' EXIT
sleep 0.5
vdso=$(awk '$6 == "[vdso]" { split($1, a, "-"); print a[1] }' /proc/$P/maps)
[ -n "$vdso" ] || fail "no [vdso] in the program's maps"

# expect ERRNO CMD...: the request is refused with ERRNO.
expect() {
	want=$1; shift
	got=$("$@" 2>&1)
	[ "$got" = "error $want" ] || fail "$*: '$got', want error $want"
	echo "$want: $*"
}
# wait_ready LOG: until ustackd writing LOG says ready
wait_ready() {
	i=0
	until grep -q '^ustackd: ready$' "$1"; do
		kill -0 $UD 2>/dev/null || fail "ustackd exited: $(tail -n 5 "$1")"
		i=$((i + 1)); [ $i -lt 3000 ] || fail "ustackd not ready in 300 s"
		sleep 0.1
	done
}
# vdso_stacks REC: "N OK REACH BAD" of the program's vDSO stacks
# (vdso-check.awk).
vdso_stacks() {
	awk -f syms.awk -f vdso-check.awk -v pid=$P -v obj=$obj \
		-v syms=bin/vdso_loop.syms -v base=$vdso "$1"
}

# ustackd covers the program, libc and the vDSO.
: >/tmp/ud1.log
ustackd -v 2>/tmp/ud1.log & UD=$!
wait_ready /tmp/ud1.log
grep -E 'vdso|objects:' /tmp/ud1.log
ustackd --status >/tmp/status || fail "ustackd --status"
grep -q "^covered 0:0:0 \[vdso\] vdso-$(uname -r)-[0-9a-f]*\.v3\.sframe$" /tmp/status ||
	fail "the vDSO not covered: $(grep vdso /tmp/status)"
entry=/var/cache/ustack/sframe/$(awk '$3 == "[vdso]" { print $4 }' /tmp/status)
[ -f "$entry" ] || fail "no store entry $entry"
[ "$(stat_of store_vdso)" = 1 ] || fail "store_vdso $(stat_of store_vdso)"
t0=$(date +%s)

record_start /tmp/rec1
sleep 3
record_stop
set -- $(vdso_stacks /tmp/rec1)
echo "with the vDSO's entry: of $1 stacks from the vDSO, $3 reach main and the outermost frame, $2 through the vDSO by sframe; $4 [vdso] frames misplaced"
[ "$1" -ge "$(per_hz 50)" ] || fail "only $1 stacks from the vDSO"
[ $(($2 * 100)) -ge $(($1 * 99)) ] || fail "with the vDSO's entry: $2 of $1 complete (< 99%)"
[ "$4" = 0 ] || fail "$4 [vdso] frames not at the vDSO's start plus their offset"
[ "$(stat_of store_vdso_hits)" -gt 0 ] || fail "store_vdso_hits 0"
grep '^store_' /sys/kernel/debug/ustack/stats

# Its entry dropped behind the running ustackd's back (ustackd --flush):
# the next walk through the vDSO queues a miss, and ustackd registers the
# entry again (as a lost file entry, at most once per 10 s).
w=$((t0 + 11 - $(date +%s)))
[ $w -le 0 ] || sleep $w
$S vdso-del || fail "vdso-del under ustackd"
record_start /tmp/rec2
for _ in $(seq 100); do
	[ "$(stat_of store_vdso)" = 1 ] && break
	sleep 0.1
done
record_stop
grep -q '\[vdso\]: missed again: registering it again' /tmp/ud1.log ||
	fail "ustackd did not register the vDSO again: $(tail -n 3 /tmp/ud1.log)"
[ "$(stat_of store_vdso)" = 1 ] || fail "the vDSO's entry not back: store_vdso $(stat_of store_vdso)"
kill -TERM $UD; wait $UD; UD=

# Without it: the program and libc keep their entries, the vDSO has none.
$S vdso-del || fail "vdso-del"
expect ENOENT $S vdso-del
[ "$(stat_of store_vdso)" = 0 ] || fail "vdso-del left the entry"
hits=$(stat_of store_vdso_hits)
record_start /tmp/rec0
sleep 3
record_stop
set -- $(vdso_stacks /tmp/rec0)
echo "without the vDSO's entry: of $1 stacks from the vDSO, $3 reach main and the outermost frame, $2 through the vDSO by sframe"
[ "$1" -ge "$(per_hz 50)" ] || fail "without: only $1 stacks from the vDSO"
[ "$2" = 0 ] || fail "without the vDSO's entry: $2 through the vDSO by sframe"
[ $(($3 * 100)) -lt $(($1 * 95)) ] || fail "without the vDSO's entry: $3 of $1 reach main"
[ "$(stat_of store_vdso_hits)" = "$hits" ] || fail "vDSO hits without an entry"

# A restart registers the stored entry again, without generating it.
: >/tmp/ud2.log
ustackd 2>/tmp/ud2.log & UD=$!
wait_ready /tmp/ud2.log
grep -q '^ustackd: \[vdso\]: reused vdso-' /tmp/ud2.log || fail "restart: $(grep vdso /tmp/ud2.log)"
[ "$(stat_of store_vdso)" = 1 ] || fail "restart: store_vdso $(stat_of store_vdso)"
kill -TERM $UD; wait $UD; UD=

# Bad input.
sframe-register gen $obj -o /tmp/prog.elf --version 3 >/dev/null || fail "gen"
head -c 4096 $obj >/tmp/garbage
expect EPERM su -s /bin/sh nobody -c "$S vdso-entry $entry"
expect EPERM su -s /bin/sh nobody -c "$S vdso-del"
expect EBADMSG $S vdso-raw /tmp/garbage 0 4096 0
expect EBADMSG $S vdso-raw /tmp/garbage 64 1000 0
expect EBADMSG $S vdso /tmp/prog.elf
expect EINVAL $S vdso-raw /tmp/garbage 4000 200 0
[ "$(stat_of store_vdso)" = 1 ] || fail "refusals dropped the entry"
# STORE_ADD again replaces it; STORE_FLUSH drops it; rmmod with it.
$S vdso-entry "$entry" || fail "vdso-entry"
[ "$(stat_of store_vdso)" = 1 ] || fail "replace: store_vdso $(stat_of store_vdso)"
$S flush || fail "flush"
[ "$(stat_of store_vdso) $(stat_of store_entries)" = "0 0" ] ||
	fail "flush left $(stat_of store_vdso) $(stat_of store_entries)"
$S vdso-entry "$entry" || fail "vdso-entry after flush"
kill $P; wait $P 2>/dev/null
ustack_unload
echo "ok"
