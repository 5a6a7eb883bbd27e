#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mutate.py SFRAME-REGISTER ELF WORKDIR N: corrupt 1-8 random bytes of ELF's
.eh_frame N times; gen (v1/v2/v3) and check on each must end with status 0
or 1 (no crash, no hang: 20 s limit).  Prints "mutate: N files, M problems"."""
import random
import re
import subprocess
import sys

sr, elf, w, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
src = open(elf, 'rb').read()
out = subprocess.run(['readelf', '-SW', elf], capture_output=True, text=True).stdout
m = re.search(r'\.eh_frame\s+PROGBITS\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)', out)
off, size = int(m.group(1), 16), int(m.group(2), 16)
random.seed(12345)
problems = 0
for i in range(n):
    b = bytearray(src)
    for _ in range(random.randint(1, 8)):
        b[off + random.randrange(size)] = random.randrange(256)
    open(w + '/m', 'wb').write(b)
    for cmd in ([sr, 'gen', w + '/m', '-o', w + '/mo', '--version', str(1 + i % 3)],
                [sr, 'check', w + '/m'], [sr, 'check', w + '/mo']):
        try:
            r = subprocess.run(cmd, capture_output=True, timeout=20)
        except subprocess.TimeoutExpired:
            problems += 1
            print('hang:', ' '.join(cmd))
            continue
        if r.returncode not in (0, 1):
            problems += 1
            print('status %d: %s' % (r.returncode, ' '.join(cmd)))
print('mutate: %d files, %d problems' % (n, problems))
sys.exit(1 if problems else 0)
