#!/usr/bin/env python3
"""The rules of speedscope's "perf script" importer (linux-tools-perf):
blocks split on blank lines, header `comm pid/tid ... sec.usec: ... event:`,
frames `addr symbol+off (file)`.  Prints, for the first block's event type
(speedscope keeps only that one), `event EVENT`, then folded
`comm;outer;...;inner count` lines, sorted; exits 1 if a block lacks a
command, a time or an event."""
import re
import sys
from collections import Counter

text = sys.stdin.read()
counts = Counter()
etype = None
for block in text.split("\n\n"):
    lines = [l for l in block.split("\n") if not re.match(r"^\s*#", l)]
    if not lines or not lines[0]:
        continue
    first = lines.pop(0)
    m = re.match(r"^(\S.+?)\s+(\d+)(?:/?(\d+))?\s+", first)
    t = re.search(r"\s+(\d+\.\d+):\s+", first)
    ev = re.search(r"(\S+):\s*$", first)
    if not m or not t or not ev:
        sys.exit("bad header: " + first)
    if etype is None:
        etype = ev.group(1)
    if ev.group(1) != etype:
        continue
    stack = []
    for l in lines:
        f = re.match(r"^\s*(\w+)\s*(.+) \((\S*)\)", l)
        if f:
            stack.append(re.sub(r"\+0x[\da-f]+$", "", f.group(2)))
    counts[";".join([m.group(1)] + stack[::-1])] += 1
print("event", etype)
for k in sorted(counts):
    print("%s %d" % (k, counts[k]))
