#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""craft.py FILE NSECT NOTESECT NOTESIZE: a user's hostile ELF file (issue
25, item 2): a sparse x86-64 shared object with NSECT section headers
(extended numbering), the first NOTESECT of them SHT_NOTE over one
NOTESIZE-byte run of zeros (millions of empty notes).  tests/ustackd
feeds it to ustackd, tests/bench/ustackd.sh times ustackd on it."""
import struct
import sys

path, nsect, nnote, notesize = sys.argv[1], *map(int, sys.argv[2:])
shoff, noteoff = 4096, 4096 + 64 * nsect
with open(path, 'wb') as f:
    f.write(b'\x7fELF' + bytes([2, 1, 1, 0]) + bytes(8))
    f.write(struct.pack('<HHIQQQIHHHHHH', 3, 62, 1, 0, 0, shoff, 0, 64, 56, 0,
                        64, 0, 0))
    f.seek(shoff)
    f.write(struct.pack('<IIQQQQIIQQ', 0, 0, 0, 0, 0, nsect, 0, 0, 0, 0))
    for _ in range(nnote):
        f.write(struct.pack('<IIQQQQIIQQ', 0, 7, 2, 0, noteoff, notesize,
                            0, 0, 4, 0))
    f.truncate(noteoff + notesize)
