# make demo, in the guest: profile a program built without frame pointers
# and python3.11 under the shim (which answers with demo.py's own frames),
# then the same with frame pointers only.
. ./lib.sh
ustack_load sample_hz=999
echo "== ustack $(modinfo -F version ustack) on $(uname -r): sampling at 999 Hz"
record_start /tmp/sframe.rec
sframe-register run ./bin/workload cpu 3 || fail "workload under the shim"
sframe-register run python3.11 demo.py || fail "python under the shim"
record_stop 1
record_start /tmp/fp.rec
./bin/workload cpu 3 || fail "workload"
python3.11 demo.py || fail "python"
record_stop 1
for r in sframe fp; do
	echo
	echo "== summary, $r ($( [ $r = sframe ] && echo 'SFrame from the shim, frame pointers as fallback' || echo 'frame pointers only: no shim'))"
	ustack-report --summary /tmp/$r.rec | awk -v MAXL=8 -f demo-summary.awk
done
echo
echo "== the heaviest user stacks of each program, SFrame"
echo "   (leaf first; kernel frames left out)"
ustack-report /tmp/sframe.rec | awk -v PROGS="workload python3.11" -v TOP=2 -v MAXF=14 -f demo-heaviest.awk
# python3.11 answered for itself (cooperative unwinding): its own functions
# stand in its flame graph where the interpreter's evaluator would.
ustack-report --folded --comm python3.11 /tmp/sframe.rec >/tmp/py.folded
grep -q 'render_report ([^;]*demo\.py);fib ([^;]*demo\.py)' /tmp/py.folded ||
	fail "no Python frames of demo.py in python3.11's stacks"
echo
echo "== python3.11's own frames (cooperative unwinding): $(awk '/demo\.py\)/ { n += $NF } { t += $NF } END { printf "%d of %d samples", n, t }' /tmp/py.folded) name demo.py's functions"
ustack-report --summary --comm python3.11 /tmp/sframe.rec | grep '^interpreter frames:' ||
	fail "no interpreter frames in python3.11's summary"
echo "DEMO-SVG-PY-BEGIN"
ustack-report --svg --comm python3.11 --title "ustack: python3.11 running demo.py, its own frames" /tmp/sframe.rec
echo "DEMO-SVG-PY-END"
echo "DEMO-SVG-BEGIN"
ustack-report --svg --title "ustack: workload and python3.11, SFrame" /tmp/sframe.rec
echo "DEMO-SVG-END"
echo "DEMO-SVG-FP-BEGIN"
ustack-report --svg --title "ustack: the same, frame pointers only" /tmp/fp.rec
echo "DEMO-SVG-FP-END"
ustack_unload
