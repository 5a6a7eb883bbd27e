# Cooperative unwinding of Debian 12's python3.11 under the shim at 999
# Hz (_coop-python.sh): at least 90% of its samples in Python code (an
# evaluator frame in the native stack) get an interp record with its
# Python frames, in call order; its output is byte-identical with and
# without ustack.  ustack-report puts each evaluation in place of its own
# evaluator frame: in the stacks of the sort's key function (digit_sum,
# called by sorted() in main), the builtin's native frames stay between
# main and digit_sum and no evaluator frame is left.
# python: yes
# kernels: 6.1
# timeout: 1200
# Two rounds in make check-full (some 3700 samples in Python code at
# 999 Hz on 6.1; the checks ask for 100), one in make check.  The debug
# kernel (KASAN, lockdep under TCG) runs one, and gives the handler 1 s
# to answer.  make check runs it on 6.1 alone:
# what it adds to coop-c and coop-iouring, which take the kernel's same
# paths on every kernel, is the shim's Python frames, which no kernel
# changes; make check-full runs it everywhere.
[ -x /usr/bin/python3.11 ] || { echo "FAIL: no python3.11 in the guest"; exit 1; }
PY=python3.11 PYLANG=python3.11 PYEVAL=bin/python3.11.eval NEST=1
. ./_coop-python.sh
