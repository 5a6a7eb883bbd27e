#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""craft_fde.py FILE KIND: a user's hostile ELF file for the generator
(issue 49, item 6): an x86-64 shared object whose one .eh_frame FDE ends
near 2^64, inside an executable PT_LOAD said to reach that far.
  memsz  the segment [0x400000, 2^64-1) (p_filesz = p_memsz: far past the
         file), the FDE [0x400000, 0xfffffffffffffff9) over a .text of
         0x100 bytes at 0x400000: the crtbegin scan's `lo + 15` wrapped to
         0 and read 4 MiB before .text (SIGSEGV)
  high   an honest segment at the top of the address space [2^64-0x1000,
         2^64-8), its bytes in the file, the FDE up to its end: the same
         wrap, reading past .text
  many   (craft_fde.py FILE many N) N honest FDEs of 16 bytes each over a
         sparse .text: the generator works on it for seconds (a slow
         child to look at)
tests/ustackd feeds `memsz` to ustackd; tests/fuzz/seeds-gen holds both."""
import struct
import sys

path, kind = sys.argv[1], sys.argv[2]
n, text = 1, 0x100
if kind == 'many':
    n = int(sys.argv[3])
    text = 16 * n
    vaddr, filesz = 0x400000, text
    fde_end = None
elif kind == 'memsz':
    vaddr, filesz = 0x400000, (1 << 64) - 1 - 0x400000
    fde_end = 0xfffffffffffffff9
elif kind == 'high':
    vaddr, filesz = (1 << 64) - 0x1000, 0xff8
    fde_end = (1 << 64) - 8
else:
    sys.exit('kind: memsz, high or many')

# CIE: "zR", FDE pointers udata8; CFA = rsp + 8, RA at CFA - 8
cie = struct.pack('<IB3sBBBBB', 0, 1, b'zR\0', 1, 0x78, 16, 1, 0x04)
cie += bytes([0x0c, 0x07, 0x08, 0x90, 0x01])
cie += bytes(-len(cie) % 4)
eh = [struct.pack('<I', len(cie)) + cie]
off = len(eh[0])
for i in range(n):
    start = vaddr + 16 * i
    end = fde_end if fde_end is not None else start + 16
    # CIE pointer: back to offset 0
    fde = struct.pack('<IQQB', off + 4, start, end - start, 0)
    fde += bytes(-(len(fde)) % 4)
    eh.append(struct.pack('<I', len(fde)) + fde)
    off += 4 + len(fde)
eh = b''.join(eh) + bytes(4)
strtab = b'\0.text\0.eh_frame\0.shstrtab\0'
EH = 0x100
STR = max(0x200, EH + len(eh))
TEXT = (STR + len(strtab) + 0xfff) & ~0xfff
if kind == 'memsz' or kind == 'high':
    TEXT = 0x1000
SH = TEXT + ((text + 0xfff) & ~0xfff)
if kind == 'high':
    SH = 0x2000

with open(path, 'wb') as f:
    f.write(b'\x7fELF' + bytes([2, 1, 1, 0]) + bytes(8))
    f.write(struct.pack('<HHIQQQIHHHHHH', 3, 62, 1, 0, 0x40, SH, 0, 64, 56, 1,
                        64, 4, 3))
    f.write(struct.pack('<IIQQQQQQ', 1, 5, TEXT, vaddr, vaddr, filesz, filesz,
                        0x1000))
    f.seek(EH)
    f.write(eh)
    f.seek(STR)
    f.write(strtab)
    f.seek(TEXT)
    f.write(b'\x90' * 0x100)	# the rest sparse
    f.seek(SH)
    f.write(bytes(64))
    # name, type, flags, addr, offset, size, link, info, align, entsize
    f.write(struct.pack('<IIQQQQIIQQ', 1, 1, 6, vaddr, TEXT, text, 0, 0, 16, 0))
    f.write(struct.pack('<IIQQQQIIQQ', 7, 1, 2, 0x3000, EH, len(eh), 0, 0, 8, 0))
    f.write(struct.pack('<IIQQQQIIQQ', 17, 3, 0, 0, STR, len(strtab), 0, 0, 1, 0))
