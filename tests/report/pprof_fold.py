#!/usr/bin/env python3
"""Read pprof_dump's lines (a profile decoded by protoc-c) on stdin and
print, per sample type, folded stacks as --folded prints them:
`TYPE comm;outer;...;inner count`, sorted (the comm from the sample's
label).  Exits 1 when the dump is inconsistent.

  --stream FILE   also check every user frame of the text stream FILE
                  (`user 0x<ip> <method> <object>+0x<offset>`): a location
                  at ip in a mapping of that object whose start and file
                  offset give that offset back
  --build-id PATH=HEX  and that PATH's mappings carry this build-id
  --labels        print `labels pid=N tid=N comm=S count` lines instead
"""
import argparse
import collections
import re
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--stream")
ap.add_argument("--build-id", action="append", default=[])
ap.add_argument("--labels", action="store_true")
a = ap.parse_args()

types, samples, maps, locs = [], [], {}, {}
for line in sys.stdin:
    line = line.rstrip("\n")
    kind, _, rest = line.partition(" ")
    if kind == "type":
        types.append(rest.split()[0])
    elif kind == "sample":
        head, _, ids = line.rpartition(":")
        w = head.split(" ", 2)
        vals = [int(v) for v in w[1].split(",")]
        labels = dict(kv.split("=", 1) for kv in re.findall(r"\S+=\S+", w[2]))
        samples.append((vals, labels, ids.split()))
    elif kind == "mapping":
        f = rest.split(" ")
        maps[f[0]] = (int(f[1], 16), int(f[2], 16), int(f[3], 16), f[4], f[5])
    elif kind == "location":
        f = rest.split(" ", 3)
        name, _, fl = f[3].rpartition(" ")
        locs[f[0]] = (f[1], int(f[2], 16), name, fl)

out = collections.Counter()
for vals, labels, ids in samples:
    if a.labels:
        out["labels pid=%s tid=%s comm=%s" % (labels["pid"], labels["tid"],
                                             labels["comm"])] += sum(vals)
        continue
    names = [locs[i][2] for i in ids]
    for t, v in zip(types, vals):
        if v:
            out["%s %s" % (t, ";".join([labels["comm"]] + names[::-1]))] += v
for k in sorted(out):
    print("%s %d" % (k, out[k]))

bids = dict(b.split("=", 1) for b in a.build_id)
if a.stream:
    n = 0
    for line in open(a.stream):
        m = re.match(r"\s+user 0x([0-9a-f]+) \S+ (.*)\+0x([0-9a-f]+)$", line)
        if not m:
            continue
        ip, obj, off = int(m.group(1), 16), m.group(2), int(m.group(3), 16)
        ok = False
        for mid, addr, name, fl in locs.values():
            if addr != ip or mid == "0":
                continue
            start, limit, foff, fname, bid = maps[mid]
            if (fname == obj and start <= ip < limit and
                    ip - start + foff == off and bids.get(obj, bid) == bid):
                ok = True
        if not ok:
            sys.exit("user frame %#x %s+%#x: no location/mapping gives it back"
                     % (ip, obj, off))
        n += 1
    if n < 10:
        sys.exit("only %d user frames checked" % n)
