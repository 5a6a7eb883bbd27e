# Cooperative unwinding of python3.11 under the shim at 999 Hz: recursion,
# classes, a generator and threads (coop_prog.py).  At least 90% of its
# samples in Python code (an evaluator frame in the native stack) get an
# interp record with its Python frames, in call order; its output is
# byte-identical with and without ustack.
# python: yes
# kernels: 6.1 6.12
# timeout: 600
. ./lib.sh
[ -x /usr/bin/python3.11 ] || fail "no python3.11 in the guest"
python3.11 coop_prog.py >/tmp/plain.out || fail "python without ustack"
ustack_load sample_hz=999 buffer_kb=32768
record_start /tmp/coop.rec
sframe-register run python3.11 coop_prog.py >/tmp/coop.out &
P=$!
wait $P || fail "python under the shim: exit $?"
record_stop 1
cmp /tmp/plain.out /tmp/coop.out || fail "output differs with ustack"
grep -E '^(coop_|dropped |walks )' /sys/kernel/debug/ustack/stats | tr '\n' ' '; echo
[ "$(stat_of dropped)" = 0 ] || fail "records dropped"
awk -v PID=$P -v EVAL="$(cat bin/python3.11.eval)" -f coop-python.awk /tmp/coop.rec >/tmp/coop.res
cat /tmp/coop.res
set -- $(sed -n 's/^python_samples //p' /tmp/coop.res)
py=$1 ok=$3 answers=$5 ordered=$7 badlang=$9 judged=${11}
[ "$py" -ge 100 ] || fail "only $py samples in Python code"
[ $((ok * 100)) -ge $((py * 90)) ] || fail "$ok of $py samples in Python code answered (< 90%)"
[ "$badlang" = 0 ] || fail "$badlang answers not lang=python3.11"
[ "$judged" -ge $((answers / 2)) ] || fail "only $judged of $answers answers have the program's frames"
[ $((ordered * 100)) -ge $((judged * 99)) ] || fail "$ordered of $judged answers in call order"
for f in fib Tree.count squares worker; do
	grep -q "^innermost:.* $f\( \|$\)" /tmp/coop.res || grep -q "^    interp $f " /tmp/coop.rec ||
		fail "no frame of $f"
done
[ "$(stat_of coop_refused)" = 0 ] || fail "answers refused: $(dmesg | grep 'interp answer refused' | tail -3)"
echo "coop-python: $ok of $py samples in Python code answered, $ordered of $judged in call order"
