# make demo, in the guest: what a user chooses between, on programs as
# Debian ships them (python3.11) and as Debian builds them (a C program,
# -O2, no frame pointers): frame pointers alone, as perf --call-graph fp
# walks them (no SFrame anywhere: no shim, no ustackd, none in these
# binaries; checked), then ustack with ustackd; then python3.11 under the
# shim, which answers with demo.py's own frames.
# Some 60 s on a free host; twice the default limit for a busy one (CI's
# run beside the other areas timed out at 300 s, booted after 251 s).
# timeout: 600
. ./lib.sh
ustack_unload
rm -rf /var/cache/ustack
# installed on the system, as a package would put it
cp bin/workload /usr/local/bin/workload
ustack_load sample_hz=999
echo "== ustack $(modinfo -F version ustack) on $(uname -r): sampling at 999 Hz"
run_both() {
	/usr/local/bin/workload cpu 3 || fail "workload"
	python3.11 demo.py || fail "python"
}

record_start /tmp/fp.rec
run_both
record_stop 1
# No SFrame can have served: the module is fresh, nothing registered.
[ "$(stat_of store_hits)" = 0 ] && [ "$(stat_of sections_registered)" = 0 ] &&
[ "$(stat_of sections_elf)" = 0 ] ||
	fail "not frame pointers alone: store hits $(stat_of store_hits), sections registered $(stat_of sections_registered), own .sframe $(stat_of sections_elf)"
! ustack-report /tmp/fp.rec -v | grep -q 'method=sframe' || fail "an SFrame frame in the frame-pointer run"

: >/tmp/ustackd.log
ustackd 2>/tmp/ustackd.log & UD=$!
trap 'kill $UD 2>/dev/null' EXIT
wait_ready /tmp/ustackd.log
# its pass over the programs and libraries on disk: what runs next is
# covered from its first sample
i=0
until grep -q '^ustackd: system objects:' /tmp/ustackd.log; do
	i=$((i + 1)); [ $i -lt 1200 ] || fail "ustackd's pass over the system did not end"
	sleep 0.1
done
record_start /tmp/ustackd.rec
run_both
record_stop 1

for r in fp ustackd; do
	echo
	case $r in
	fp) echo "== summary: frame pointers alone (what perf --call-graph fp walks: no shim, no ustackd, no SFrame in these binaries)" ;;
	*) echo "== summary: ustack with ustackd (SFrame from each object's .eh_frame, in its store; frame pointers as fallback)" ;;
	esac
	ustack-report --summary /tmp/$r.rec | awk -v MAXL=8 -f demo-summary.awk
done
# What the demo shows a user holds: with ustackd, each program's stacks
# reach the outermost frame (>= 99% of >= 500 samples).
for c in workload python3.11; do
	set -- $(ustack-report --summary --comm $c /tmp/ustackd.rec | awk '
		/^samples: / { s = $2 } /^complete user stacks: / { k = $4 }
		END { print k + 0, s + 0 }')
	[ "$2" -ge 500 ] && [ $(($1 * 100)) -ge $(($2 * 99)) ] ||
		fail "$c with ustackd: $1 of $2 samples complete (wanted >= 99% of >= 500)"
done
echo
echo "== the heaviest user stacks of each program, with ustackd"
echo "   (leaf first; kernel frames left out)"
ustack-report /tmp/ustackd.rec | awk -v PROGS="workload python3.11" -v TOP=2 -v MAXF=14 -f demo-heaviest.awk
demo_svg "" --title "ustack with ustackd: workload and python3.11" /tmp/ustackd.rec
demo_svg FP --title "the same, frame pointers alone (as perf --call-graph fp)" /tmp/fp.rec

# python3.11 under the shim answers for itself (cooperative unwinding):
# its own functions stand in its flame graph where the interpreter's
# evaluator would.
record_start /tmp/py.rec
sframe-register run python3.11 demo.py || fail "python under the shim"
record_stop 1
ustack-report --folded --comm python3.11 /tmp/py.rec >/tmp/py.folded
grep -q 'render_report ([^;]*demo\.py);fib ([^;]*demo\.py)' /tmp/py.folded ||
	fail "no Python frames of demo.py in python3.11's stacks"
echo
echo "== python3.11 under the shim, its own frames (cooperative unwinding): $(awk '/demo\.py\)/ { n += $NF } { t += $NF } END { printf "%d of %d samples", n, t }' /tmp/py.folded) name demo.py's functions"
ustack-report --summary --comm python3.11 /tmp/py.rec | grep '^interpreter frames:' ||
	fail "no interpreter frames in python3.11's summary"
demo_svg PY --comm python3.11 --title "ustack: python3.11 running demo.py, its own frames" /tmp/py.rec
kill -TERM $UD
wait $UD
UD=
ustack_unload
