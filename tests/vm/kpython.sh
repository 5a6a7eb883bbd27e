# Issue 51: Python frames of a CPython process with no shim and no
# signal, read by the kernel's walk.  ustackd (its store empty) registers
# python3.11 with its CPython layout; python3.11 then runs coop_prog.py
# plainly at 999 Hz: at least 95% of its samples in Python code get an
# interp record with its frames in call order, and no cooperative
# request is sent.  Samples whose native walk found no SFrame at all came
# before ustackd covered the interpreter (a never-seen file, under
# TCG; what issue 50's first-sample tests measure): counted apart, as
# the reader has no layout before the store entry that brings it.
# python: yes
# kernels: 6.1
# timeout: 900
. ./lib.sh
[ -x /usr/sbin/ustackd ] || fail "ustackd not built"
PY=${PY:-python3.11} PYLANG=${PYLANG:-python3.11} PYEVAL=${PYEVAL:-bin/python3.11.eval}
[ -x /usr/bin/python3.11 ] || fail "no python3.11 in the guest"
ustack_unload
rm -rf /var/cache/ustack
ustack_load sample_hz=999 buffer_kb=32768
ustackd_start /tmp/kp-ud.log
record_start /tmp/kp.rec
# shellcheck disable=SC2086	# PY is a command with its arguments
$PY coop_prog.py 1 >/tmp/kp.out 2>/tmp/kp.err &
P=$!
wait $P || fail "$PYLANG: exit $?: $(head -3 /tmp/kp.err)"
record_stop 1
grep -E '^(coop_signalled|py_|store_python|store_miss_wait|dropped |walks )' /sys/kernel/debug/ustack/stats | tr '\n' ' '; echo
grep -e "bin/python3" -e "system objects" /tmp/kp-ud.log | head -5
awk -v PID=$P -v LANG=$PYLANG -v EVAL="$(cat $PYEVAL)" -f coop-python.awk /tmp/kp.rec >/tmp/kp.res
cat /tmp/kp.res
set -- $(sed -n 's/^python_samples //p' /tmp/kp.res)
py=$1 ok=$3 answers=$5 ordered=$7 badlang=$9 judged=${11} uncovered=${15}
[ "$py" -ge 100 ] || fail "only $py samples in Python code"
covered=$((py - uncovered))
[ $((ok * 100)) -ge $((covered * 95)) ] ||
	fail "$ok of $covered samples in Python code named (< 95%; $uncovered more before coverage)"
[ "$badlang" = 0 ] || fail "$badlang records not lang=$PYLANG"
[ $((ordered * 100)) -ge $((judged * 99)) ] || fail "$ordered of $judged records in call order"
for f in fib Tree.count squares worker digit_sum; do
	grep -q "^innermost:.* $f\( \|$\)" /tmp/kp.res || grep -q "^    interp $f " /tmp/kp.rec ||
		fail "no frame of $f"
done
[ "$(stat_of coop_signalled)" = 0 ] || fail "$(stat_of coop_signalled) cooperative requests sent"
echo "kpython: $ok of $py samples in Python code named by the kernel ($uncovered before coverage), $ordered of $judged in call order"
kill $UD; wait $UD
ustack_unload
