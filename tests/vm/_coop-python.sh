# The body of the coop-python* VM tests (sourced; not a test itself):
# cooperative unwinding of a CPython under the shim at 999 Hz, running
# coop_prog.py (recursion, classes, a generator, threads, a callback
# through a C builtin).  The caller sets
#   PY      the command that runs the interpreter ("python3.11", or a
#           staged runtime's "/opt/runtimes/python3.13/ld.sh usr/bin/...")
#   PYLANG  the answers' lang ("python3.11")
#   PYEVAL  bin/<lang>.eval: its evaluator's address ranges (_pyeval.sh)
#   NEST    1: ustack-report must nest the sort key's frames under
#           sorted()'s native frames
# At least 90% of the samples in Python code (an evaluator frame in the
# native stack) get an interp record with its Python frames, 99% of
# those in call order; its output is byte-identical with and without
# ustack.
. ./lib.sh
rounds=$(long 2 1) expire=100
case $(uname -r) in *-ustack-debug) rounds=1 expire=1000 ;; esac
# shellcheck disable=SC2086	# PY is a command with its arguments
$PY coop_prog.py $rounds >/tmp/plain.out 2>/tmp/plain.err ||
	fail "$PYLANG without ustack: $(head -3 /tmp/plain.err)"
ustack_load sample_hz=999 buffer_kb=32768 coop_timeout_ms=$expire
record_start /tmp/coop.rec
# shellcheck disable=SC2086
sframe-register run $PY coop_prog.py $rounds >/tmp/coop.out 2>/tmp/coop.err &
P=$!
wait $P || fail "$PYLANG under the shim: exit $?: $(head -3 /tmp/coop.err)"
record_stop 1
[ ! -s /tmp/coop.err ] && echo "(nothing on standard error)" || head -3 /tmp/coop.err
cmp /tmp/plain.out /tmp/coop.out || fail "output differs with ustack"
grep -E '^(coop_|dropped |walks )' /sys/kernel/debug/ustack/stats | tr '\n' ' '; echo
[ "$(stat_of dropped)" = 0 ] || fail "records dropped"
awk -v PID=$P -v LANG="$PYLANG" -v EVAL="$(cat "$PYEVAL")" -f coop-python.awk /tmp/coop.rec >/tmp/coop.res
cat /tmp/coop.res
set -- $(sed -n 's/^python_samples //p' /tmp/coop.res)
py=$1 ok=$3 answers=$5 ordered=$7 badlang=$9 judged=${11} handler=${13}
[ "$py" -ge 100 ] || fail "only $py samples in Python code"
[ $((ok * 100)) -ge $((py * 90)) ] || fail "$ok of $py samples in Python code answered (< 90%)"
[ "$badlang" = 0 ] || fail "$badlang answers not lang=$PYLANG"
[ "$judged" -ge $((answers / 2)) ] || fail "only $judged of $answers answers have the program's frames"
[ $((ordered * 100)) -ge $((judged * 99)) ] || fail "$ordered of $judged answers in call order"
for f in fib Tree.count squares worker digit_sum; do
	grep -q "^innermost:.* $f\( \|$\)" /tmp/coop.res || grep -q "^    interp $f " /tmp/coop.rec ||
		fail "no frame of $f"
done
# The only refusals: answers that came after their request expired (a
# thread that waited long for a CPU on a loaded host).
dmesg | grep "pid $P .*: interp answer refused" |
	grep -v -e 'no request outstanding$' -e 'request gone meanwhile$' >/tmp/coop.refused
[ ! -s /tmp/coop.refused ] || fail "answers refused: $(tail -3 /tmp/coop.refused)"
[ "$(stat_of coop_refused)" -le "$(stat_of coop_expired)" ] ||
	fail "$(stat_of coop_refused) answers refused, $(stat_of coop_expired) requests expired"
echo "$PYLANG: $ok of $py samples in Python code answered, $ordered of $judged in call order," \
	"$handler samples in the answering handler ($((handler * 100 / (py + handler + 1)))%)"
[ "${NEST:-1}" = 1 ] || return 0
# Nested evaluations in the report's folded stacks (count-weighted).
ustack-report --folded --pid $P /tmp/coop.rec >/tmp/coop.folded || fail "ustack-report"
# Stacks taken in the shim's return from its handler are left out, as
# the samples under the handler are above.
awk '/digit_sum \(/ && !/;__do_sys_rt_sigreturn/ {
	c = $NF; line = substr($0, 1, length($0) - length(c) - 1)
	n = split(line, f, ";"); m = d = ev = between = 0
	for (i = 1; i <= n; i++) {
		if (f[i] ~ /^main \(/) m = i
		if (f[i] ~ /^digit_sum \(/ && !d) d = i
		if (f[i] ~ /^_PyEval_EvalFrameDefault(\.cold)?$/) ev = 1
	}
	for (i = m + 1; i < d; i++)
		if (f[i] !~ / \([^()]*\.py\)$/) between++
	tot += c
	if (m && d > m && between && !ev) {
		good += c
		if (!shown++) print "nested right: " line
	} else if (nbad++ < 3) print "wrongly nested: " line
}
END { print "nested " tot + 0 " " good + 0 }' /tmp/coop.folded >/tmp/coop.nest
cat /tmp/coop.nest
set -- $(sed -n 's/^nested \([0-9]\)/\1/p' /tmp/coop.nest)
[ "$1" -ge 10 ] || fail "only $1 samples in digit_sum"
[ $(($2 * 100)) -ge $(($1 * 90)) ] && return 0
# Why: the walks' end reasons, and the first samples in digit_sum whose
# native walk stopped after three frames, whole, with their addresses.
grep -E '^(end_|bad_frame_)' /sys/kernel/debug/ustack/stats | grep -v ' 0$' | tr '\n' ' '; echo
ustack-report --perf -v --pid $P /tmp/coop.rec | awk '
/^[^\t]/ { flush(); blk = $0 "\n"; bad = /end=bad-frame/; next }
{ blk = blk $0 "\n"; if (/ \(\[interp\]\)$/) { if (/ digit_sum /) d = 1 }
  else if (!/kernel/) nu++ }
function flush() { if (bad && d && nu < 4 && n++ < 3) printf "%s", blk; blk = ""; bad = d = nu = 0 }
END { flush() }'
fail "$2 of $1 samples in digit_sum nested right (< 90%)"
