#!/usr/bin/env python3
"""The rules of FlameGraph's stackcollapse-perf.pl (default options), to
check that ustack-report's perf output folds to its own --folded output."""
import re
import sys
from collections import Counter

counts = Counter()
pname = None
stack = []
for line in sys.stdin:
    line = line.rstrip("\n")
    if line.startswith("#"):
        continue
    if not line.strip():
        if pname is not None:
            counts[";".join([pname] + stack)] += 1
        pname, stack = None, []
        continue
    m = re.match(r"^(\S.+?)\s+(\d+)/*(\d+)*\s+", line)
    if m and pname is None:
        pname = m.group(1).replace(" ", "_")
        continue
    m = re.match(r"^\s*(\w+)\s*(.+) \((\S*)\)", line)
    if not m:
        print("unrecognized line: " + line, file=sys.stderr)
        continue
    rawfunc, mod = m.group(2), m.group(3)
    rawfunc = re.sub(r"\+0x[\da-f]+$", "", rawfunc)
    if rawfunc.startswith("("):
        continue
    if rawfunc == "[unknown]" and mod != "[unknown]":
        rawfunc = "[" + re.sub(r".*/", "", mod) + "]"
    func = rawfunc.replace(";", ":")
    func = re.sub(r"\((?!anonymous namespace\)).*", "", func)
    func = func.replace('"', "").replace("'", "")
    stack.insert(0, func)
for k in sorted(counts):
    print("%s %d" % (k, counts[k]))
