# kpython.sh for Debian's python3.13 (scripts/runtimes.conf: unpacked,
# run with its own loader): its layout from the _Py_DebugOffsets of its
# file, checked in the process at each walk.
# python: yes
# runtime: python3.13
# kernels: 6.1
# timeout: 900
PY="/opt/runtimes/python3.13/ld.sh usr/bin/python3.13" PYLANG=python3.13
PYEVAL=bin/python3.13.eval
. ./kpython.sh
