#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""sfcompare.py GAS GEN: with binutils' own decoder (readelf --sframe,
libsframe 2.40, v1 only), every function block of GAS's .sframe must appear
identically in GEN's (gen --version 1 output of the same binary).  Prints
"sfcompare: N functions, M differ"; exit 1 if any differ or none compared."""
import re
import subprocess
import sys


def blocks(path):
    out = subprocess.run(['readelf', '--sframe', path], capture_output=True,
                         text=True).stdout
    res, cur = {}, None
    for line in out.splitlines():
        m = re.match(r'\s*func idx \[\d+\]: (pc = .*)', line)
        if m:
            cur = m.group(1)
            res[cur] = []
        elif cur and line.strip():
            res[cur].append(line.strip())
    return res


gas, gen = blocks(sys.argv[1]), blocks(sys.argv[2])
bad = [k for k in gas if gen.get(k) != gas[k]]
for k in bad[:5]:
    print('differ: %s\n  gas: %s\n  gen: %s' % (k, gas[k], gen.get(k)))
print('sfcompare: %d functions, %d differ' % (len(gas), len(bad)))
sys.exit(1 if bad or not gas else 0)
