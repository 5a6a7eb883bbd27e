# Cooperative unwinding of Debian's python3.13 (scripts/runtimes.conf:
# unpacked, never installed, run with its own loader and libraries) under
# the shim at 999 Hz (_coop-python.sh): a Python this library was not
# built against, unwound by the offsets its _Py_DebugOffsets publishes.
# At least 90% of its samples in Python code get an interp record with
# its Python frames, 99% of them in call order; its output is unchanged.
# runtime: python3.13
# kernels: 6.1
# timeout: 1200
PY="/opt/runtimes/python3.13/ld.sh usr/bin/python3.13" PYLANG=python3.13
PYEVAL=bin/python3.13.eval NEST=1
. ./_coop-python.sh
