#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ehcross.py ORIG GEN SFRAME-REGISTER: cross-check gen's output against an
interpreter other than libdw: binutils' readelf --debug-dump=frames-interp of
ORIG.  For the first and last PC of every row, the expected `lookup` answer
is derived from readelf's table (CFA rsp/rbp+N, rbp u/s/c+N, ra c-8; ra u =>
outermost; any other rule => that row left out, "none", while the function's
other rows keep theirs; .plt's expression rows and signal frames skipped), then compared with `sframe-register lookup GEN`.
Prints "ehcross: N PCs, M differ" and the first differences; exit 1 if any."""
import re
import subprocess
import sys

orig, gen, sr = sys.argv[1:4]
txt = subprocess.run(['readelf', '--debug-dump=frames-interp', orig],
                     capture_output=True, text=True).stdout
fde_re = re.compile(r'^\S+ \S+ \S+ FDE cie=\S+ pc=([0-9a-f]+)\.\.([0-9a-f]+)')
row_re = re.compile(r'^([0-9a-f]{16}) ')
cfa_re = re.compile(r'^(rsp|rbp)\+(-?\d+)$')
slot_re = re.compile(r'^c([+-]\d+)$')

fdes = []       # (start, end, [(loc, {col: val})])
cur = None
cols = []
for line in txt.splitlines():
    m = fde_re.match(line)
    if m:
        cur = (int(m.group(1), 16), int(m.group(2), 16), [])
        fdes.append(cur)
        cols = []
        continue
    if cur is None:
        continue
    if line.strip().startswith('LOC'):
        cols = line.split()
        continue
    m = row_re.match(line)
    if m and cols:
        # a value held in a register reads "r3 (rbx)": one column
        vals = re.sub(r'(r\d+) \((\w+)\)', r'\1(\2)', line).split()
        cur[2].append((int(vals[0], 16), dict(zip(cols[1:], vals[1:]))))
    elif not line.strip():
        cur = None

exp = {}
for start, end, rows in fdes:
    if not rows or start >= end:
        continue
    kinds = []
    for loc, v in rows:
        cfa, ra, fp = v.get('CFA', ''), v.get('ra', 'u'), v.get('rbp', 'u')
        if ra == 'u':
            kinds.append('outermost')
            continue
        mc, ms = cfa_re.match(cfa), slot_re.match(fp)
        if ra != 'c-8' or not mc or not (fp in ('u', 's') or ms):
            kinds.append('bad' if cfa != 'exp' else 'exp')
            continue
        kinds.append('cfa=%s%+d fp=%s ra=c-8' % (
            'sp' if mc.group(1) == 'rsp' else 'fp', int(mc.group(2)),
            'u' if not ms else 'c%+d' % int(ms.group(1))))
    if 'exp' in kinds:          # ld's PLT expression: tested elsewhere
        continue
    for i, (loc, v) in enumerate(rows):
        hi = rows[i + 1][0] if i + 1 < len(rows) else end
        if hi <= loc:
            continue
        for pc in {loc, hi - 1}:
            exp[pc] = 'none' if kinds[i] == 'bad' else kinds[i]

pcs = sorted(exp)
got = {}
for i in range(0, len(pcs), 4000):
    out = subprocess.run([sr, 'lookup', gen] + ['%#x' % p for p in pcs[i:i + 4000]],
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        a, _, rest = line.partition(' ')
        got[int(a, 16)] = rest
bad = [p for p in pcs if got.get(p) != exp[p]]
for p in bad[:10]:
    print('differ %#x readelf: %s gen: %s' % (p, exp[p], got.get(p)))
print('ehcross: %d PCs, %d differ' % (len(pcs), len(bad)))
sys.exit(1 if bad or not pcs else 0)
