# make demo, the whole system, in the guest: programs started before the
# module and without the shim (a C++ program built without frame pointers,
# bash, python3.11) are sampled with frame pointers alone (no ustackd, no
# store, nothing registered: what perf --call-graph fp sees), then with
# ustackd; for each, the share of its sampled stacks that reach the
# outermost frame, side by side; then the flame graph of every process
# with ustackd.
# python: yes
# bash: yes
# timeout: 600
. ./lib.sh
[ -x /usr/sbin/ustackd ] || fail "ustackd not built"
ustack_unload
rm -rf /var/cache/ustack

bin/orders 100000 >/dev/null & PO=$!
bash -c 'tick() { n=$((n + 1)); }; while :; do tick; done' & PB=$!
python3.11 -c '
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
def serve():
    while True:
        fib(18)
serve()' & PP=$!
UD=
trap 'kill $PO $PB $PP $UD 2>/dev/null' EXIT
sleep 1

ustack_load sample_hz=999 buffer_kb=16384
echo
echo "== the whole system: orders (C++, -O2, no frame pointers), bash and"
echo "   python3.11 started before the module, no shim; sampled 4 s with"
echo "   frame pointers alone, then 4 s with ustackd"
record_start /tmp/sys0.rec
sleep 4
record_stop
[ "$(stat_of store_hits)" = 0 ] && [ "$(stat_of sections_registered)" = 0 ] ||
	fail "not frame pointers alone: store hits $(stat_of store_hits), sections registered $(stat_of sections_registered)"

t0=$(cut -d' ' -f1 /proc/uptime)
: >/tmp/ustackd.log
ustackd 2>/tmp/ustackd.log & UD=$!
i=0
until grep -q '^ustackd: ready$' /tmp/ustackd.log; do
	kill -0 $UD 2>/dev/null || fail "ustackd exited: $(tail -n 3 /tmp/ustackd.log)"
	i=$((i + 1)); [ $i -lt 3000 ] || fail "ustackd not ready in 300 s"
	sleep 0.1
done
echo "ustackd ready after $(awk -v t0=$t0 '{ printf "%.1f", $1 - t0 }' /proc/uptime) s:"
sed -n 's/^ustackd: \([0-9]* objects:.*\)/  \1/p' /tmp/ustackd.log
record_start /tmp/sys1.rec
sleep 4
record_stop

# complete REC [COMM]: "complete samples" from the summary; with no COMM,
# every process's (kernel threads' samples have no user stack to reach).
complete() {
	ustack-report --summary ${2:+--comm "$2"} "$1" | awk '
	/^samples: / { s = $2 }
	/^complete user stacks: / { c = $4 }
	/^kernel threads: / { s -= $3 }
	END { print c + 0, s + 0 }'
}
# show NAME FP-OK FP-ALL UD-OK UD-ALL: a row of the table
show() {
	awk -v name="$1" -v a="$2" -v b="$3" -v c="$4" -v d="$5" '
	function pc(c, s) { return s ? sprintf("%.1f%% of %d", 100 * c / s, s) : "no samples" }
	BEGIN { printf "  %-16s %20s %20s\n", name, pc(a, b), pc(c, d) }'
}
# row NAME COMM: the program's row; it has samples in both runs and, with
# ustackd, >= 99% of them complete (what the demo shows a user)
row() {
	set -- "$1" $(complete /tmp/sys0.rec "$2") $(complete /tmp/sys1.rec "$2")
	show "$@"
	[ "$3" -gt 0 ] && [ "$5" -gt 0 ] || fail "$1: no samples"
	[ $(($4 * 100)) -ge $(($5 * 99)) ] || fail "$1: $4 of $5 complete with ustackd (< 99%)"
	echo "$2 $3 $4 $5" >>/tmp/rows
}
echo
echo "== complete user stacks (the walk reached the outermost frame)"
printf "  %-16s %20s %20s\n" "" "frame pointers" "with ustackd"
: >/tmp/rows
row orders orders
row bash bash
row python3.11 python3.11
# The rest of the guest apart: the harness's own busybox sh, cat and sed
# (its .eh_frame leaves 40% of its code out) and ustackd, not the
# programs this demo is about.
set -- $(complete /tmp/sys0.rec) $(complete /tmp/sys1.rec) $(awk '
	{ for (i = 1; i <= 4; i++) s[i] += $i } END { print s[1] + 0, s[2] + 0, s[3] + 0, s[4] + 0 }' /tmp/rows)
show "the three" $5 $6 $7 $8
show "the guest's own" $(($1 - $5)) $(($2 - $6)) $(($3 - $7)) $(($4 - $8))
echo "  (the guest's own: its busybox sh, cat and sed, whose .eh_frame leaves"
echo "   40% of busybox's code out, and ustackd)"

# What kept the rest of the three from the outermost frame: each one's
# stacks that stopped short, by end reason and the outermost frame the
# walk reached.
echo
echo "== with ustackd, the three's stacks that stopped short: samples, process, end, last frame"
ustack-report --folded /tmp/sys1.rec | awk '
	{ n = $NF; sub(/ [0-9]+$/, "") }
	split($0, f, ";") >= 2 && f[1] ~ /^(orders|bash|python3\.11)$/ &&
	f[2] ~ /^\[(incomplete: .*|no user stack)\]$/ {
		k = f[1] "  " f[2] "  " (f[3] == "" ? "-" : f[3]); c[k] += n
	}
	END { for (k in c) printf "  %6d  %s\n", c[k], k }' | sort -rn | head -n 6 >/tmp/short
[ -s /tmp/short ] && cat /tmp/short || echo "  none"

echo
echo "== the heaviest user stacks of each, with ustackd (leaf first)"
ustack-report /tmp/sys1.rec | awk -v PROGS="orders bash python3.11" -v TOP=1 -v MAXF=12 -f demo-heaviest.awk
demo_svg SYSTEM --title "ustack: the whole system with ustackd, no shim" /tmp/sys1.rec

kill -TERM $UD
wait $UD || fail "ustackd: exit $? after SIGTERM"
UD=
kill $PO $PB $PP 2>/dev/null
wait 2>/dev/null
ustack_unload
