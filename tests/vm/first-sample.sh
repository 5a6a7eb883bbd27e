# Complete from the first sample (issue 50), as a user first meets ustack:
# ustackd ready and its pass over the system's programs and libraries
# done, then a program it has never seen (a fresh copy of bin/first_prog,
# C++ without frame pointers, and of its own library libfirst.so, each
# given a new build-id by first_rebid: no store entry, no inode anyone
# covered) runs 0.7 s of CPU at 999 Hz.  >= 99% of its user stacks reach
# the outermost frame, counted from its first sample (>= 200 of them).
# The same in a container: the program, its library, libc, libstdc++ and
# the loader copied into a new root (the container's own libraries: files
# no one covered, whose entries ustackd has by build-id) and run there
# by chroot.  Before a walk waited for an object's first coverage, a
# program's first run was 82-89% complete.
# kernels: 6.1 sid
# timeout: 600
. ./lib.sh
[ -x /usr/sbin/ustackd ] || fail "ustackd not built"
ustack_unload
rm -rf /var/cache/ustack
ustack_load sample_hz=999 buffer_kb=16384
: >/tmp/fs-ud.log
ustackd -v 2>/tmp/fs-ud.log & UD=$!
trap 'kill $UD 2>/dev/null' EXIT
wait_ready /tmp/fs-ud.log
wait_system_pass /tmp/fs-ud.log

# first WHAT REC PID: its user stacks, from its first sample on
first() {
	set -- "$1" "$2" "$3" $(first_stacks "$3" "$2")
	ok=$4 apart=$5 tot=$6
	echo "$1: pid $3: $ok of $tot user stacks outermost ($((ok * 1000 / (tot + !tot))) per mille), $apart in the exec or the loader; $(lost_lines "$2" | wc -l) lost records"
	[ "$tot" -ge "$(per_hz 200)" ] || fail "$1: only $tot stacks"
	[ $((apart * 100)) -le $((tot * 10)) ] || fail "$1: $apart of $tot in the exec or the loader (> 10%)"
	tot=$((tot - apart))
	[ $((ok * 100)) -ge $((tot * 99)) ] && return 0
	# the incomplete ones: why each ended, in which object its last frame
	awk -v pid="$3" '
	function val(k,   i, kv) {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) return kv[2] }
		return ""
	}
	function flush() { if (bad) n[end " last in " last]++; bad = 0 }
	/^[a-z]/ { flush() }
	/^user / && val("pid") == pid && val("end") != "outermost" { bad = 1; end = "end=" val("end"); last = "(none)"; next }
	/^[ \t]+user / && bad { o = $4; sub(/\+0x[0-9a-f]*$/, "", o); last = o " (" $3 ")" }
	END { flush(); for (k in n) print "  " n[k] " stacks: " k }' "$2"
	awk -v p="$3" '$1 == "user" && $0 ~ "pid=" p " " && $0 !~ /end=outermost/ { n = 8 } n > 0 { print; n-- }' "$2" | head -n 24
	grep -E "miss: pid $3 |first_prog|libfirst" /tmp/fs-ud.log | tail -n 12
	# (the other variant's figure too, then the failure)
	echo "FAIL: $1: $ok of $tot stacks complete from its first sample (< 99%)"
	FAILED="$FAILED; $1: $ok of $tot complete"
}
FAILED=

# On the system: a program a user just built, run from their directory.
d=/tmp/first.$$.a
first_fresh $d "$$-a-$(cut -d' ' -f1 /proc/uptime)"
record_start /tmp/fs-a.rec
$d/first_prog 0.7 >/dev/null & P=$!
wait $P || fail "first_prog"
record_stop 1
grep -q "$d/first_prog: generated" /tmp/fs-ud.log || fail "ustackd did not generate $d/first_prog's entry: $(grep first_prog /tmp/fs-ud.log)"
first "new program" /tmp/fs-a.rec $P

# In a container: its own copies of the program's libraries and loader.
ct=/tmp/first.$$.ct
first_fresh $ct/app "$$-ct-$(cut -d' ' -f1 /proc/uptime)"
ld=/lib64/ld-linux-x86-64.so.2
for f in $ld $($ld --list $ct/app/first_prog | awk '$2 == "=>" && $3 ~ /^\// && $3 !~ /libfirst/ { print $3 }'); do
	mkdir -p "$ct${f%/*}" && cp -L "$f" "$ct$f" || fail "copy $f into the container"
done
libc=$(find $ct -name libc.so.6 | head -n 1)
[ -n "$libc" ] && [ "$(stat -c %i "$libc")" != "$(stat -c %i /usr/lib/x86_64-linux-gnu/libc.so.6)" ] ||
	fail "no libc of the container's own: '$libc'"
record_start /tmp/fs-ct.rec
# (no /proc in there: ld.so cannot resolve $ORIGIN)
LD_LIBRARY_PATH=/app chroot $ct /app/first_prog 0.7 >/dev/null & P=$!
wait $P || fail "first_prog in the container"
record_stop 1
grep -E "^ustackd: $ct/.*libc.so.6: (generated|reused)" /tmp/fs-ud.log ||
	fail "ustackd never covered the container's libc: $(grep "$ct" /tmp/fs-ud.log | tail -n 5)"
first "in a container" /tmp/fs-ct.rec $P
kill $UD; wait $UD 2>/dev/null
UD=
ustack_unload
[ -z "$FAILED" ] || fail "${FAILED#; } (< 99%)"
echo "first-sample: ok"
